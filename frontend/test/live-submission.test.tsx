// @vitest-environment jsdom
// The live verdict view over a scripted socket: each accepted case shows its
// score as it arrives; subtask scores and the first failure follow the
// cases events (whole in each), as the hub sends them.
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { SUBPROTOCOL } from "../src/live/protocol";
import { LiveSubmission } from "../src/pages/submission";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, mount, text } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };

/** A hub that answers a subscribe with a snapshot, then sends what the test pushes. */
class ScriptedSocket {
  static last: ScriptedSocket | null = null;
  readyState = 0;
  protocol = SUBPROTOCOL;
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  subscribed: { id: string; channel: { kind: string; id: number } } | null = null;
  constructor() {
    ScriptedSocket.last = this;
    setTimeout(() => {
      this.readyState = 1;
      this.onopen?.({});
    }, 0);
  }
  send(d: string) {
    const m = JSON.parse(d);
    if (m.type !== "subscribe") return;
    this.subscribed = m.data.channel;
    const state = { submission_id: 41, status: "judging", score: 0, cases: [] };
    this.recv({ v: 1, type: "snapshot", id: m.id, data: { channel: m.data.channel, seq: 1, state } });
  }
  recv(m: unknown) {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
  close() {
    this.readyState = 3;
  }
}

async function settle(ms: number) {
  for (let i = 0; i < Math.ceil(ms / 100); i++) await act(async () => void (await vi.advanceTimersByTimeAsync(100)));
}

describe("live submission", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: alice });
    vi.stubGlobal("WebSocket", ScriptedSocket);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("shows each accepted case's score and the subtasks' scores as they arrive", async () => {
    vi.stubGlobal(
      "fetch",
      fakeAPI({
        "GET /api/submissions/41": {
          submission: { id: 41, problem: "max", language: "py3", verdict: "judging", status: "judging", score: 0, case_count: 3, feedback: "score_only", cases: [] },
        },
      }).fetch,
    );
    const { host } = await mount(<LiveSubmission id={41} />);
    await settle(300);
    const ws = ScriptedSocket.last!;
    expect(ws.subscribed).toEqual({ kind: "submission", id: 41 });
    const ch = { kind: "submission", id: 41 };
    const small = { name: "small", points: 40, score: 40, verdict: "AC", cases: [1, 2] };
    ws.recv({
      v: 1,
      type: "event",
      data: {
        channel: ch,
        seq: 2,
        kind: "cases",
        body: {
          submission_id: 41,
          status: "judging",
          score: 0,
          feedback: "score_only",
          cases: [{ case: 1, verdict: "AC", cpu_ms: 4, wall_ms: 5, memory_kib: 900, score: 20 }],
          subtasks: [{ ...small, score: 0, verdict: undefined }, { name: "large", points: 60, score: 0, cases: [3] }],
        },
      },
    });
    await settle(100);
    const row = (i: number) => $(host, `tr[data-case="${i}"]`)!;
    expect(row(1).getAttribute("data-verdict")).toBe("AC");
    expect(text(row(1).querySelectorAll("td")[3]!)).toBe("20");
    expect(row(2).getAttribute("data-verdict")).toBe("waiting");
    expect($(host, 'tr[data-subtask="small"]')!.getAttribute("data-verdict")).toBe("waiting");
    ws.recv({
      v: 1,
      type: "event",
      data: {
        channel: ch,
        seq: 3,
        kind: "cases",
        body: {
          submission_id: 41,
          status: "judging",
          score: 0,
          feedback: "score_only",
          cases: [
            { case: 2, verdict: "AC", cpu_ms: 4, wall_ms: 5, memory_kib: 900, score: 20 },
            { case: 3, verdict: "WA", cpu_ms: 4, wall_ms: 5, memory_kib: 900, score: 0 },
          ],
          subtasks: [small, { name: "large", points: 60, score: 0, verdict: "WA", cases: [3] }],
        },
      },
    });
    // A status event has no subtasks: the view keeps them.
    ws.recv({ v: 1, type: "event", data: { channel: ch, seq: 4, kind: "status", body: { submission_id: 41, status: "WA", score: 40, feedback: "score_only" } } });
    await settle(100);
    expect(text(row(2).querySelectorAll("td")[3]!)).toBe("20");
    const subtasks = $$(host, "table.subtasks tbody tr").map((tr) => [...tr.children].map((c) => text(c)));
    expect(subtasks).toEqual([
      ["small", "AC", "40", "40", "1–2"],
      ["large", "WA", "0", "60", "3"],
    ]);
  });

  it("shows first_failure's cases by verdict only, and its first failure live", async () => {
    vi.stubGlobal(
      "fetch",
      fakeAPI({
        "GET /api/submissions/42": {
          submission: { id: 42, problem: "sum", language: "py3", verdict: "judging", status: "judging", score: 0, case_count: 5, feedback: "first_failure", cases: [] },
        },
      }).fetch,
    );
    const { host } = await mount(<LiveSubmission id={42} />);
    await settle(300);
    const ws = ScriptedSocket.last!;
    const ch = { kind: "submission", id: 42 };
    ws.recv({
      v: 1,
      type: "event",
      data: {
        channel: ch,
        seq: 2,
        kind: "cases",
        body: {
          submission_id: 42,
          status: "judging",
          score: 0,
          feedback: "first_failure",
          cases: [
            { case: 1, verdict: "AC", cpu_ms: 0, wall_ms: 0, memory_kib: 0, score: 0 },
            { case: 2, verdict: "WA", cpu_ms: 0, wall_ms: 0, memory_kib: 0, score: 0 },
          ],
          first_failure: 2,
        },
      },
    });
    await settle(100);
    expect($$(host, "tr[data-case]").map((r) => r.getAttribute("data-case"))).toEqual(["1", "2"]);
    const cells = [...$(host, 'tr[data-case="1"]')!.querySelectorAll("td")].slice(1, 4).map((c) => text(c));
    expect(cells).toEqual(["", "", ""]);
    expect(text($(host, ".first-failure"))).toBe("First failing case: 2");
  });
});
