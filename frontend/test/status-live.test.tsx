// @vitest-environment jsdom
// A student's status page, live: the site's status channel (which the hub
// filters to the submissions everyone may list, such as others' practice
// on public problems) and their own user channel; a new row another user
// submitted appears on top, read through the REST API.
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setCsrfToken, type SubmissionSummary } from "../src/api";
import { setLang } from "../src/i18n";
import { SUBPROTOCOL } from "../src/live/protocol";
import { StatusPage } from "../src/pages/status";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $$, cleanup, mount } from "./dom";

const bob = { id: 4, username: "bob", display_name: "Bob", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };

class ScriptedSocket {
  static last: ScriptedSocket | null = null;
  readyState = 0;
  protocol = SUBPROTOCOL;
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  channels: string[] = [];
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
    this.channels.push(`${m.data.channel.kind}:${m.data.channel.id}`);
    const state = m.data.channel.kind === "user" ? { items: [] } : {};
    this.recv({ v: 1, type: "snapshot", id: m.id, data: { channel: m.data.channel, seq: 0, state } });
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

const row = (id: number, over: Partial<SubmissionSummary> = {}): SubmissionSummary => ({
  user_display_name: "Alice", attempt: 1,
  id, problem: "sum", problem_title: "Sum", contest: null, user: "alice", language: "cpp17", verdict: "WA", score: 0,
  time_ms: 10, memory_kb: 1000, created_at: "2026-03-01T10:00:00Z", ...over,
});

describe("a student's status page, live", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: bob });
    vi.stubGlobal("WebSocket", ScriptedSocket);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("watches the site's status channel and their own, and puts another user's practice row on top", async () => {
    vi.stubGlobal(
      "fetch",
      fakeAPI({
        "GET /api/submissions": { submissions: [row(5)], next_cursor: null, live: { kind: "status", id: 0 } },
        "GET /api/submissions/9": { submission: { ...row(9, { user: "carol", verdict: "queued" }), cases: [] } },
      }).fetch,
    );
    const { host } = await mount(<StatusPage query={new URLSearchParams()} />);
    await settle(300);
    const ws = ScriptedSocket.last!;
    expect(ws.channels.sort()).toEqual(["status:0", "user:4"]);
    ws.recv({ v: 1, type: "event", data: { channel: { kind: "status", id: 0 }, seq: 1, kind: "status", body: { submission_id: 9, status: "queued", score: 0 } } });
    await settle(200);
    expect($$(host, "tbody tr")).toHaveLength(2);
    expect($$(host, "tbody tr")[0]!.textContent).toContain("carol");
    // Its verdict follows on the same channel.
    ws.recv({ v: 1, type: "event", data: { channel: { kind: "status", id: 0 }, seq: 2, kind: "status", body: { submission_id: 9, status: "AC", score: 100 } } });
    await settle(100);
    expect($$(host, "tbody tr")[0]!.textContent).toContain("AC");
  });
});
