// The contest list and a contest: countdown, problems, the live scoreboard
// and clarifications.

import { useEffect, useState } from "preact/hooks";
import { api, scoreboardCsvURL, type Contest } from "../api";
import { registrationState } from "../registration";
import { t } from "../i18n";
import { contestTime, countdown, length } from "../format";
import { useMarkdown } from "../markdown";
import { applyEvent, emptyBoard, fromDoc, type Scoreboard } from "../scoreboard";
import { isStaff, live, session, useStore } from "../state";
import { ScoreboardTable } from "../components/scoreboard";
import { LiveStatus } from "../components/livestatus";
import { ErrorBox, Loading, Notice, useAsync, useFocusHeading, useNow, useTitle } from "../ui";
import { Clarifications } from "./clarifications";

export function ContestsPage() {
  useTitle(t("contests.title"));
  const h = useFocusHeading();
  const list = useAsync(() => api.contests(), []);
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
                  <td class="nowrap">
                    <ZonedTime iso={c.start_at} zone={c.time_zone} />
                  </td>
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

/** ZonedTime shows a contest time in the contest's zone and, when it
 * differs, the viewer's own (format.contestTime). */
export function ZonedTime({ iso, zone }: { iso: string; zone?: string }) {
  const z = contestTime(iso, zone);
  return (
    <span class="zoned-time">
      <time dateTime={iso}>{z.contest}</time>
      {z.viewer && (
        <>
          {" "}
          <small class="muted">{t("time.yours", { time: z.viewer })}</small>
        </>
      )}
    </span>
  );
}

/** ContestTimes: the contest's start and end with their zones. */
export function ContestTimes({ contest }: { contest: Contest }) {
  return (
    <dl class="contest-times">
      <dt>{t("contest.startsAt")}</dt>
      <dd>
        <ZonedTime iso={contest.start_at} zone={contest.time_zone} />
      </dd>
      <dt>{t("contest.endsAt")}</dt>
      <dd>
        <ZonedTime iso={contest.end_at} zone={contest.time_zone} />
      </dd>
    </dl>
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
          <ContestTimes contest={c.data} />
          <Registration contest={c.data} onRegistered={() => c.setData((d) => (d ? { ...d, registered: true } : d))} />
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
  const desc = useMarkdown(contest.description ?? "");
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
  // Staff (admins and setters) may export the full, unfrozen standings.
  const staff = isStaff(useStore(session).user);
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
      {staff && (
        <p class="toolbar sb-tools">
          {/* A plain download link: the browser sends the session cookie
              and saves the file; the router leaves [download] links alone. */}
          <a class="btn btn-small" href={scoreboardCsvURL(contest.slug)} download={`${contest.slug}-scoreboard.csv`} aria-describedby="sb-csv-hint" data-testid="scoreboard-csv">
            {t("board.csv")}
          </a>
          <span id="sb-csv-hint" class="muted hint">
            {t("board.csvHint")}
          </span>
          <a class="btn btn-small" href={`/contests/${encodeURIComponent(contest.slug)}/balloons`} data-testid="balloons-link">
            {t("balloons.title")}
          </a>
          <a class="btn btn-small" href={`/contests/${encodeURIComponent(contest.slug)}/teams`} data-testid="teams-link">
            {t("teams.title")}
          </a>
        </p>
      )}
      {board.frozen && <Notice kind="info">{t("contest.frozen")}</Notice>}
      <ErrorBox error={error} />
      {!loaded ? <Loading /> : <ScoreboardTable board={board} labels={labels} />}
      {(staff || (!board.frozen && Date.parse(contest.end_at) <= Date.now())) && (
        <p class="toolbar">
          <a class="btn btn-small" href={`/contests/${encodeURIComponent(contest.slug)}/awards`} data-testid="awards-link">
            {t("awards.link")}
          </a>
        </p>
      )}
    </section>
  );
}


/** Registration: the Register button of an open contest, or where the
 *  viewer stands. */
export function Registration({ contest, onRegistered }: { contest: Contest; onRegistered: () => void }) {
  const user = useStore(session).user;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [justNow, setJustNow] = useState(false);
  const state = registrationState(contest, user);
  const register = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.registerContest(contest.slug);
      setJustNow(true);
      onRegistered();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  switch (state) {
    case "can-register":
      return (
        <div class="registration" data-state={state}>
          <button type="button" class="btn btn-primary" disabled={busy} onClick={register}>
            {t("contest.register")}
          </button>
          <span class="muted">{t("contest.registerHint")}</span>
          <ErrorBox error={error} />
        </div>
      );
    case "registered":
      return (
        <div class="registration" data-state={state} role="status">
          <span class="tag tag-ok">{justNow ? t("contest.registeredNow") : t("contest.registered")}</span>
        </div>
      );
    case "by-list":
      return (
        <div class="registration" data-state={state}>
          <Notice kind="info">{t("contest.byList")}</Notice>
        </div>
      );
    case "anonymous":
      return (
        <div class="registration" data-state={state}>
          <a href={`/login?next=${encodeURIComponent(`/contests/${contest.slug}`)}`}>{t("nav.login")}</a> <span class="muted">{t("contest.loginToTakePart")}</span>
        </div>
      );
    default:
      return null;
  }
}
