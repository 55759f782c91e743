// The live verdict view: a submission's status, score, compile output and
// its cases, filled in case by case from the submission channel. The table
// has fixed column widths and (when the case count is known) all its rows
// from the start, so nothing moves while verdicts stream in.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, type SubmissionDetail } from "../api";
import { getLang, t, verdictLabel } from "../i18n";
import { outputsText } from "../outputs";
import type { LiveEvent } from "../live/protocol";
import { applyEvent, applySnapshot, caseRanges, done, fromDoc, resultsHidden, rows, type SubmissionView } from "../live/submission";
import { dateTime, eta, memory, millis } from "../format";
import { isStaff, live, queueNotice, session, useStore } from "../state";
import { JuryPanel } from "./staff";
import { ErrorBox, Loading, useTitle, VerdictBadge } from "../ui";
import { LiveStatus } from "../components/livestatus";
import { formatScore } from "../scoreboard";

export function QueueBanner({ active }: { active: boolean }) {
  const q = useStore(queueNotice);
  // Only a fresh notice (< 2 min) and only while the submission waits.
  if (!active || !q || Date.now() - q.at > 120_000) return null;
  if (!q.overloaded && q.position === 0 && q.queue_length < 5) return null;
  return (
    <div class="alert alert-warn queue-notice" role="status" aria-live="polite">
      {q.queue_length > 0 && <p>{t("queue.notice", { length: q.queue_length })}</p>}
      {q.position > 0 && <p>{t("queue.position", { position: q.position, eta: eta(q.eta_seconds) })}</p>}
      {q.overloaded && <p>{t("queue.overloaded")}</p>}
    </div>
  );
}

