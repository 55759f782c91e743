// @vitest-environment jsdom
// Problem types (pages/problemtypes.tsx): the statement's file I/O line,
// the output-only upload (a zip, or one file per case named after it), and
// the reference solutions on the admin page.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { setCsrfToken, type Problem, type SolutionsDoc } from "../src/api";
import { setLang } from "../src/i18n";
import { caseOfFileName, IOFiles, OutputsPanel } from "../src/pages/problemtypes";
import { SolutionsPanel } from "../src/pages/admin/solutions";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, click, flush, mount, submit, text, waitFor } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };

async function chooseFiles(el: Element | null, files: File[]): Promise<void> {
  if (!el) throw new Error("no file input");
  await act(async () => {
    Object.defineProperty(el, "files", { value: files, configurable: true });
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

const problem = (p: Partial<Problem>): Problem =>
  ({ slug: "sum", title: "Sum", statement: "", time_limit_ms: 1000, memory_limit_kb: 262144, mode: "icpc", languages: [], ...p }) as Problem;

describe("problem types", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: alice });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("reads case numbers from output file names as the server does", () => {
    const cases: [string, number | null][] = [
      ["1.out", 1],
      ["out/12.txt", 12],
      ["output03.txt", 3],
      ["output_4.out", 4],
      ["7", 7],
      ["0.out", null],
      ["answer.txt", null],
      ["1a.out", null],
    ];
    for (const [name, want] of cases) expect(caseOfFileName(name), name).toBe(want);
  });

  it("shows where the program reads and writes", async () => {
    const { host } = await mount(
      <dl>
        <IOFiles p={problem({ input_file: "input.txt", output_file: "" })} />
      </dl>,
    );
    expect(text($(host, '[data-testid="problem-io"]'))).toBe("read from input.txt, write to standard output");
    cleanup();
    const plain = await mount(
      <dl>
        <IOFiles p={problem({})} />
      </dl>,
    );
    expect($(plain.host, '[data-testid="problem-io"]')).toBeNull();
    cleanup();
    const oo = await mount(
      <dl>
        <IOFiles p={problem({ output_only: true })} />
      </dl>,
    );
    expect(text($(oo.host, '[data-testid="problem-io"]'))).toContain("output-only");
  });

  it("uploads one file per case as case_N fields, refusing names that name no case", async () => {
    const f = fakeAPI({
      "POST /api/submissions/outputs": () => ({ status: 201, body: { id: 41, status: "queued" } }),
      "GET /api/submissions/41": { submission: { id: 41, verdict: "queued", cases: [] } },
    });
    vi.stubGlobal("fetch", f.fetch);
    vi.stubGlobal("WebSocket", class { close() {} send() {} });
    const { host } = await mount(<OutputsPanel slug="sum" caseCount={2} />);
    const button = $(host, 'button[type="submit"]') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    await chooseFiles($(host, "#outputs-files"), [new File(["x"], "notes.txt")]);
    expect(text(host)).toContain("These file names name no case: notes.txt");
    expect(button.disabled).toBe(true);
    await chooseFiles($(host, "#outputs-files"), [new File(["3\n"], "1.out"), new File(["42\n"], "output02.txt")]);
    expect(button.disabled).toBe(false);
    await submit($(host, "form"));
    await flush();
    const call = f.calls.find((c) => c.path === "/api/submissions/outputs");
    expect(call?.form?.get("problem")).toBe("sum");
    expect((call?.form?.get("case_1") as File).name).toBe("1.out");
    expect((call?.form?.get("case_2") as File).name).toBe("output02.txt");
    expect(call?.form?.get("file")).toBeNull();
    expect(call?.headers["Idempotency-Key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("shows the server's error on the zip field", async () => {
    const f = fakeAPI({
      "POST /api/submissions/outputs": () => ({
        status: 400,
        body: { error: { code: "validation", field: "file", message: "file is not a zip file: zip: not a valid zip file" } },
      }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<OutputsPanel slug="sum" caseCount={2} />);
    await chooseFiles($(host, "#outputs-zip"), [new File(["PK"], "outs.zip")]);
    await submit($(host, "form"));
    await waitFor(() => text(host).includes("not a zip file") || null, "the field error");
    expect(f.calls.find((c) => c.path === "/api/submissions/outputs")?.form?.get("file")).toBeInstanceOf(File);
  });

  it("runs the reference solutions and shows which got their expected verdict", async () => {
    const before: SolutionsDoc = {
      ok: false,
      solutions: [
        { id: 1, name: "submissions/accepted/sum.py", language: "py3", expected: "AC", state: "not_run" },
        { id: 2, name: "submissions/time_limit_exceeded/loop.py", language: "py3", expected: "TLE", state: "not_run" },
      ],
    };
    const after: SolutionsDoc = {
      ok: false,
      solutions: [
        { id: 1, name: "submissions/accepted/sum.py", language: "py3", expected: "AC", state: "ok", submission_id: 90, verdict: "AC" },
        { id: 2, name: "submissions/time_limit_exceeded/loop.py", language: "py3", expected: "TLE", state: "mismatch", submission_id: 91, verdict: "AC" },
      ],
    };
    const f = fakeAPI({
      "GET /api/problems/sum/solutions": before,
      "POST /api/problems/sum/solutions/run": () => ({ status: 202, body: after }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<SolutionsPanel slug="sum" />);
    await waitFor(() => $$(host, "tbody tr").length === 2 || null, "the solutions");
    expect(text(host)).toContain("not run");
    const run = $$(host, "button").find((b) => text(b) === "Run all");
    await click(run ?? null);
    await flush();
    const rows = $$(host, "tbody tr").map((r) => text(r));
    expect(rows[0]).toContain("as expected");
    expect(rows[1]).toContain("NOT as expected");
    expect($$(host, "tr.row-bad").length).toBe(1);
    expect(text($(host, '[data-testid="solutions-summary"]'))).toContain("Not every solution");
    expect(f.calls.some((c) => c.method === "POST" && c.path === "/api/problems/sum/solutions/run")).toBe(true);
  });
});

describe("output-only sources", () => {
  it("shows the outputs of an output-only submission case by case", async () => {
    const { outputsText } = await import("../src/outputs");
    setLang("en");
    expect(outputsText(JSON.stringify({ files: [{ case: 1, data: btoa("3\n") }, { case: 2, data: "" }] }))).toBe(
      "== case 1, 2 bytes ==\n3\n\n== case 2, 0 bytes ==\n",
    );
    expect(outputsText("print(1)")).toBe("print(1)");
  });
});
