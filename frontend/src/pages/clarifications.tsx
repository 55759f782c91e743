// The contest's clarifications tab: questions and answers, announcements;
// participants ask, staff (admins, setters) answer each question publicly
// or privately and post announcements. Changes are pushed over the live
// connection and the list re-read; without it the list is polled (see
// src/clarifications.ts). A new answer is announced to screen readers and
// highlighted.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, newIdempotencyKey, type Clarification, type Contest } from "../api";
import { RetryNotice, useAutoRetry } from "../components/retrying";
import { retryableStatus } from "../retry";
import {
  CLAR_PUSH_SPREAD_MS,
  changes,
  isAnnouncement,
  isAnswered,
  isMine,
  order,
  pollDelay,
  reloadOn,
  unansweredCount,
  type Viewer,
} from "../clarifications";
import { getLang, t } from "../i18n";
import { dateTime } from "../format";
import { isStaff, live, liveState, session, useStore } from "../state";
import { ErrorBox, Field, fieldError, formError, Notice } from "../ui";

/** useClarifications keeps the list fresh: it reads it now, again soon
 *  after a change is pushed on the live connection, after pollDelay (slow
 *  while the connection is open), at once when the tab becomes visible
 *  again, and when refresh() is called (after the viewer's own writes). */
function useClarifications(slug: string, contestId: number, userId: number | null, viewer: Viewer) {
  const [list, setList] = useState<Clarification[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fresh, setFresh] = useState<{ added: number[]; answered: number[] }>({ added: [], answered: [] });
  const prev = useRef<Clarification[] | null>(null);
  const refreshRef = useRef<() => void>(() => {});
  const viewerRef = useRef(viewer);
  viewerRef.current = viewer;
  // Pushes arrive only while the live connection is open and subscribed.
  const pushed = useRef(false);
  const [pushing, setPushing] = useState(false);
  const setPushed = (v: boolean) => {
    pushed.current = v;
    setPushing(v);
  };

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let gen = 0;
    prev.current = null;
    const schedule = (ms: number) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(load, ms);
    };
    async function load() {
      if (timer) clearTimeout(timer);
      timer = null;
      if (stopped) return;
      if (typeof document !== "undefined" && document.visibilityState === "hidden") return; // resumed by visibilitychange
      const mine = ++gen;
      try {
        const page = await api.clarifications(slug);
        if (stopped || mine !== gen) return;
        const ch = changes(prev.current, page.items);
        prev.current = page.items;
        setList(page.items);
        setError(null);
        if (ch.added.length || ch.answered.length) setFresh(ch);
        schedule(pollDelay(page.items, viewerRef.current, Math.random(), pushed.current));
      } catch (e) {
        if (stopped || mine !== gen) return;
        setError(e);
        schedule(pollDelay(prev.current ?? [], viewerRef.current) * 2);
      }
    }
    const onVisible = () => {
      if (document.visibilityState === "visible") load();
    };
    refreshRef.current = () => void load();
    document.addEventListener("visibilitychange", onVisible);
    load();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
      refreshRef.current = () => {};
    };
  }, [slug, viewer.staff, viewer.username]);

  // Live: the contest's clarifications channel, and the viewer's own
  // channel for private answers.
  useEffect(() => {
    if (userId == null) return;
    let soon: ReturnType<typeof setTimeout> | null = null;
    const reload = () => {
      if (soon) return;
      soon = setTimeout(() => {
        soon = null;
        refreshRef.current();
      }, Math.random() * CLAR_PUSH_SPREAD_MS);
    };
    let first = true;
    const offState = liveState.subscribe((st) => {
      if (st.kind !== "open") setPushed(false);
    });
    const offClar = live().subscribe(
      { kind: "clarifications", id: contestId },
      {
        snapshot: () => {
          setPushed(true);
          if (!first) reload(); // a resubscribe: changes may have been missed
          first = false;
        },
        event: (ev) => {
          if (reloadOn(ev.body, contestId, viewerRef.current)) reload();
        },
        error: () => setPushed(false),
      },
    );
    const offUser = live().subscribe(
      { kind: "user", id: userId },
      {
        snapshot: () => {},
        event: (ev) => {
          if (ev.kind === "clarification" && reloadOn(ev.body, contestId, viewerRef.current, true)) reload();
        },
      },
    );
    return () => {
      offState();
      offClar();
      offUser();
      if (soon) clearTimeout(soon);
      pushed.current = false;
    };
  }, [contestId, userId]);

  const replace = (c: Clarification) => {
    setList((l) => (l ? l.map((x) => (x.id === c.id ? { ...x, ...c } : x)) : l));
    if (prev.current) prev.current = prev.current.map((x) => (x.id === c.id ? { ...x, ...c } : x));
  };
  return { list, error, fresh, pushing, refresh: () => refreshRef.current(), replace };
}

