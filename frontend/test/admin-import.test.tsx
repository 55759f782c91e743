// @vitest-environment jsdom
// The ICPC problem package import form on the admin problems page, against
// a fake web node: what it sends, the created problem and notes it shows,
// the API's field errors next to their fields, labels, both languages.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { AdminPage } from "../src/pages/admin";
import { session } from "../src/state";
import { fakeAPI, type Call } from "./fakeapi";
import { $, choose, cleanup, flush, mount, submit, text, type, waitFor } from "./dom";

const setter = { id: 2, username: "setter", display_name: "Setter", role: "setter" as const, created_at: "2026-01-01T00:00:00Z" };

const imported = {
  problem: {
    slug: "hello-world",
    title: "Hello Sum",
    statement: "# Sum",
    time_limit_ms: 2000,
    memory_limit_kb: 262144,
    checker: "float",
    float_tolerance: 1e-6,
    mode: "icpc",
    visibility: "public",
    languages: ["cpp17", "py3"],
    testdata_hash: "ab".repeat(32),
  },
  testdata: { hash: "ab".repeat(32), case_count: 3, size_bytes: 812, subtasks: 0, checker: false },
  notes: ["input_validators ignored", "statement files such as images are not imported (problem_statement/)"],
  validation: { status: "valid", validators: ["input_validators/range/range.cpp"], inputs: 3 },
};

/** chooseFile sets a file input's files as a browser does, then fires change. */
async function chooseFile(el: Element | null, file: File): Promise<void> {
  if (!el) throw new Error("chooseFile: no element");
  await act(() => {
    Object.defineProperty(el, "files", { value: [file], configurable: true });
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

const zip = () => new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04])], "hello.zip", { type: "application/zip" });
const form = (host: HTMLElement) => $(host, '[data-testid="icpc-import"]');
const importButton = (host: HTMLElement) => $(form(host)!, 'button[type="submit"]') as HTMLButtonElement;

describe("admin: ICPC package import", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-2");
    session.set({ loaded: true, user: setter });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("sends the package and options, then shows the new problem and the notes", async () => {
    let lists = 0;
    const f = fakeAPI({
      "GET /api/problems": () => {
        lists++;
        return { body: { problems: lists > 1 ? [{ slug: "hello-world", title: "Hello Sum" }] : [] } };
      },
      "POST /api/problems/import": () => ({ status: 201, body: imported }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="problems" />);
    await flush();
    expect(form(host)).not.toBeNull();
    expect(text(host)).toContain("Import an ICPC problem package");
    expect(unlabelledControls(host)).toEqual([]);
    // Native controls only, none taken out of the tab order.
    expect(form(host)!.querySelectorAll('[tabindex="-1"]').length).toBe(0);
    expect(importButton(host).disabled).toBe(true);

    await chooseFile($(host, "#imp-file"), zip());
    await choose($(host, "#imp-visibility"), "public");
    await type($(host, "#imp-languages"), "cpp17, py3");
    expect(importButton(host).disabled).toBe(false);
    await submit(form(host));
    await waitFor(() => $(host, '[data-testid="icpc-imported"]'), "import result");

    const post = f.calls.find((c: Call) => c.method === "POST" && c.path === "/api/problems/import")!;
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-2");
    const sent = post.form!;
    expect((sent.get("file") as File).name).toBe("hello.zip");
    expect(sent.get("slug")).toBeNull(); // empty: the server derives it
    expect(sent.get("visibility")).toBe("public");
    expect(sent.get("languages")).toBe("cpp17, py3");

    const result = $(host, '[data-testid="icpc-imported"]')!;
    expect(text(result)).toContain("Imported Hello Sum as hello-world (test cases: 3; subtasks: 0).");
    const link = result.querySelector("a")!;
    expect(link.getAttribute("href")).toBe("/problems/hello-world");
    expect(text(link)).toBe("Open the problem");
    const notes = Array.from($(host, '[data-testid="icpc-notes"]')!.querySelectorAll("li")).map((li) => li.textContent);
    expect(notes).toEqual(imported.notes);
    // The input validation's outcome (issue 17).
    expect(text($(host, '[data-testid="import-validation"]'))).toBe("Input validation: all 3 inputs passed (input_validators/range/range.cpp).");
    // The slug list of "edit an existing problem" is read again.
    await waitFor(() => $(host, '#p-existing option[value="hello-world"]'), "problem list reloaded");
    unmount();
  });

  it("shows the API's errors next to their fields, others above the button", async () => {
    const answers: { status: number; body: unknown }[] = [
      {
        status: 400,
        body: { error: { code: "validation", field: "file", message: "cannot import this ICPC package: output_validators/v/validate.cc: custom output validators are not supported" } },
      },
      { status: 409, body: { error: { code: "conflict", field: "slug", message: 'slug "hello" is already taken' } } },
      { status: 503, body: { error: { code: "unavailable", message: "a backing service is unavailable; try again shortly (request r1)" } } },
    ];
    const f = fakeAPI({
      "GET /api/problems": { problems: [] },
      "POST /api/problems/import": () => answers.shift(),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="problems" />);
    await flush();
    await chooseFile($(host, "#imp-file"), zip());
    await submit(form(host));
    await waitFor(() => $(host, "#imp-file-err"), "file error");
    expect(text($(host, "#imp-file-err"))).toContain("output_validators/v/validate.cc");
    expect($(host, "#imp-file")!.getAttribute("aria-invalid")).toBe("true");
    expect($(host, "#imp-file")!.getAttribute("aria-describedby")).toBe("imp-file-err");
    expect(form(host)!.querySelector('[role="alert"]')).toBeNull();
    expect($(host, '[data-testid="icpc-imported"]')).toBeNull();

    await type($(host, "#imp-slug"), "hello");
    await submit(form(host));
    await waitFor(() => $(host, "#imp-slug-err"), "slug error");
    expect(text($(host, "#imp-slug-err"))).toContain("already taken");
    expect($(host, "#imp-file-err")).toBeNull();
    expect($(host, "#imp-slug")!.getAttribute("aria-describedby")).toBe("imp-slug-err imp-slug-hint");
    const posts = f.calls.filter((c) => c.method === "POST");
    expect(posts[1]!.form!.get("slug")).toBe("hello");

    await submit(form(host));
    await waitFor(() => form(host)!.querySelector('[role="alert"]'), "form error");
    expect(text(form(host)!.querySelector('[role="alert"]'))).toContain("try again shortly");
    expect($(host, "#imp-slug-err")).toBeNull();
    unmount();
  });

  it("speaks Simplified Chinese", async () => {
    setLang("zh");
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/problems": { problems: [] } }).fetch);
    const { host, unmount } = await mount(<AdminPage section="problems" />);
    await flush();
    expect(text(host)).toContain("导入 ICPC 题目包");
    expect(text($(host, 'label[for="imp-file"]'))).toBe("题目包（zip）");
    expect(text($(host, 'label[for="imp-slug"]'))).toBe("标识（可选）");
    expect(text(importButton(host))).toBe("导入题目包");
    expect(unlabelledControls(host)).toEqual([]);
    unmount();
  });
});
