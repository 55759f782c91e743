// The status page: every submission the viewer may see, newest first,
// filtered by user, problem, contest, verdict and language, paged by
// cursor. It stays current over the live channel the server names with the
// list (a status channel for staff, and for contests that list everyone's
// verdicts; else the viewer's own user channel): a new submission is read
// through the REST API (which decides what the viewer may see of it) and
// put on top; a status change updates its row. Staff rejudge the whole
// selection from here.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, type StatusFilter, type SubmissionSummary } from "../api";
import { getLang, t } from "../i18n";
import { FINAL_VERDICTS, type Channel, type SubmissionState } from "../live/protocol";
import { dateTime, memory, millis } from "../format";
import { isStaff, live, session, useStore } from "../state";
import { formatScore } from "../scoreboard";
import { RejudgeProgress } from "../components/rejudgeprogress";
import { ErrorBox, Loading, Notice, useFocusHeading, useTitle, VerdictBadge } from "../ui";

const FIELDS = ["user", "problem", "contest", "verdict", "language"] as const;
type Field = (typeof FIELDS)[number];

/** filterOf reads a filter from the page's query. */
export function filterOf(q: URLSearchParams): StatusFilter {
  const f: StatusFilter = {};
  for (const k of FIELDS) {
    const v = q.get(k)?.trim();
    if (v) f[k] = v;
  }
  return f;
}

/** matches reports whether a row belongs on a page listing f. */
export function matches(s: SubmissionSummary, f: StatusFilter): boolean {
  return (
    (!f.user || s.user === f.user) &&
    (!f.problem || s.problem === f.problem) &&
    (!f.contest || s.contest === f.contest) &&
    (!f.verdict || s.verdict === f.verdict) &&
    (!f.language || s.language === f.language)
  );
}

/** applyStatus puts one live status into the rows: the row's verdict and
 * score, when the row is listed; reports whether it was. */
export function applyStatus(rows: SubmissionSummary[], st: SubmissionState): { rows: SubmissionSummary[]; known: boolean } {
  let known = false;
  const out = rows.map((s) => {
    if (s.id !== st.submission_id) return s;
    known = true;
    return { ...s, verdict: st.status ?? s.verdict, score: st.score ?? s.score };
  });
  return { rows: known ? out : rows, known };
}

