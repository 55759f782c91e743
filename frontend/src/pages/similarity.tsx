// The similarity check (staff): the most similar pairs of sources of a
// problem or a contest, and a pair side by side with the matching regions
// highlighted. The URL holds the state: /similarity?problem=slug (or
// contest=slug, all=1), and &a=id&b=id for the side-by-side view.

import { useEffect, useState } from "preact/hooks";
import { t } from "../i18n";
import { navigate } from "../router";
import { isStaff, session, useStore } from "../state";
import {
  percent,
  segments,
  similarityApi,
  similarityQuery,
  type SimilarityComparison,
  type SimilarityReport,
  type SimilarityScope,
  type SimilaritySide,
  type Span,
} from "../similarity";
import { ErrorBox, Loading, Notice, useFocusHeading, useTitle, VerdictBadge } from "../ui";

const PALETTE = 6; // sim-r0 .. sim-r5 in styles.css

function scopeOf(q: URLSearchParams): SimilarityScope {
  return { problem: q.get("problem") ?? undefined, contest: q.get("contest") ?? undefined, all: q.get("all") === "1" };
}

export function SimilarityPage({ query }: { query: URLSearchParams }) {
  useTitle(t("similarity.title"));
  const user = useStore(session).user;
  const scope = scopeOf(query);
  const a = Number(query.get("a") ?? ""),
    b = Number(query.get("b") ?? "");
  if (!isStaff(user)) {
    return (
      <div class="page">
        <h1>{t("similarity.title")}</h1>
        <Notice kind="error">{t("similarity.denied")}</Notice>
      </div>
    );
  }
  if (a > 0 && b > 0) return <ComparePage scope={scope} a={a} b={b} />;
  return <PairsPage scope={scope} />;
}

