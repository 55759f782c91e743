// Clarifications: ordering, what changed between two reads, and how often
// to read again. Pure: the contest page (pages/contests.tsx) does the I/O.
//
// Changes are pushed: every question, answer and announcement is announced
// (ids only) on the contest's "clarifications" live channel, and a private
// answer on the asker's "user" channel; the page then re-reads
// GET /api/contests/{slug}/clarifications, which decides who sees what.
// While the live connection is open the page also re-reads every
// CLAR_POLL.live as a safety net; without it (not logged in, connection
// down) it polls, fast only while someone is waiting for something: a
// student with an unanswered question of their own, or staff with
// questions to answer.

import type { Clarification } from "./api";

export interface Viewer {
  staff: boolean;
  /** The viewer's username; null when not logged in. */
  username: string | null;
}

/** Poll intervals in ms (before jitter). */
export const CLAR_POLL = {
  /** The live connection is open: changes are pushed; a slow safety net. */
  live: 120_000,
  /** A student waits for the answer to their own question. */
  waiting: 5_000,
  /** Staff with unanswered questions. */
  staffPending: 5_000,
  /** Staff, nothing to answer: new questions still arrive. */
  staff: 15_000,
  /** Everyone else: new public answers and announcements. */
  idle: 30_000,
} as const;

export function isAnswered(c: Clarification): boolean {
  return c.answer != null && c.answer !== "";
}

/** isAnnouncement: staff text without a question. */
export function isAnnouncement(c: Clarification): boolean {
  return c.announcement === true || c.question == null;
}

/** mine reports whether the viewer asked c (the API names the asker only to
 * the asker and to staff). */
export function isMine(c: Clarification, v: Viewer): boolean {
  return !!v.username && c.user === v.username;
}

/**
 * pollDelay is how long to wait before reading the list again, with ±20 %
 * jitter (rand in [0,1)) so that a room of students does not poll in step.
 */
export function pollDelay(list: readonly Clarification[], v: Viewer, rand: number = Math.random(), live = false): number {
  const pendingQuestion = (c: Clarification) => !isAnnouncement(c) && !isAnswered(c);
  let base: number;
  if (live) base = CLAR_POLL.live;
  else if (v.staff) base = list.some(pendingQuestion) ? CLAR_POLL.staffPending : CLAR_POLL.staff;
  else if (list.some((c) => pendingQuestion(c) && isMine(c, v))) base = CLAR_POLL.waiting;
  else base = CLAR_POLL.idle;
  const r = Math.min(Math.max(rand, 0), 1);
  return Math.round(base * (0.8 + 0.4 * r));
}

/**
 * order sorts for display: newest first; for staff the unanswered
 * questions come first (oldest of them first: they waited longest).
 */
export function order(list: readonly Clarification[], v: Viewer): Clarification[] {
  const t = (c: Clarification) => Date.parse(c.created_at) || 0;
  const byNewest = (a: Clarification, b: Clarification) => t(b) - t(a) || b.id - a.id;
  if (!v.staff) return [...list].sort(byNewest);
  const open = list.filter((c) => !isAnnouncement(c) && !isAnswered(c)).sort((a, b) => t(a) - t(b) || a.id - b.id);
  const rest = list.filter((c) => isAnnouncement(c) || isAnswered(c)).sort(byNewest);
  return [...open, ...rest];
}

/** answerKey changes whenever an answer is given or edited. */
const answerKey = (c: Clarification) => (isAnswered(c) ? `${c.answered_at ?? ""}|${c.answer}|${c.public ? 1 : 0}` : "");

/**
 * changes compares two reads of the list: the ids that are new, and the
 * ids whose answer is new or changed. The first read (prev null) reports
 * nothing: what was there when the page opened is not news.
 */
export function changes(prev: readonly Clarification[] | null, next: readonly Clarification[]): { added: number[]; answered: number[] } {
  if (prev === null) return { added: [], answered: [] };
  const old = new Map(prev.map((c) => [c.id, c]));
  const added: number[] = [];
  const answered: number[] = [];
  for (const c of next) {
    const o = old.get(c.id);
    if (!o) added.push(c.id);
    if (isAnswered(c) && (!o || answerKey(o) !== answerKey(c))) answered.push(c.id);
  }
  return { added, answered };
}

/** unansweredCount counts the questions waiting for staff. */
export function unansweredCount(list: readonly Clarification[]): number {
  return list.filter((c) => !isAnnouncement(c) && !isAnswered(c)).length;
}

/** A change announced on a live channel (internal/protocol.ClarificationChange). */
export interface ClarificationChange {
  contest_id: number;
  id: number;
  what: "question" | "answer" | "announcement";
  public: boolean;
}

/** Spread of the re-read after a pushed change, so that a room of 3,000
 *  does not ask in the same millisecond. */
export const CLAR_PUSH_SPREAD_MS = 1_500;

/**
 * reloadOn says whether a pushed change concerns what the viewer sees:
 * staff re-read on every change of the contest; participants on public
 * ones (announcements, public answers) and on anything sent to their own
 * user channel (a private answer to their question).
 */
export function reloadOn(body: unknown, contestId: number, v: Viewer, onUserChannel = false): boolean {
  const c = body as Partial<ClarificationChange> | null;
  if (!c || typeof c !== "object" || c.contest_id !== contestId || typeof c.id !== "number") return false;
  if (c.what !== "question" && c.what !== "answer" && c.what !== "announcement") return false;
  return v.staff || onUserChannel || c.public === true;
}
