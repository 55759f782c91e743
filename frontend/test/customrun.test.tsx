// @vitest-environment jsdom
// "Run on my input": the panel posts the editor's source with the input,
// then shows the run's output, stderr, time and memory as the live channel
// (or, with the socket down, the poll) brings them.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { decode, type CustomRunState } from "../src/live/protocol";
import { CustomRunPanel } from "../src/pages/customrun";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { golden } from "./golden";
import { $, $$, cleanup, click, mount, text, type } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const RUN = 1125899906842641;

class SilentSocket {
  readyState = 0;
  protocol = "";
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  send() {}
  close() {}
}

async function settle(ms: number) {
  for (let i = 0; i < Math.ceil(ms / 100); i++) await act(async () => void (await vi.advanceTimersByTimeAsync(100)));
}

describe("custom run panel", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: alice });
    vi.stubGlobal("WebSocket", SilentSocket);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("the golden custom_run event is a CustomRunState", () => {
    const m = decode(golden("event_custom_run"));
    if (m.type !== "event") throw new Error("not an event");
    expect(m.data.kind).toBe("custom_run");
    const st = m.data.body as CustomRunState;
    expect(st.run_id).toBe(RUN);
    expect(st.runs?.map((r) => [r.case, r.verdict, r.stdout])).toEqual([
      [0, "AC", "42\n"],
      [1, "AC", "2\n"],
    ]);
  });

  it("runs the source on the input and shows output, stderr, time and memory", async () => {
    let final = false;
    const done: CustomRunState = {
      run_id: RUN,
      problem_id: 7,
      status: "AC",
      runs: [
        { case: 0, verdict: "AC", cpu_ms: 31, wall_ms: 40, memory_kib: 8192, exit_code: 0, stdout: "42\n", stderr: "debug\n" },
        { case: 1, verdict: "AC", cpu_ms: 20, wall_ms: 25, memory_kib: 8000, exit_code: 0, stdout: "2\n", stdout_truncated: true },
      ],
    };
    const f = fakeAPI({
      "POST /api/custom-runs": () => ({ status: 202, body: { run_id: RUN, problem_id: 7, status: "queued" } }),
      [`GET /api/custom-runs/${RUN}`]: () => ({ body: final ? done : { run_id: RUN, problem_id: 7, status: "judging" } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<CustomRunPanel slug="sum" language="py3" source={() => "print(int(input())*2)"} />);
    await type($(host, "#run-input"), "21\n");
    await act(async () => void click($(host, 'input[type="checkbox"]')));
    await act(async () => void click($(host, '[data-testid="run-button"]')));
    await settle(100);
    const post = f.calls.find((c) => c.method === "POST" && c.path === "/api/custom-runs")!;
    expect(post.body).toEqual({ problem: "sum", language: "py3", source: "print(int(input())*2)", input: "21\n", samples: true });
    expect($(host, '[data-testid="run-result"]')!.getAttribute("data-status")).toBe("queued");
    expect(($(host, '[data-testid="run-button"]') as HTMLButtonElement).disabled).toBe(true);
    await settle(3100);
    expect($(host, '[data-testid="run-result"]')!.getAttribute("data-status")).toBe("judging");
    final = true;
    await settle(3100);
    const res = $(host, '[data-testid="run-result"]')!;
    expect(res.getAttribute("data-status")).toBe("AC");
    const outs = $$(host, ".run-output");
    expect(outs).toHaveLength(2);
    expect(text($(outs[0]!, ".run-stdout"))).toBe("42\n");
    expect(text($(outs[0]!, ".run-stderr"))).toBe("debug\n");
    expect(text(outs[0]!)).toContain("Your input");
    expect(text(outs[0]!)).toContain("31 ms");
    expect(text(outs[1]!)).toContain("Sample 1");
    expect(text(outs[1]!)).toContain("only the beginning is shown");
    expect(($(host, '[data-testid="run-button"]') as HTMLButtonElement).disabled).toBe(false);
  });

  it("shows a refusal (custom runs turned off in the contest)", async () => {
    const f = fakeAPI({
      "POST /api/custom-runs": () => ({
        status: 403,
        body: { error: { code: "custom_runs_disabled", field: "contest", message: "custom runs are turned off in this contest" } },
      }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<CustomRunPanel slug="sum" contest="exam" language="py3" source={() => "print(1)"} />);
    await act(async () => void click($(host, '[data-testid="run-button"]')));
    await settle(100);
    expect(text(host)).toContain("custom runs are turned off in this contest");
    expect($(host, '[data-testid="run-result"]')).toBeNull();
  });
});