export function StatusPage({ query }: { query: URLSearchParams }) {
  useTitle(t("status.title"));
  const h = useFocusHeading();
  const user = useStore(session).user;
  const staff = isStaff(user);
  const [form, setForm] = useState<StatusFilter>(() => filterOf(query));
  const [filter, setFilter] = useState<StatusFilter>(() => filterOf(query));
  const [items, setItems] = useState<SubmissionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [channel, setChannel] = useState<Channel | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [rejudged, setRejudged] = useState<{ n: number; job?: string } | null>(null);
  const itemsRef = useRef<SubmissionSummary[]>([]);
  itemsRef.current = items;

  const fetchPage = async (c: string | null, replace: boolean) => {
    setLoading(true);
    setError(null);
    try {
      const page = await api.status({ ...filter, cursor: c });
      setItems((old) => (replace ? page.items : [...old, ...page.items]));
      setCursor(page.next_cursor ?? null);
      if (replace) setChannel(page.live);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };

  useEffect(() => {
    fetchPage(null, true);
  }, [JSON.stringify(filter), user?.id]);

  // Live: every status change on the channel the server named.
  useEffect(() => {
    if (!channel) return;
    let snapshots = 0;
    const fetching = new Set<number>();
    const onStatus = (st: SubmissionState) => {
      if (!st || typeof st.submission_id !== "number") return;
      const r = applyStatus(itemsRef.current, st);
      if (r.known) {
        setItems(r.rows);
        return;
      }
      // A submission not listed yet: newer than the top row, read it (the
      // server decides what this viewer may see) and put it on top.
      const top = itemsRef.current[0]?.id ?? 0;
      if (st.submission_id <= top || fetching.has(st.submission_id)) return;
      fetching.add(st.submission_id);
      api.submission(st.submission_id).then(
        (d) => {
          if (!matches(d, filter) || itemsRef.current.some((s) => s.id === d.id)) return;
          setItems((old) => [d, ...old].sort((a, b) => b.id - a.id));
        },
        () => {
          /* not visible to this viewer (or gone): leave it out */
        },
      );
    };
    const off = live().subscribe(channel, {
      snapshot: (state) => {
        snapshots++;
        const list = (state as { items?: SubmissionState[] })?.items;
        if (Array.isArray(list)) list.forEach(onStatus);
        // A snapshot after a reconnect: events may have been missed.
        else if (snapshots > 1) fetchPage(null, true);
      },
      event: (ev) => onStatus(ev.body as SubmissionState),
    });
    // The site's status channel brings a student only the submissions
    // everyone may list; their own others come on their user channel.
    if (staff || !user || channel.kind !== "status" || channel.id !== 0) return off;
    const offOwn = live().subscribe(
      { kind: "user", id: user.id },
      {
        snapshot: (state) => {
          const list = (state as { items?: SubmissionState[] })?.items;
          if (Array.isArray(list)) list.forEach(onStatus);
        },
        event: (ev) => {
          if (ev.kind === "status") onStatus(ev.body as SubmissionState);
        },
      },
    );
    return () => {
      off();
      offOwn();
    };
  }, [channel?.kind, channel?.id, JSON.stringify(filter), user?.id]);

  const apply = (e: Event) => {
    e.preventDefault();
    setRejudged(null);
    const f: StatusFilter = {};
    for (const k of FIELDS) if (form[k]?.trim()) f[k] = form[k]!.trim();
    setFilter(f);
    const q = new URLSearchParams(f as Record<string, string>).toString();
    history.replaceState(null, "", `/status${q ? `?${q}` : ""}`);
  };

  const rejudgeAll = async () => {
    if (!Object.keys(filter).length) return;
    if (!confirm(t("status.rejudgeConfirm"))) return;
    try {
      const r = await api.rejudge(filter);
      setRejudged({ n: r.queued ?? 0, job: "job" in r ? r.job : undefined });
    } catch (e) {
      setError(e);
    }
  };

  const input = (k: Field, size = 12) => (
    <>
      <label for={`st-${k}`}>{t(`status.filter.${k}`)}</label>
      <input id={`st-${k}`} value={form[k] ?? ""} size={size} onInput={(e) => setForm({ ...form, [k]: e.currentTarget.value })} />
    </>
  );
  const lang = getLang();
  return (
    <div class="page status-page">
      <h1 ref={h} tabIndex={-1}>
        {t("status.title")}
      </h1>
      <form class="toolbar" onSubmit={apply}>
        {input("user")}
        {input("problem")}
        {input("contest")}
        <label for="st-verdict">{t("status.filter.verdict")}</label>
        <select id="st-verdict" value={form.verdict ?? ""} onChange={(e) => setForm({ ...form, verdict: e.currentTarget.value })}>
          <option value="">{t("submissions.any")}</option>
          {FINAL_VERDICTS.filter((v) => v !== "SK").map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
        {input("language", 8)}
        <button type="submit" class="btn">
          {t("submissions.apply")}
        </button>
        {staff && (
          <button type="button" class="btn btn-danger" id="st-rejudge" disabled={!Object.keys(filter).length} onClick={rejudgeAll}>
            {t("status.rejudge")}
          </button>
        )}
      </form>
      {rejudged !== null && <Notice kind="ok">{t("admin.rejudged", { n: rejudged.n })}</Notice>}
      {rejudged?.job && <RejudgeProgress key={rejudged.job} job={rejudged.job} total={rejudged.n} />}
      <ErrorBox error={error} onRetry={() => fetchPage(null, true)} />
      {!loading && items.length === 0 && !error && <p class="muted">{t("common.none")}</p>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="list submissions status">
            <thead>
              <tr>
                <th scope="col">{t("submissions.col.id")}</th>
                <th scope="col">{t("status.col.user")}</th>
                <th scope="col">{t("submissions.col.problem")}</th>
                <th scope="col" class="hide-narrow">{t("status.col.contest")}</th>
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
                <tr key={s.id} data-id={s.id}>
                  <td>
                    <a href={`/submissions/${s.id}`}>{s.id}</a>
                  </td>
                  <td>{s.user}</td>
                  <td>
                    <a href={`/problems/${encodeURIComponent(s.problem)}`}>{s.problem_title ?? s.problem}</a>
                  </td>
                  <td class="hide-narrow">{s.contest ?? ""}</td>
                  <td class="verdict">
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
