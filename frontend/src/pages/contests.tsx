// The contest list and a contest: countdown, problems, the live scoreboard
// and clarifications.

import { useEffect, useMemo, useState } from "preact/hooks";
import { api, type Contest } from "../api";
import { getLang, t } from "../i18n";
import { countdown, dateTime, length } from "../format";
import { renderMarkdown } from "../markdown";
import { applyEvent, emptyBoard, fromDoc, type Scoreboard } from "../scoreboard";
import { live, session, useStore } from "../state";
import { ScoreboardTable } from "../components/scoreboard";
import { LiveStatus } from "../components/livestatus";
import { ErrorBox, Field, fieldError, formError, Loading, Notice, useAsync, useFocusHeading, useNow, useTitle } from "../ui";

export function ContestsPage() {
  useTitle(t("contests.title"));
  const h = useFocusHeading();
  const list = useAsync(() => api.contests(), []);
  const lang = getLang();
  return (
    <div class="page">
      <h1 ref={h} tabIndex={-1}>
        {t("contests.title")}
      </h1>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && list.data.items.length === 0 && <p class="muted">{t("common.none")}</p>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">{t("contests.col.title")}</th>
                <th scope="col" class="hide-narrow">{t("contests.col.rule")}</th>
                <th scope="col">{t("contests.col.start")}</th>
                <th scope="col" class="hide-narrow">{t("contests.col.length")}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((c) => (
                <tr key={c.slug}>
                  <td>
                    <a href={`/contests/${encodeURIComponent(c.slug)}`}>{c.title}</a>
                  </td>
                  <td class="hide-narrow">{c.rule.toUpperCase()}</td>
                  <td class="nowrap">{dateTime(c.start_at, lang)}</td>
                  <td class="hide-narrow">{length(Date.parse(c.end_at) - Date.parse(c.start_at))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function Countdown({ contest }: { contest: Contest }) {
  const now = useNow(1000);
  const start = Date.parse(contest.start_at);
  const end = Date.parse(contest.end_at);
  let text: string;
  let progress = 0;
  if (now < start) text = t("contest.startsIn", { time: countdown(start - now) });
  else if (now < end) {
    text = t("contest.endsIn", { time: countdown(end - now) });
    progress = (now - start) / (end - start);
  } else {
    text = t("contest.ended");
    progress = 1;
  }
  return (
    <div class="countdown" role="timer" aria-label={t("contest.countdown")} aria-live="off">
      <span class="countdown-text num">{text}</span>
      <progress max={1} value={progress} aria-hidden="true" />
    </div>
  );
}

type Tab = "problems" | "scoreboard" | "clarifications";

export function ContestPage({ slug, query }: { slug: string; query: URLSearchParams }) {
  const c = useAsync(() => api.contest(slug), [slug]);
  const h = useFocusHeading();
  useTitle(c.data?.title ?? slug);
  const tab = (["problems", "scoreboard", "clarifications"].includes(query.get("tab") ?? "") ? query.get("tab") : "problems") as Tab;
  const base = `/contests/${encodeURIComponent(slug)}`;
  return (
    <div class="page contest-page">
      <ErrorBox error={c.error} onRetry={c.reload} />
      {c.loading && !c.data && <Loading />}
      {c.data && (
        <>
          <header class="contest-head">
            <h1 ref={h} tabIndex={-1}>
              {c.data.title}
            </h1>
            <Countdown contest={c.data} />
          </header>
          <nav class="tabs" aria-label={c.data.title}>
            {(["problems", "scoreboard", "clarifications"] as Tab[]).map((x) => (
              <a key={x} href={`${base}?tab=${x}`} aria-current={tab === x ? "page" : undefined} class={tab === x ? "active" : ""}>
                {t(`contest.${x}`)}
              </a>
            ))}
          </nav>
          {tab === "problems" && <ContestProblems contest={c.data} />}
          {tab === "scoreboard" && <LiveScoreboard contest={c.data} />}
          {tab === "clarifications" && <Clarifications contest={c.data} />}
        </>
      )}
    </div>
  );
}

function ContestProblems({ contest }: { contest: Contest }) {
  const desc = useMemo(() => (contest.description ? renderMarkdown(contest.description) : ""), [contest.description]);
  const problems = contest.problems ?? [];
  return (
    <section>
      {desc && <div class="markdown" dangerouslySetInnerHTML={{ __html: desc }} />}
      {problems.length === 0 ? (
        <p class="muted">{t("common.none")}</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">{t("contest.col.label")}</th>
              <th scope="col">{t("contest.col.title")}</th>
              {contest.rule === "ioi" && <th scope="col" class="num">{t("contest.col.points")}</th>}
            </tr>
          </thead>
          <tbody>
            {problems.map((p) => (
              <tr key={p.label}>
                <td>{p.label}</td>
                <td>
                  <a href={`/contests/${encodeURIComponent(contest.slug)}/problems/${encodeURIComponent(p.slug)}`}>{p.title}</a>
                </td>
                {contest.rule === "ioi" && <td class="num">{p.points}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function LiveScoreboard({ contest }: { contest: Contest }) {
  const [board, setBoard] = useState<Scoreboard>(() => emptyBoard(contest.rule));
  const [error, setError] = useState<unknown>(null);
  const [loaded, setLoaded] = useState(false);
  const labels = (contest.problems ?? []).map((p) => p.label);

  useEffect(() => {
    let liveSeen = false;
    let stop = false;
    api.scoreboard(contest.slug).then(
      (doc) => {
        if (stop) return;
        setLoaded(true);
        if (!liveSeen) setBoard(fromDoc(doc, contest.rule));
      },
      (e) => {
        if (!stop) {
          setLoaded(true);
          setError(e);
        }
      },
    );
    const off =
      // Without the numeric id (not in GET /api/contests/{slug} yet) there is
      // no live channel: poll instead.
      typeof contest.id === "number" && contest.id > 0
        ? live().subscribe(
            { kind: "contest", id: contest.id },
            {
              snapshot: (state) => {
                liveSeen = true;
                setLoaded(true);
                setError(null);
                setBoard(fromDoc(state, contest.rule));
              },
              event: (ev) => {
                if (ev.kind !== "scoreboard") return;
                setBoard((b) => applyEvent(b, ev.body));
              },
            },
          )
        : pollScoreboard();
    function pollScoreboard() {
      const h = setInterval(() => {
        if (document.visibilityState !== "visible") return;
        api.scoreboard(contest.slug).then((doc) => !stop && setBoard(fromDoc(doc, contest.rule)), () => {});
      }, 5000);
      return () => clearInterval(h);
    }
    return () => {
      stop = true;
      off();
    };
  }, [contest.slug, contest.id]);

  return (
    <section aria-labelledby="sb-h">
      <h2 id="sb-h" class="sr-only">
        {t("contest.scoreboard")}
      </h2>
      <LiveStatus />
      {(board.frozen || contest.frozen) && <Notice kind="info">{t("contest.frozen")}</Notice>}
      <ErrorBox error={error} />
      {!loaded ? <Loading /> : <ScoreboardTable board={board} labels={labels} />}
    </section>
  );
}

function Clarifications({ contest }: { contest: Contest }) {
  const user = useStore(session).user;
  const list = useAsync(() => api.clarifications(contest.slug), [contest.slug]);
  const [problem, setProblem] = useState("");
  const [question, setQuestion] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState(false);
  const lang = getLang();

  // Answers are not on the live channel: poll while the page is open.
  useEffect(() => {
    const h = setInterval(() => {
      if (document.visibilityState === "visible") list.reload();
    }, 30_000);
    return () => clearInterval(h);
  }, [contest.slug]);

  const send = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSent(false);
    try {
      await api.askClarification(contest.slug, { problem: problem || undefined, question });
      setQuestion("");
      setSent(true);
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="clar-h">
      <h2 id="clar-h" class="sr-only">
        {t("contest.clarifications")}
      </h2>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.data && list.data.items.length === 0 && <p class="muted">{t("common.none")}</p>}
      <ul class="clarifications">
        {(list.data?.items ?? []).map((c) => (
          <li key={c.id} class="clar">
            <p class="clar-meta muted">
              {c.problem ? `${c.problem} · ` : ""}
              {dateTime(c.created_at, lang)}
            </p>
            {c.question && <p class="clar-q">{c.question}</p>}
            {c.answer ? (
              <div class="clar-a">
                <strong>{t("clar.answer")}:</strong> <span>{c.answer}</span>
              </div>
            ) : (
              <p class="muted">{t("clar.unanswered")}</p>
            )}
          </li>
        ))}
      </ul>
      {user && (
        <form class="form" onSubmit={send} aria-labelledby="ask-h">
          <h3 id="ask-h">{t("clar.ask")}</h3>
          <Field id="clar-problem" label={t("clar.problem")} error={fieldError(error, "problem")}>
            <select id="clar-problem" value={problem} onChange={(e) => setProblem(e.currentTarget.value)}>
              <option value="">{t("clar.general")}</option>
              {(contest.problems ?? []).map((p) => (
                <option key={p.slug} value={p.slug}>
                  {p.label}. {p.title}
                </option>
              ))}
            </select>
          </Field>
          <Field id="clar-question" label={t("clar.question")} error={fieldError(error, "question")}>
            <textarea
              id="clar-question"
              rows={4}
              required
              maxLength={2000}
              value={question}
              aria-invalid={fieldError(error, "question") ? "true" : undefined}
              aria-describedby={fieldError(error, "question") ? "clar-question-err" : undefined}
              onInput={(e) => setQuestion(e.currentTarget.value)}
            />
          </Field>
          <ErrorBox error={formError(error, ["problem", "question"])} />
          {sent && <Notice kind="ok">{t("clar.sent")}</Notice>}
          <button type="submit" class="btn btn-primary" disabled={busy || !question.trim()}>
            {t("clar.send")}
          </button>
        </form>
      )}
    </section>
  );
}