export function Clarifications({ contest }: { contest: Contest }) {
  const user = useStore(session).user;
  const staff = isStaff(user);
  const viewer: Viewer = useMemo(() => ({ staff, username: user?.username ?? null }), [staff, user?.username]);
  const { list, error, fresh, pushing, refresh, replace } = useClarifications(contest.slug, contest.id ?? 0, contest.id && user ? user.id : null, viewer);
  const items = useMemo(() => (list ? order(list, viewer) : []), [list, viewer]);
  const lang = getLang();

  // What changed since the last read, in words, for screen readers.
  let news = "";
  if (staff && fresh.added.length) {
    const q = fresh.added.filter((id) => items.some((c) => c.id === id && !isAnnouncement(c))).length;
    if (q) news = t("clar.newQuestions", { n: q });
  } else if (!staff && fresh.answered.length) news = t("clar.newAnswers", { n: fresh.answered.length });
  const isFresh = (id: number) => fresh.added.includes(id) || fresh.answered.includes(id);
  const waiting = list ? unansweredCount(list) : 0;

  return (
    <section aria-labelledby="clar-h" data-live={pushing ? "1" : "0"}>
      <h2 id="clar-h" class="sr-only">
        {t("contest.clarifications")}
      </h2>
      <p class="sr-only" aria-live="polite" data-testid="clar-news">
        {news}
      </p>
      {staff && list && <p class="muted clar-waiting">{waiting ? t("clar.waiting", { n: waiting }) : t("clar.noneWaiting")}</p>}
      <ErrorBox error={error} onRetry={refresh} />
      {list && list.length === 0 && <p class="muted">{t("common.none")}</p>}
      <ul class="clarifications">
        {items.map((c) => (
          <li
            key={c.id}
            class={`clar${isFresh(c.id) ? " clar-new" : ""}${!isAnnouncement(c) && !isAnswered(c) ? " clar-open" : ""}`}
            data-clar-id={c.id}
            data-answered={isAnswered(c) ? "1" : "0"}
            data-public={c.public ? "1" : "0"}
          >
            <p class="clar-meta muted">
              {isAnnouncement(c) && <span class="tag tag-info">{t("clar.announcement")}</span>}
              {!isAnnouncement(c) && (staff || isMine(c, viewer)) && (
                <span class={`tag ${c.public ? "tag-info" : ""}`}>{c.public ? t("clar.public") : t("clar.private")}</span>
              )}
              {c.problem ? <span>{c.problem}</span> : null}
              {c.user && (staff || isMine(c, viewer)) ? <span>{c.user}</span> : null}
              <span>{dateTime(c.created_at, lang)}</span>
            </p>
            {c.question && <p class="clar-q">{c.question}</p>}
            {isAnswered(c) ? (
              <div class="clar-a">
                <strong>{isAnnouncement(c) ? t("clar.announcement") : t("clar.answer")}:</strong> <span class="clar-answer-text">{c.answer}</span>
              </div>
            ) : (
              <p class="muted">{t("clar.unanswered")}</p>
            )}
            {staff && !isAnnouncement(c) && <AnswerForm contest={contest} c={c} onAnswered={(x) => (replace(x), refresh())} />}
          </li>
        ))}
      </ul>
      {user && !staff && <AskForm contest={contest} onSent={refresh} />}
      {staff && <AnnounceForm contest={contest} onSent={refresh} />}
    </section>
  );
}