export function LiveSubmission({ id, caseCount, showSource = false }: { id: number; caseCount?: number | null; showSource?: boolean }) {
  const [meta, setMeta] = useState<SubmissionDetail | null>(null);
  const [view, setView] = useState<SubmissionView>(() => fromDoc({ id, status: "queued" }));
  const [liveSeen, setLiveSeenState] = useState(false);
  const liveSeenRef = useRef(false);
  const setLiveSeen = (v: boolean) => {
    liveSeenRef.current = v;
    setLiveSeenState(v);
  };
  const [error, setError] = useState<unknown>(null);
  const [loaded, setLoaded] = useState(false);

  // The REST document: metadata, and the state until the channel answers.
  useEffect(() => {
    let stop = false;
    setLoaded(false);
    setLiveSeen(false);
    setMeta(null);
    setView(fromDoc({ id, status: "queued" }));
    api.submission(id).then(
      (d) => {
        if (stop) return;
        setMeta(d);
        setLoaded(true);
        if (!liveSeenRef.current) setView(fromDoc(d));
      },
      (e) => {
        if (stop) return;
        setLoaded(true);
        // A brand-new submission may not be readable yet on every node; the
        // live channel still fills the view, so only report other errors.
        if (!(e instanceof ApiError && e.status === 404)) setError(e);
      },
    );
    return () => {
      stop = true;
    };
  }, [id]);

  const finished = done(view);

  // The live channel, until the verdict is final.
  useEffect(() => {
    if (finished && liveSeen) return;
    if (finished && meta) return; // judged before we opened it: nothing to follow
    const off = live().subscribe(
      { kind: "submission", id },
      {
        snapshot: (state) => {
          setLiveSeen(true);
          setView((v) => applySnapshot(v, state));
        },
        event: (ev: LiveEvent) => {
          setLiveSeen(true);
          setView((v) => applyEvent(v, ev));
        },
        error: (e) => setError(new ApiError(e.code === "forbidden" ? 403 : 500, e.code, e.message ?? e.code)),
      },
    );
    return off;
  }, [id, finished, !!meta]);

  // When the final verdict arrives live, take the stored document once more
  // (time/memory totals as the web node wrote them, the source).
  useEffect(() => {
    if (!finished || !liveSeen) return;
    const h = setTimeout(() => {
      api.submission(id).then(
        (d) => {
          setMeta(d);
          if (d.verdict && done(fromDoc(d))) setView(fromDoc(d));
        },
        () => {},
      );
    }, 1500);
    return () => clearTimeout(h);
  }, [finished, liveSeen, id]);

  const expected = caseCount ?? meta?.case_count ?? null;
  const tableRows = useMemo(() => rows(view, expected), [view, expected]);
  const lang = getLang();
  const hidden = resultsHidden(view);
  const waiting = (view.status === "queued" || view.status === "pending") && !hidden;
  // The message column only when the server gave some message.
  const messages = tableRows.some((c) => c.message !== "");
  // first_failure gives each case's verdict only: no time, memory or score
  // to show (a 0 would pass for one).
  const detail = view.feedback !== "first_failure";

  return (
    <section class="live-submission" aria-labelledby={`sub-${id}-h`}>
      <h2 id={`sub-${id}-h`}>
        <a href={`/submissions/${id}`}>{t("submission.title", { id })}</a>
      </h2>
      <ErrorBox error={error} />
      <dl class="summary">
        <div>
          <dt>{t("submission.status")}</dt>
          <dd>
            <VerdictBadge verdict={view.status} />
          </dd>
        </div>
        <div>
          <dt>{t("submission.score")}</dt>
          <dd class="num">{formatScore(view.score)}</dd>
        </div>
        <div>
          <dt>{t("submission.time")}</dt>
          <dd class="num">{millis(view.timeMs)}</dd>
        </div>
        <div>
          <dt>{t("submission.memory")}</dt>
          <dd class="num">{memory(view.memoryKb)}</dd>
        </div>
        {meta && (
          <div>
            <dt>{t("submission.language")}</dt>
            <dd>{meta.language}</dd>
          </div>
        )}
        {meta && (
          <div>
            <dt>{t("submission.problem")}</dt>
            <dd>
              <a href={meta.contest ? `/contests/${meta.contest}/problems/${meta.problem}` : `/problems/${meta.problem}`}>
                {meta.problem_title ?? meta.problem}
              </a>
            </dd>
          </div>
        )}
        {meta?.created_at && (
          <div>
            <dt>{t("submission.submitted")}</dt>
            <dd>{dateTime(meta.created_at, lang)}</dd>
          </div>
        )}
      </dl>
      <p class="sr-only" aria-live="polite">
        {verdictLabel(view.status)}
      </p>
      {hidden && (
        <p class="alert alert-info" role="status">
          {t("submission.hidden")}
        </p>
      )}
      {view.firstFailure != null && <p class="first-failure">{t("submission.firstFailure", { n: view.firstFailure })}</p>}
      <QueueBanner active={waiting} />
      {!finished && <LiveStatus />}
      {view.compileMessage && (
        <details open={view.status === "CE"} class="compile-output">
          <summary>{t("submission.compileOutput")}</summary>
          <pre>{view.compileMessage}</pre>
        </details>
      )}
      {view.subtasks.length > 0 && (
        <div class="table-wrap">
          <table class="subtasks" data-testid="subtasks">
            <caption class="sr-only">{t("submission.subtasks")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("submission.subtask")}</th>
                <th scope="col">{t("submissions.col.verdict")}</th>
                <th scope="col" class="num">{t("submission.score")}</th>
                <th scope="col" class="num">{t("submission.points")}</th>
                <th scope="col">{t("submission.cases")}</th>
              </tr>
            </thead>
            <tbody>
              {view.subtasks.map((st) => (
                <tr key={st.name} data-subtask={st.name} data-verdict={st.verdict || "waiting"}>
                  <th scope="row">{st.name}</th>
                  <td>
                    <VerdictBadge verdict={st.verdict ?? ""} short />
                  </td>
                  <td class="num">{st.verdict ? formatScore(st.score) : ""}</td>
                  <td class="num">{formatScore(st.points)}</td>
                  <td>{caseRanges(st.cases)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!loaded && tableRows.length === 0 && <Loading />}
      {tableRows.length > 0 && (
        <div class="table-wrap">
          <table class="cases">
            <caption class="sr-only">{t("submission.cases")}</caption>
            <colgroup>
              <col class="c-idx" />
              <col class="c-verdict" />
              <col class="c-num" />
              <col class="c-num" />
              <col class="c-score" />
              {messages && <col class="c-msg" />}
            </colgroup>
            <thead>
              <tr>
                <th scope="col">{t("submission.case")}</th>
                <th scope="col">{t("submissions.col.verdict")}</th>
                <th scope="col" class="num">{t("submission.time")}</th>
                <th scope="col" class="num">{t("submission.memory")}</th>
                <th scope="col" class="num">{t("submission.score")}</th>
                {messages && <th scope="col">{t("submission.message")}</th>}
              </tr>
            </thead>
            <tbody>
              {tableRows.map((c) => (
                <tr key={c.index} data-case={c.index} data-verdict={c.verdict || "waiting"}>
                  <th scope="row" class="num">{c.index}</th>
                  <td>
                    <VerdictBadge verdict={c.verdict} short />
                  </td>
                  <td class="num">{detail ? millis(c.timeMs) : ""}</td>
                  <td class="num">{detail ? memory(c.memoryKb) : ""}</td>
                  <td class="num">{!detail || c.score == null ? "" : formatScore(c.score)}</td>
                  {messages && (
                    <td class="msg" title={c.message}>
                      {c.message}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {showSource && meta?.source && (
        <details class="source">
          <summary>{t("submission.source")}</summary>
          <pre>
            <code>{meta.language === "outputs" ? outputsText(meta.source) : meta.source}</code>
          </pre>
        </details>
      )}
    </section>
  );
}

export function SubmissionPage({ id }: { id: string }) {
  const n = Number(id);
  const staff = isStaff(useStore(session).user);
  useTitle(t("submission.title", { id }));
  if (!Number.isInteger(n) || n < 1) return <p>{t("common.notFound")}</p>;
  return (
    <div class="page">
      <LiveSubmission id={n} showSource />
      {staff && <JuryPanel id={n} />}
    </div>
  );
}

export { Loading };
