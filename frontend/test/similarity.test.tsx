// @vitest-environment jsdom
// The similarity check page (staff): the ranked pairs, and a pair side by
// side with the matching regions the API gives as byte ranges.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { SimilarityPage } from "../src/pages/similarity";
import { segments, similarityQuery } from "../src/similarity";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, mount, text, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const ref = (id: number, user: string) => ({
  submission_id: id,
  username: user,
  problem: "maxsub",
  language: "cpp17",
  verdict: "AC",
  created_at: "2026-03-01T09:00:00Z",
});
const report = {
  scope: "problem maxsub",
  sources: 5,
  checked: 4,
  skipped: 1,
  candidates: 2,
  elapsed_ms: 12,
  pairs: [
    { a: ref(11, "alice"), b: ref(12, "bob"), shared: 40, score: 0.86, cover_a: 0.9, cover_b: 0.82 },
    { a: ref(13, "carol"), b: ref(14, "dave"), shared: 3, score: 0.07, cover_a: 0.08, cover_b: 0.06 },
  ],
};
const srcA = "int f() {\n  return 1; // é\n}\nint main() { return f(); }\n";
const srcB = "// copy\nint main() { return f(); }\nint f() {\n  return 1;\n}\n";
const span = (src: string, from: string, to: string) => {
  const enc = new TextEncoder();
  const s = src.indexOf(from),
    e = src.indexOf(to, s) + to.length;
  return { start: enc.encode(src.slice(0, s)).length, end: enc.encode(src.slice(0, e)).length, line_start: 1, line_end: 1 };
};
const comparison = {
  a: { ...ref(11, "alice"), source: srcA, tokens: 20, matched: 18 },
  b: { ...ref(12, "bob"), source: srcB, tokens: 19, matched: 18 },
  regions: [
    { a: span(srcA, "int f", "1;"), b: span(srcB, "int f", "1;"), tokens: 8 },
    { a: span(srcA, "int main", "}\n"), b: span(srcB, "int main", "}\n"), tokens: 10 },
  ],
};

describe("similarity: segments", () => {
  it("cuts a source at byte ranges, multi-byte characters included", () => {
    const src = "aé b // ü\nc";
    const enc = new TextEncoder();
    const at = (s: string) => enc.encode(src.slice(0, src.indexOf(s))).length;
    const segs = segments(src, [
      { start: at("b"), end: at("b") + 1, line_start: 1, line_end: 1 },
      { start: 0, end: at(" b"), line_start: 1, line_end: 1 },
    ]);
    expect(segs).toEqual([
      { text: "aé", region: 1 },
      { text: " ", region: null },
      { text: "b", region: 0 },
      { text: " // ü\nc", region: null },
    ]);
    expect(segs.map((s) => s.text).join("")).toBe(src);
  });
  it("clips overlapping and out-of-range spans", () => {
    const segs = segments("abcdef", [
      { start: 1, end: 4, line_start: 1, line_end: 1 },
      { start: 2, end: 99, line_start: 1, line_end: 1 },
    ]);
    expect(segs.map((s) => s.text).join("")).toBe("abcdef");
    expect(segs).toEqual([
      { text: "a", region: null },
      { text: "bcd", region: 0 },
      { text: "ef", region: 1 },
    ]);
  });
  it("builds the query", () => {
    expect(similarityQuery({ problem: "p" })).toBe("problem=p");
    expect(similarityQuery({ contest: "c", all: true })).toBe("contest=c&all=1");
  });
});

describe("similarity: page", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists the pairs, best first, with links to the side-by-side view", async () => {
    const f = fakeAPI({ "GET /api/similarity": report });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<SimilarityPage query={new URLSearchParams("problem=maxsub")} />);
    const rows = await waitFor(() => ($$(host, "table.sim-pairs tbody tr").length === 2 ? $$(host, "table.sim-pairs tbody tr") : null), "pair rows");
    expect(rows[0]!.getAttribute("data-a")).toBe("11");
    expect(text(rows[0]!)).toContain("86%");
    expect(text(rows[0]!)).toContain("alice");
    expect($(rows[0]!, "a.btn")!.getAttribute("href")).toBe("/similarity?problem=maxsub&a=11&b=12");
    expect(text(host)).toContain("Sources: 5; checked: 4; pairs with shared code: 2");
    expect(text(host)).toContain("1 in a language without a tokenizer");
    expect(unlabelledControls(host)).toEqual([]);
  });

  it("shows two sources side by side with the regions highlighted alike", async () => {
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/similarity/compare": comparison }).fetch);
    const { host } = await mount(<SimilarityPage query={new URLSearchParams("problem=maxsub&a=11&b=12")} />);
    await waitFor(() => $(host, ".sim-sides"), "side-by-side view");
    const a = $$(host, "pre.sim-a mark"),
      b = $$(host, "pre.sim-b mark");
    expect(a.map((m) => m.textContent)).toEqual(["int f() {\n  return 1;", "int main() { return f(); }\n"]);
    expect(b.map((m) => m.getAttribute("data-region"))).toEqual(["1", "0"]);
    expect(a[0]!.className).toBe(b[1]!.className);
    expect($(host, "pre.sim-a")!.textContent).toBe(srcA);
    expect($(host, "pre.sim-b")!.textContent).toBe(srcB);
    expect(text(host)).toContain("2 matching regions");
    expect($(host, "a[href='/similarity?problem=maxsub']")).not.toBeNull();
  });

  it("is for staff only", async () => {
    session.set({ loaded: true, user: { ...admin, role: "student" } });
    vi.stubGlobal("fetch", fakeAPI({}).fetch);
    const { host } = await mount(<SimilarityPage query={new URLSearchParams("problem=maxsub")} />);
    expect(text(host)).toContain("Only admins and problem setters");
  });
});
