import { describe, expect, it } from "vitest";
import type { Clarification } from "../src/api";
import { changes, CLAR_POLL, order, pollDelay, reloadOn, unansweredCount, type Viewer } from "../src/clarifications";

let nextId = 1;
const q = (over: Partial<Clarification> = {}): Clarification => ({
  id: nextId++,
  question: "Is n >= 1?",
  answer: null,
  public: false,
  created_at: "2026-03-01T10:00:00Z",
  answered_at: null,
  announcement: false,
  problem: null,
  ...over,
});
const ann = (over: Partial<Clarification> = {}): Clarification =>
  q({ question: null, answer: "A: n <= 1e9", public: true, announcement: true, answered_at: "2026-03-01T10:00:00Z", ...over });

const alice: Viewer = { staff: false, username: "alice" };
const staff: Viewer = { staff: true, username: "admin" };
const anon: Viewer = { staff: false, username: null };

describe("pollDelay", () => {
  const mineOpen = q({ user: "alice" });
  const mineAnswered = q({ user: "alice", answer: "Yes.", answered_at: "2026-03-01T10:05:00Z" });
  const othersPublic = q({ answer: "No.", public: true });
  it.each([
    ["a student waiting for their answer", [mineOpen, othersPublic], alice, CLAR_POLL.waiting],
    ["a student whose questions are answered", [mineAnswered, othersPublic], alice, CLAR_POLL.idle],
    ["a student with nothing asked", [ann()], alice, CLAR_POLL.idle],
    ["anonymous", [q()], anon, CLAR_POLL.idle],
    ["staff with questions to answer", [mineOpen], staff, CLAR_POLL.staffPending],
    ["staff, all answered", [mineAnswered, ann()], staff, CLAR_POLL.staff],
    ["staff, empty list", [], staff, CLAR_POLL.staff],
  ] as const)("%s", (_n, list, v, base) => {
    expect(pollDelay(list, v, 0.5)).toBe(base);
    expect(pollDelay(list, v, 0)).toBe(Math.round(base * 0.8));
    expect(pollDelay(list, v, 0.999999)).toBe(Math.round(base * 1.2));
  });
  it("an unanswered question of someone else does not speed a student up", () => {
    // Students do not see others' private questions, but a public
    // question (answered later) could be listed: it is not theirs.
    expect(pollDelay([q({ user: "bob" })], alice, 0.5)).toBe(CLAR_POLL.idle);
  });
});

describe("order", () => {
  const old = q({ created_at: "2026-03-01T10:00:00Z" });
  const mid = q({ created_at: "2026-03-01T11:00:00Z", answer: "Yes.", public: true });
  const late = q({ created_at: "2026-03-01T12:00:00Z" });
  const a = ann({ created_at: "2026-03-01T11:30:00Z" });
  it("newest first for participants", () => {
    expect(order([old, mid, late, a], alice).map((c) => c.id)).toEqual([late.id, a.id, mid.id, old.id]);
  });
  it("staff: open questions first, oldest first; then the rest newest first", () => {
    expect(order([mid, late, a, old], staff).map((c) => c.id)).toEqual([old.id, late.id, a.id, mid.id]);
  });
  it("does not change its input", () => {
    const list = [old, late];
    order(list, alice);
    expect(list).toEqual([old, late]);
  });
});

describe("changes", () => {
  it("the first read is not news", () => {
    expect(changes(null, [q(), ann()])).toEqual({ added: [], answered: [] });
  });
  it("reports new items and new or edited answers", () => {
    const a = q();
    const b = q({ answer: "Yes.", answered_at: "2026-03-01T10:01:00Z", public: false });
    const c = q();
    const before = [a, b, c];
    const aAnswered = { ...a, answer: "No.", answered_at: "2026-03-01T10:02:00Z", public: true };
    const bMadePublic = { ...b, public: true };
    const d = ann();
    const e = q();
    expect(changes(before, [aAnswered, bMadePublic, c, d, e])).toEqual({ added: [d.id, e.id], answered: [aAnswered.id, b.id, d.id] });
  });
  it("nothing changed", () => {
    const list = [q(), q({ answer: "x" })];
    expect(changes(list, list.map((c) => ({ ...c })))).toEqual({ added: [], answered: [] });
  });
});

describe("unansweredCount", () => {
  it("counts open questions, not announcements", () => {
    expect(unansweredCount([q(), q({ answer: "y" }), ann(), q()])).toBe(2);
    expect(unansweredCount([])).toBe(0);
  });
});

describe("pushed changes", () => {
  const change = (over: Record<string, unknown> = {}) => ({ contest_id: 3, id: 9, what: "answer", public: true, ...over });
  it.each([
    ["a public answer, participant", change(), alice, false, true],
    ["an announcement, participant", change({ what: "announcement" }), alice, false, true],
    ["a private answer on the contest channel, participant", change({ public: false }), alice, false, false],
    ["a question, participant", change({ what: "question", public: false }), alice, false, false],
    ["a question, staff", change({ what: "question", public: false }), staff, false, true],
    ["a private answer, staff", change({ public: false }), staff, false, true],
    ["a private answer on my own channel", change({ public: false }), alice, true, true],
    ["another contest", change({ contest_id: 4 }), staff, false, false],
    ["an unknown change", change({ what: "deleted" }), staff, false, false],
    ["a submission status on the user channel", { submission_id: 5, status: "AC" }, alice, true, false],
    ["nothing", null, staff, false, false],
  ] as const)("%s", (_n, body, v, own, want) => {
    expect(reloadOn(body, 3, v, own)).toBe(want);
  });
  it("polls slowly while pushes arrive, whoever is waiting", () => {
    expect(pollDelay([q({ user: "alice" })], alice, 0.5, true)).toBe(CLAR_POLL.live);
    expect(pollDelay([q()], staff, 0.5, true)).toBe(CLAR_POLL.live);
    expect(pollDelay([q({ user: "alice" })], alice, 0.5, false)).toBe(CLAR_POLL.waiting);
  });
});