function PairsPage({ scope }: { scope: SimilarityScope }) {
  const h = useFocusHeading();
  const [kind, setKind] = useState<"problem" | "contest">(scope.contest ? "contest" : "problem");
  const [slug, setSlug] = useState(scope.contest ?? scope.problem ?? "");
  const [all, setAll] = useState(!!scope.all);
  const [report, setReport] = useState<SimilarityReport | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const key = similarityQuery(scope);

  const load = (signal?: AbortSignal) => {
    if (!scope.problem && !scope.contest) return;
    setLoading(true);
    setError(null);
    similarityApi
      .pairs(scope, signal)
      .then((r) => setReport(r))
      .catch((e) => {
        if (!signal?.aborted) setError(e);
      })
      .finally(() => setLoading(false));
  };
  useEffect(() => {
    const ac = new AbortController();
    setReport(null);
    load(ac.signal);
    return () => ac.abort();
  }, [key]);

  const listQuery = key;
  return (
    <div class="page similarity">
      <h1 ref={h} tabIndex={-1}>
        {t("similarity.title")}
      </h1>
      <p class="muted">{t("similarity.intro")}</p>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const s = slug.trim();
          if (!s) return;
          navigate(`/similarity?${similarityQuery(kind === "contest" ? { contest: s, all } : { problem: s, all })}`);
        }}
      >
        <label for="sim-kind">{t("similarity.scope")}</label>
        <select id="sim-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as "problem" | "contest")}>
          <option value="problem">{t("similarity.problem")}</option>
          <option value="contest">{t("similarity.contest")}</option>
        </select>
        <label for="sim-slug">{t("similarity.slug")}</label>
        <input id="sim-slug" required value={slug} onInput={(e) => setSlug(e.currentTarget.value)} size={16} />
        <label class="check-inline" for="sim-all">
          <input id="sim-all" type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          {t("similarity.all")}
        </label>
        <button type="submit" class="btn">
          {t("similarity.run")}
        </button>
      </form>
      <ErrorBox error={error} onRetry={() => load()} />
      {loading && <Loading />}
      {report && !loading && (
        <>
          <p class="sim-summary" role="status">
            {t("similarity.summary", {
              sources: report.sources,
              checked: report.checked,
              pairs: report.candidates,
              ms: report.elapsed_ms,
            })}
            {report.skipped > 0 && ` ${t("similarity.skipped", { n: report.skipped })}`}
          </p>
          {report.pairs.length === 0 ? (
            <p class="muted">{t("similarity.none")}</p>
          ) : (
            <div class="table-wrap">
              <table class="list sim-pairs">
                <thead>
                  <tr>
                    <th scope="col" class="num">#</th>
                    <th scope="col" class="num">{t("similarity.col.score")}</th>
                    <th scope="col">{t("similarity.col.a")}</th>
                    <th scope="col">{t("similarity.col.b")}</th>
                    <th scope="col" class="hide-narrow">{t("similarity.col.problem")}</th>
                    <th scope="col" class="num hide-narrow">{t("similarity.col.shared")}</th>
                    <th scope="col">
                      <span class="sr-only">{t("similarity.compare")}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.pairs.map((p, i) => (
                    <tr key={`${p.a.submission_id}-${p.b.submission_id}`} data-a={p.a.submission_id} data-b={p.b.submission_id}>
                      <td class="num">{i + 1}</td>
                      <td class="num">
                        <strong>{percent(p.score)}</strong>
                      </td>
                      <td>
                        {p.a.username} <a href={`/submissions/${p.a.submission_id}`}>#{p.a.submission_id}</a>{" "}
                        <span class="muted">
                          {p.a.language} · {percent(p.cover_a)}
                        </span>
                      </td>
                      <td>
                        {p.b.username} <a href={`/submissions/${p.b.submission_id}`}>#{p.b.submission_id}</a>{" "}
                        <span class="muted">
                          {p.b.language} · {percent(p.cover_b)}
                        </span>
                      </td>
                      <td class="hide-narrow">{p.a.problem}</td>
                      <td class="num hide-narrow">{p.shared}</td>
                      <td>
                        <a class="btn btn-small" href={`/similarity?${listQuery}&a=${p.a.submission_id}&b=${p.b.submission_id}`}>
                          {t("similarity.compare")}
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </div>
  );
}

function ComparePage({ scope, a, b }: { scope: SimilarityScope; a: number; b: number }) {
  const h = useFocusHeading();
  const [cmp, setCmp] = useState<SimilarityComparison | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = (signal?: AbortSignal) => {
    setError(null);
    similarityApi
      .compare(a, b, signal)
      .then(setCmp)
      .catch((e) => {
        if (!signal?.aborted) setError(e);
      });
  };
  useEffect(() => {
    const ac = new AbortController();
    setCmp(null);
    load(ac.signal);
    return () => ac.abort();
  }, [a, b]);
  const back = similarityQuery(scope);
  return (
    <div class="page similarity">
      <p>
        <a href={back ? `/similarity?${back}` : "/similarity"}>← {t("similarity.back")}</a>
      </p>
      <h1 ref={h} tabIndex={-1}>
        {t("similarity.compareTitle", { a, b })}
      </h1>
      <ErrorBox error={error} onRetry={() => load()} />
      {!cmp && !error && <Loading />}
      {cmp && (
        <>
          <p class="sim-summary" role="status">
            {t("similarity.regions", { n: cmp.regions.length })}
          </p>
          <div class="sim-sides">
            <SourceSide side={cmp.a} which="a" spans={cmp.regions.map((r) => r.a)} />
            <SourceSide side={cmp.b} which="b" spans={cmp.regions.map((r) => r.b)} />
          </div>
        </>
      )}
    </div>
  );
}

function SourceSide({ side, which, spans }: { side: SimilaritySide; which: "a" | "b"; spans: Span[] }) {
  const other = which === "a" ? "b" : "a";
  const lines = side.source.split("\n").length;
  const jump = (i: number) => {
    const el = document.getElementById(`sim-${other}-${i}`);
    el?.scrollIntoView?.({ block: "center", behavior: "smooth" });
    el?.focus?.();
  };
  return (
    <section class="sim-side" aria-label={`${side.username} #${side.submission_id}`}>
      <h2>
        {side.username} <a href={`/submissions/${side.submission_id}`}>#{side.submission_id}</a>{" "}
        <VerdictBadge verdict={side.verdict} short />
      </h2>
      <p class="muted">
        {side.language} · {t("similarity.matched", { n: side.matched, of: side.tokens })}
      </p>
      <div class="sim-code">
        <pre class="sim-gutter" aria-hidden="true">
          {Array.from({ length: lines }, (_, i) => i + 1).join("\n")}
        </pre>
        <pre class={`sim-src sim-${which}`}>
          <code>
            {segments(side.source, spans).map((s, k) =>
              s.region === null ? (
                s.text
              ) : (
                <mark
                  key={k}
                  id={`sim-${which}-${s.region}`}
                  class={`sim-r${s.region % PALETTE}`}
                  data-region={s.region}
                  tabIndex={0}
                  title={t("similarity.jump")}
                  onClick={() => jump(s.region!)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") jump(s.region!);
                  }}
                >
                  {s.text}
                </mark>
              ),
            )}
          </code>
        </pre>
      </div>
    </section>
  );
}