function AnswerForm({ contest, c, onAnswered }: { contest: Contest; c: Clarification; onAnswered: (c: Clarification) => void }) {
  const answered = isAnswered(c);
  const [open, setOpen] = useState(!answered);
  const [text, setText] = useState(c.answer ?? "");
  // No default for a new answer: who sees it is a decision, not an accident.
  const [vis, setVis] = useState<"" | "public" | "private">(answered ? (c.public ? "public" : "private") : "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = `ans-${c.id}`;
  // Keyboard users keep their place: opening the editor focuses the text,
  // closing it focuses the Edit button again.
  const textRef = useRef<HTMLTextAreaElement>(null);
  const editRef = useRef<HTMLButtonElement>(null);
  const moveFocus = useRef(false);
  useEffect(() => {
    if (!moveFocus.current) return;
    moveFocus.current = false;
    (open ? textRef.current : editRef.current)?.focus();
  }, [open]);
  const toggle = (v: boolean) => {
    moveFocus.current = true;
    setOpen(v);
  };

  if (!open) {
    return (
      <button ref={editRef} type="button" class="btn btn-small" aria-expanded="false" onClick={() => toggle(true)}>
        {t("clar.editAnswer")}
      </button>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!vis) return;
    setBusy(true);
    setError(null);
    try {
      const r = await api.answerClarification(contest.slug, c.id, { answer: text, public: vis === "public" });
      onAnswered(r && typeof r === "object" && "id" in r ? r : { ...c, answer: text, public: vis === "public" });
      toggle(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form clar-answer-form" onSubmit={submit} aria-label={t("clar.answerTo", { id: c.id })}>
      <Field id={id} label={t("clar.yourAnswer")} error={fieldError(error, "answer")}>
        <textarea
          ref={textRef}
          id={id}
          rows={3}
          required
          maxLength={4000}
          value={text}
          aria-invalid={fieldError(error, "answer") ? "true" : undefined}
          aria-describedby={fieldError(error, "answer") ? `${id}-err` : undefined}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </Field>
      <fieldset class="radio-row">
        <legend>{t("clar.whoSees")}</legend>
        <label class="radio">
          <input type="radio" name={`${id}-vis`} value="public" required checked={vis === "public"} onChange={() => setVis("public")} /> {t("clar.toEveryone")}
        </label>
        <label class="radio">
          <input type="radio" name={`${id}-vis`} value="private" required checked={vis === "private"} onChange={() => setVis("private")} /> {t("clar.toAsker")}
        </label>
      </fieldset>
      <ErrorBox error={formError(error, ["answer"])} />
      <div class="toolbar">
        <button type="submit" class="btn btn-primary" disabled={busy || !text.trim() || !vis}>
          {t("clar.sendAnswer")}
        </button>
        {answered && (
          <button type="button" class="btn btn-ghost" onClick={() => toggle(false)}>
            {t("common.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}

function ProblemSelect({ id, contest, value, onChange, error }: { id: string; contest: Contest; value: string; onChange: (v: string) => void; error?: string }) {
  return (
    <Field id={id} label={t("clar.problem")} error={error}>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{t("clar.general")}</option>
        {(contest.problems ?? []).map((p) => (
          <option key={p.slug} value={p.slug}>
            {p.label}. {p.title}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** PostForm is the participant's question form and the staff's
 *  announcement form: a problem, a text, a send button. */
function PostForm(props: {
  contest: Contest;
  onSent: () => void;
  /** The API field of the text (question or announcement). */
  field: "question" | "announcement";
  ids: { heading: string; problem: string; text: string };
  labels: { heading: string; text: string; sent: string; send: string };
  rows: number;
  maxLength: number;
  /** idemKey: the same for every try of one text (the server posts it once). */
  post: (problem: string | undefined, text: string, idemKey: string) => Promise<unknown>;
}) {
  const { contest, onSent, field, ids, labels } = props;
  const [problem, setProblem] = useState("");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [sent, setSent] = useState(false);
  const retry = useAutoRetry();
  // One key per text: "busy, try later", no answer and 502/504 are sent
  // again after Retry-After with it, and so is a click after giving up,
  // so a question whose answer was lost is never posted twice.
  const pendingKey = useRef<{ key: string; body: string } | null>(null);
  const send = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const body = JSON.stringify([problem, text]);
    if (!pendingKey.current || pendingKey.current.body !== body) pendingKey.current = { key: newIdempotencyKey(), body };
    const key = pendingKey.current.key;
    setBusy(true);
    setError(null);
    setSent(false);
    const r = await retry.run(() => props.post(problem || undefined, text, key));
    setBusy(false);
    if (r.ok) {
      if (pendingKey.current?.key === key) pendingKey.current = null;
      setText("");
      setSent(true);
      onSent();
      return;
    }
    if (r.cancelled) return;
    // Any answer but a "try later" was no post: the next click gets a new key.
    if (!(r.error instanceof ApiError && retryableStatus(r.error.status))) pendingKey.current = null;
    setError(r.error);
  };
  const textErr = fieldError(error, field);
  return (
    <form class="form" onSubmit={send} aria-labelledby={ids.heading}>
      <h3 id={ids.heading}>{labels.heading}</h3>
      <ProblemSelect id={ids.problem} contest={contest} value={problem} onChange={setProblem} error={fieldError(error, "problem")} />
      <Field id={ids.text} label={labels.text} error={textErr}>
        <textarea
          id={ids.text}
          rows={props.rows}
          required
          maxLength={props.maxLength}
          value={text}
          aria-invalid={textErr ? "true" : undefined}
          aria-describedby={textErr ? `${ids.text}-err` : undefined}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </Field>
      <ErrorBox error={formError(error, ["problem", field])} />
      <RetryNotice retry={retry} id={`${ids.text}-retry`} texts={{ waiting: "clar.busy.waiting", trying: "clar.busy.trying" }} />
      {sent && <Notice kind="ok">{labels.sent}</Notice>}
      <button type="submit" class="btn btn-primary" disabled={busy || !text.trim()}>
        {labels.send}
      </button>
    </form>
  );
}

function AskForm({ contest, onSent }: { contest: Contest; onSent: () => void }) {
  return (
    <PostForm
      contest={contest}
      onSent={onSent}
      field="question"
      ids={{ heading: "ask-h", problem: "clar-problem", text: "clar-question" }}
      labels={{ heading: t("clar.ask"), text: t("clar.question"), sent: t("clar.sent"), send: t("clar.send") }}
      rows={4}
      maxLength={2000}
      post={(problem, question, key) => api.askClarification(contest.slug, { problem, question }, key)}
    />
  );
}

function AnnounceForm({ contest, onSent }: { contest: Contest; onSent: () => void }) {
  return (
    <PostForm
      contest={contest}
      onSent={onSent}
      field="announcement"
      ids={{ heading: "announce-h", problem: "ann-problem", text: "ann-text" }}
      labels={{ heading: t("clar.announce"), text: t("clar.announcementText"), sent: t("clar.announced"), send: t("clar.publish") }}
      rows={3}
      maxLength={4000}
      post={(problem, announcement, key) => api.announce(contest.slug, { problem, announcement }, key)}
    />
  );
}
