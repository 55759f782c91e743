import { describe, expect, it } from "vitest";
import { decode } from "../src/live/protocol";
import { applyEvent, applySnapshot, caseRanges, done, fromDoc, resultsHidden, rows } from "../src/live/submission";
import { golden } from "./golden";

describe("live submission view", () => {
  const snap = decode(golden("snapshot"));
  const ev = decode(golden("event"));
  if (snap.type !== "snapshot" || ev.type !== "event") throw new Error("bad golden files");

  it("fills in case by case from the golden snapshot and event", () => {
    let v = fromDoc({ id: 1042, status: "queued" });
    v = applySnapshot(v, snap.data.state);
    expect(v.status).toBe("judging");
    expect(v.cases.map((c) => [c.index, c.verdict])).toEqual([[1, "AC"]]);
    v = applyEvent(v, ev.data);
    expect(v.cases.map((c) => [c.index, c.verdict, c.timeMs, c.memoryKb])).toEqual([
      [1, "AC", 12, 3120],
      [2, "WA", 8, 3088],
    ]);
    expect(v.cases[1]!.message).toBe("line 1: expected 3, found 4");
    expect(v.timeMs).toBe(12);
    expect(v.memoryKb).toBe(3120);
    expect(done(v)).toBe(false);
    // Applying the same event twice changes nothing.
    expect(applyEvent(v, ev.data)).toEqual(v);
  });

  it("takes the final status", () => {
    let v = applySnapshot(fromDoc({ id: 1 }), snap.data.state);
    v = applyEvent(v, { channel: { kind: "submission", id: 1 }, seq: 5, kind: "status", body: { submission_id: 1, status: "WA", score: 10 } });
    expect(done(v)).toBe(true);
    expect(v.cases).toHaveLength(1);
  });

  it("reserves rows for cases not judged yet", () => {
    const v = applySnapshot(fromDoc({ id: 1 }), snap.data.state);
    expect(rows(v, 4).map((c) => [c.index, c.verdict])).toEqual([
      [1, "AC"],
      [2, ""],
      [3, ""],
      [4, ""],
    ]);
    const final = { ...v, status: "WA" };
    expect(rows(final, 3).map((c) => c.verdict)).toEqual(["AC", "SK", "SK"]);
  });

  it("reads the REST document", () => {
    const v = fromDoc({
      id: 9,
      status: "done",
      verdict: "CE",
      compile_message: "a.cpp:1: error",
      cases: [],
      time_ms: null,
    });
    expect(v.status).toBe("CE");
    expect(v.compileMessage).toBe("a.cpp:1: error");
    expect(rows(v, 5)).toEqual([]);
    const w = fromDoc({ id: 9, status: "judging", verdict: null, cases: [{ index: 2, verdict: "AC", time_ms: 5, memory_kb: 100, score: 50 }, { index: 1, verdict: "AC", time_ms: 4, memory_kb: 90, score: 50 }] });
    expect(w.status).toBe("judging");
    expect(w.cases.map((c) => c.index)).toEqual([1, 2]);
  });

  // The view shows what the server gives: the feedback policy decided what
  // that is (docs/api.md, "Feedback policy").
  it("shows no checker message where the server gives none", () => {
    const v = fromDoc({
      id: 5,
      status: "WA",
      verdict: "WA",
      feedback: "first_failure",
      first_failure: 2,
      cases: [
        { index: 1, verdict: "AC" },
        { index: 2, verdict: "WA" },
      ],
    });
    expect(v.feedback).toBe("first_failure");
    expect(v.firstFailure).toBe(2);
    expect(v.cases.map((c) => c.message)).toEqual(["", ""]);
    // Only the cases the policy shows: no placeholder rows passing the
    // others off as skipped.
    expect(rows(v, 10).map((c) => c.index)).toEqual([1, 2]);
    // A censored live event (no message) adds no message either.
    const w = applyEvent(v, { channel: { kind: "submission", id: 5 }, seq: 3, kind: "cases", body: { submission_id: 5, status: "WA", score: 0, cases: [{ case: 2, verdict: "WA", cpu_ms: 0, wall_ms: 0, memory_kib: 0, score: 0 }], feedback: "first_failure" } });
    expect(w.cases.map((c) => c.message)).toEqual(["", ""]);
  });

  it("says a closed contest's result is hidden", () => {
    const v = fromDoc({ id: 6, status: "pending", verdict: "pending", feedback: "closed", cases: [], time_ms: null });
    expect(resultsHidden(v)).toBe(true);
    expect(done(v)).toBe(false);
    expect(rows(v, 4)).toEqual([]);
    const s = applySnapshot(fromDoc({ id: 6 }), { submission_id: 6, status: "pending", score: 0, feedback: "closed" });
    expect(resultsHidden(s)).toBe(true);
    expect(s.status).toBe("pending");
    // Staff's documents carry no policy: nothing is held back.
    expect(resultsHidden(fromDoc({ id: 6, status: "WA", verdict: "WA" }))).toBe(false);
  });

  it("takes the subtasks' scores and the first failure from REST, snapshots and cases events", () => {
    const sub = [{ name: "small", points: 40, score: 40, verdict: "AC" as const, cases: [1, 2] }];
    const v = fromDoc({ id: 7, status: "WA", verdict: "WA", feedback: "score_only", subtasks: sub, cases: [] });
    expect(v.subtasks).toEqual(sub);
    const s = applySnapshot(v, { submission_id: 7, status: "judging", score: 0, first_failure: 3, subtasks: [{ ...sub[0]!, score: 0 }] });
    expect(s.subtasks[0]!.score).toBe(0);
    expect(s.firstFailure).toBe(3);
    // A status event carries neither: they stay.
    const st = applyEvent(s, { channel: { kind: "submission", id: 7 }, seq: 2, kind: "status", body: { submission_id: 7, status: "WA", score: 40 } });
    expect(st.subtasks).toEqual(s.subtasks);
    expect(st.firstFailure).toBe(3);
    const ev = applyEvent(st, { channel: { kind: "submission", id: 7 }, seq: 3, kind: "cases", body: { submission_id: 7, status: "WA", score: 40, subtasks: sub, cases: [] } });
    expect(ev.subtasks).toEqual(sub);
    expect(caseRanges([5, 1, 2, 3, 7, 8])).toBe("1–3, 5, 7–8");
    expect(caseRanges([])).toBe("");
  });
});
