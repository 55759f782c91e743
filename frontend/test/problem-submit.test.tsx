// @vitest-environment jsdom
// The submit form's small things: the language it starts on (the user's
// last, else the problem's first C++), labels that name the compiler once,
// and the live result scrolled into view after a submit.
import { act } from "preact/test-utils";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { defaultLanguage, languageLabel } from "../src/language";
import { ProblemPage } from "../src/pages/problem";
import "../src/editor"; // loaded lazily by the page: warm it, the fake clock does not wait for imports
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, mount, submit, text } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };

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

const LANGS = [
  { id: "c17", name: "C17 (gcc)", version: "gcc (Debian 12.2.0-14) 12.2.0" },
  { id: "cpp17", name: "C++17 (g++)", version: "g++ (Debian 12.2.0-14) 12.2.0" },
  { id: "cpp20", name: "C++20 (g++)", version: "g++ (Debian 12.2.0-14) 12.2.0" },
  { id: "go", name: "Go", version: "go version go1.19.8 linux/amd64" },
  { id: "java17", name: "Java 17 (OpenJDK)", version: "javac 17.0.9" },
  { id: "py3", name: "Python 3 (CPython)", version: "Python 3.11.2" },
];

describe("defaultLanguage and languageLabel", () => {
  it("starts on the user's last language the problem allows, else its first C++", () => {
    expect(defaultLanguage(LANGS, ["py3"])).toBe("py3");
    expect(defaultLanguage(LANGS, [null, "java17"])).toBe("java17");
    expect(defaultLanguage(LANGS, ["rust", undefined])).toBe("cpp17");
    expect(defaultLanguage(LANGS.filter((l) => l.id !== "cpp17"), [])).toBe("cpp20");
    expect(defaultLanguage(LANGS.filter((l) => l.id === "py3" || l.id === "go"), [])).toBe("go");
    expect(defaultLanguage([], ["py3"])).toBe("");
  });
  it("names the compiler once, with its version", () => {
    expect(LANGS.map(languageLabel)).toEqual([
      "C17 (gcc 12.2.0)",
      "C++17 (g++ 12.2.0)",
      "C++20 (g++ 12.2.0)",
      "Go (1.19.8)",
      "Java 17 (OpenJDK 17.0.9)",
      "Python 3 (CPython 3.11.2)",
    ]);
    expect(languageLabel({ id: "x", name: "X" })).toBe("X");
    expect(languageLabel({ id: "x", name: "X", version: "nightly" })).toBe("X (nightly)");
    expect(languageLabel({ id: "x", name: "X 1.2 (x)", version: "x 1.2" })).toBe("X 1.2 (x)");
  });
});

describe("the submit form", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
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
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    localStorage.clear();
    delete (Element.prototype as { scrollIntoView?: unknown }).scrollIntoView;
  });

  const routes = (last: string | null, allowed: string[] = []) => ({
    "GET /api/problems/sum": { problem: { slug: "sum", title: "Sum", statement: "Add.", time_limit_ms: 1000, memory_limit_kb: 262144, mode: "icpc", languages: allowed } },
    "GET /api/languages": { languages: LANGS },
    "GET /api/submissions": { submissions: last ? [{ id: 7, problem: "other", language: last, verdict: "AC", score: 100, created_at: "2026-12-01T10:00:00Z" }] : [] },
    "POST /api/submissions": { status: 202, body: { id: 41, status: "queued" } },
    "GET /api/submissions/41": { submission: { id: 41, problem: "sum", language: "py3", verdict: "", score: 0, time_ms: null, memory_kb: null, created_at: "2026-12-01T10:00:00Z", cases: [] } },
  });
  const picked = (host: HTMLElement) => ($(host, "#language") as HTMLSelectElement).value;

  it("starts on the language of the user's last submission", async () => {
    vi.stubGlobal("fetch", fakeAPI(routes("py3")).fetch);
    const { host } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    expect(picked(host)).toBe("py3");
  });

  it("starts on the problem's first C++ for a user with no submission", async () => {
    vi.stubGlobal("fetch", fakeAPI(routes(null)).fetch);
    const { host } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    expect(picked(host)).toBe("cpp17");
    expect($$(host, "#language option").map((o) => text(o))).toContain("C++17 (g++ 12.2.0)");
  });

  it("prefers the user's own last choice, and not another user's", async () => {
    localStorage.setItem("verdict.editor.language.2", "java17");
    localStorage.setItem("verdict.editor.language.3", "go");
    const f = fakeAPI(routes("py3"));
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    expect(picked(host)).toBe("java17");
    expect(f.calls.some((c) => c.path === "/api/submissions" && c.method === "GET")).toBe(false);
  });

  it("falls back to the problem's first C++ when the last language is not allowed here", async () => {
    vi.stubGlobal("fetch", fakeAPI(routes("java17", ["py3", "cpp20"])).fetch);
    const { host } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    expect(picked(host)).toBe("cpp20");
  });

  it("scrolls the live result into view after a submit and remembers the language", async () => {
    localStorage.setItem("verdict.draft.sum.py3", "print(1)");
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    } as typeof Element.prototype.scrollIntoView;
    vi.stubGlobal("fetch", fakeAPI(routes("py3")).fetch);
    const { host } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    await submit($(host, ".submit-panel form"));
    await settle(300);
    const live = $(host, '[data-testid="live-result"]');
    expect(live).not.toBeNull();
    expect(scrolled).toContain(live);
    expect(localStorage.getItem("verdict.editor.language.2")).toBe("py3");
  });
});
