// @vitest-environment jsdom
// The status page (filters, rows, rejudge of the selection), its live
// merge rules, and the jury panel of a submission, against a fake web node.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type SubmissionSummary } from "../src/api";
import { setLang } from "../src/i18n";
import { validChannel } from "../src/live/protocol";
import { applyStatus, filterOf, matches, StatusPage } from "../src/pages/status";
import { JuryPanel } from "../src/pages/staff";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, click, flush, mount, submit, text, type, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const row = (id: number, over: Partial<SubmissionSummary> = {}): SubmissionSummary => ({
  user_display_name: "Alice", attempt: 1,
  id, problem: "sum", problem_title: "Sum", contest: "cup", user: "alice", language: "cpp17", verdict: "WA", score: 0,
  time_ms: 10, memory_kb: 1000, created_at: "2026-03-01T10:00:00Z", ...over,
});

describe("status page rules", () => {
  it("reads the filter from the query, matches rows, applies live statuses", () => {
    expect(filterOf(new URLSearchParams("problem=sum&verdict=&user=%20bob%20&x=1"))).toEqual({ problem: "sum", user: "bob" });
    expect(matches(row(1), { problem: "sum", contest: "cup" })).toBe(true);
    expect(matches(row(1), { user: "bob" })).toBe(false);
    const rows = [row(2), row(1)];
    const r = applyStatus(rows, { submission_id: 1, status: "AC", score: 100 });
    expect(r.known).toBe(true);
    expect(r.rows[1]).toMatchObject({ id: 1, verdict: "AC", score: 100 });
    expect(applyStatus(rows, { submission_id: 3, status: "queued", score: 0 })).toEqual({ rows, known: false });
    expect(validChannel({ kind: "status", id: 0 })).toBe(true);
    expect(validChannel({ kind: "status", id: 7 })).toBe(true);
    expect(validChannel({ kind: "status", id: -1 })).toBe(false);
  });
});

describe("status page", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists, filters by problem, and rejudges the selection", async () => {
    const f = fakeAPI({
      "GET /api/submissions": (c) => ({
        body: { submissions: c.query.get("problem") === "sum" ? [row(2)] : [row(2), row(1, { problem: "other" })], next_cursor: null },
      }),
      "POST /api/rejudge": () => ({ status: 202, body: { queued: 1, background: true, job: "j9" } }),
      "GET /api/rejudge/j9": () => ({
        body: { job: "j9", total: 1, done: 1, failed: 0, user_id: 1, started_at: "2026-03-01T10:00:00Z", finished: true, interrupted: false },
      }),
    });
    vi.stubGlobal("fetch", f.fetch);
    vi.stubGlobal("confirm", () => true);
    const { host } = await mount(<StatusPage query={new URLSearchParams()} />);
    await waitFor(() => $$(host, "tbody tr").length === 2 || null, "two rows");
    expect(unlabelledControls(host)).toEqual([]);
    expect(($(host, "#st-rejudge") as HTMLButtonElement).disabled).toBe(true); // no selection: never the whole site
    await type($(host, "#st-problem"), "sum");
    await submit($(host, "form"));
    await waitFor(() => $$(host, "tbody tr").length === 1 || null, "one row");
    expect(f.calls.at(-1)?.query.get("problem")).toBe("sum");
    await click($(host, "#st-rejudge"));
    await flush();
    const rj = f.calls.find((c) => c.method === "POST" && c.path === "/api/rejudge");
    expect(rj?.body).toEqual({ problem: "sum" });
    expect(text(host)).toContain("1");
    await waitFor(() => text(host).includes("Rejudge done: 1 of 1") || null, "the job's progress");
  });

  it("the jury panel overrides with a reason and shows the audit", async () => {
    let overrides: unknown[] = [];
    const f = fakeAPI({
      "GET /api/submissions/5": () => ({ body: { submission: { ...row(5), cases: [], overrides } } }),
      "POST /api/submissions/5/override": (c) => {
        const b = c.body as { reason: string };
        if (!b.reason) return { status: 400, body: { error: { code: "validation", message: "reason is required", field: "reason" } } };
        overrides = [{ by: "admin", at: "2026-03-01T11:00:00Z", old_verdict: "WA", new_verdict: "AC", old_score: 0, new_score: 100, reason: b.reason }];
        return { body: { submission: row(5, { verdict: "AC" }) } };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<JuryPanel id={5} />);
    await flush();
    expect(unlabelledControls(host)).toEqual([]);
    await type($(host, "#ov-reason"), "checker bug");
    await submit($(host, "form"));
    await waitFor(() => $(host, "table.overrides"), "the audit");
    expect(text($(host, "table.overrides")!)).toContain("checker bug");
    expect(f.calls.find((c) => c.method === "POST")?.body).toEqual({ verdict: "AC", reason: "checker bug" });
  });
});
