// My submissions, with filters and cursor paging; verdicts of the listed
// submissions update live through the user channel.

import { useEffect, useState } from "preact/hooks";
import { api, type SubmissionSummary } from "../api";
import { getLang, t } from "../i18n";
import { FINAL_VERDICTS, type SubmissionState } from "../live/protocol";
import { dateTime, memory, millis } from "../format";
import { live, session, useStore } from "../state";
import { formatScore } from "../scoreboard";
import { ErrorBox, Loading, useFocusHeading, useTitle, VerdictBadge } from "../ui";

export function SubmissionsPage({ query }: { query: URLSearchParams }) {
  useTitle(t("submissions.title"));
  const h = useFocusHeading();
  const user = useStore(session).user;
  const [problem, setProblem] = useState(query.get("problem") ?? "");
  const [verdict, setVerdict] = useState(query.get("verdict") ?? "");
  const [filter, setFilter] = useState({ problem, verdict });
  const [items, setItems] = useState<SubmissionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const fetchPage = async (c: string | null, replace: boolean) => {
    setLoading(true);
    setError(null);
    try {
      const page = await api.submissions({ mine: true, problem: filter.problem, verdict: filter.verdict, cursor: c });
      setItems((old) => (replace ? page.items : [...old, ...page.items]));
      setCursor(page.next_cursor ?? null);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    if (user) fetchPage(null, true);
  }, [filter, user?.id]);

  // Live: status changes of my submissions.
  useEffect(() => {
    if (!user) return;
    const update = (b: SubmissionState) => {
      if (!b || typeof b.submission_id !== "number") return;
      setItems((old) =>
        old.map((s) => (s.id === b.submission_id ? { ...s, verdict: b.status ?? s.verdict, score: b.score ?? s.score } : s)),
      );
    };
    return live().subscribe(
      { kind: "user", id: user.id },
      {
        snapshot: (state) => {
          const list = (state as { items?: SubmissionState[] })?.items;
          if (Array.isArray(list)) list.forEach(update);
        },
        event: (ev) => update(ev.body as SubmissionState),
      },
    );
  }, [user?.id]);

  if (!user) {
    return (
      <div class="page">
        <h1>{t("submissions.title")}</h1>
        <p class="alert alert-info">
          <a href="/login?next=/submissions">{t("nav.login")}</a> — {t("common.loginRequired")}
        </p>
      </div>
    );
  }
  const lang = getLang();
  return (
    <div class="page">
      <h1 ref={h} tabIndex={-1}>
        {t("submissions.title")}
      </h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ problem: problem.trim(), verdict });
        }}
      >
        <label for="f-problem">{t("submissions.filterProblem")}</label>
        <input id="f-problem" value={problem} onInput={(e) => setProblem(e.currentTarget.value)} size={12} />
        <label for="f-verdict">{t("submissions.filterVerdict")}</label>
        <select id="f-verdict" value={verdict} onChange={(e) => setVerdict(e.currentTarget.value)}>
          <option value="">{t("submissions.any")}</option>
          {FINAL_VERDICTS.filter((v) => v !== "SK").map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
        <button type="submit" class="btn">
          {t("submissions.apply")}
        </button>
      </form>
      <ErrorBox error={error} onRetry={() => fetchPage(null, true)} />
      {!loading && items.length === 0 && !error && <p class="muted">{t("common.none")}</p>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="list submissions">
            <thead>
              <tr>
                <th scope="col">{t("submissions.col.id")}</th>
                <th scope="col">{t("submissions.col.problem")}</th>
                <th scope="col">{t("submissions.col.verdict")}</th>
                <th scope="col" class="num hide-narrow">{t("submissions.col.score")}</th>
                <th scope="col" class="num hide-narrow">{t("submissions.col.time")}</th>
                <th scope="col" class="num hide-narrow">{t("submissions.col.memory")}</th>
                <th scope="col" class="hide-narrow">{t("submissions.col.language")}</th>
                <th scope="col" class="hide-narrow">{t("submissions.col.when")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={`/submissions/${s.id}`}>{s.id}</a>
                  </td>
                  <td>
                    <a href={`/problems/${encodeURIComponent(s.problem)}`}>{s.problem_title ?? s.problem}</a>
                  </td>
                  <td>
                    <VerdictBadge verdict={s.verdict} short />
                  </td>
                  <td class="num hide-narrow">{formatScore(s.score ?? 0)}</td>
                  <td class="num hide-narrow">{millis(s.time_ms)}</td>
                  <td class="num hide-narrow">{memory(s.memory_kb)}</td>
                  <td class="hide-narrow">{s.language}</td>
                  <td class="hide-narrow nowrap">{dateTime(s.created_at, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {loading && <Loading />}
      {cursor && !loading && (
        <button type="button" class="btn" onClick={() => fetchPage(cursor, false)}>
          {t("common.more")}
        </button>
      )}
    </div>
  );
}
