// @vitest-environment jsdom
// Overload at a contest start: the login form and the submit button retry a
// 429/503 after Retry-After with a visible countdown (fake clock), keep what
// was typed, never retry a 401, give up after RETRY.maxRetries; the submit
// and a clarification's question reuse their Idempotency-Key on every try.
import { act } from "preact/test-utils";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { LoginPage } from "../src/pages/auth";
import { ContestPage } from "../src/pages/contests";
import { ProblemPage } from "../src/pages/problem";
import "../src/editor"; // loaded lazily by the page: warm it, the fake clock does not wait for imports
import { RETRY } from "../src/retry";
import { session } from "../src/state";
import { fakeAPI, type Handler } from "./fakeapi";
import { $, $$, cleanup, click, mount, submit, text, type } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const busy = (retryAfter?: string, status = 503) => ({
  status,
  body: { error: { code: status === 429 ? "rate_limited" : "unavailable", message: "busy" } },
  headers: retryAfter ? { "Retry-After": retryAfter } : undefined,
});

/** settle advances the fake clock in 100 ms steps, letting promises and renders run. */
async function settle(ms: number) {
  for (let i = 0; i < Math.ceil(ms / 100); i++) await act(async () => void (await vi.advanceTimersByTimeAsync(100)));
}

/** answers returns a handler that answers with each of `outs` in turn (the last one repeats). */
function answers(...outs: ReturnType<Handler>[]): Handler {
  let n = 0;
  return () => outs[Math.min(n++, outs.length - 1)];
}

const notice = (host: HTMLElement) => $(host, ".retry-notice");
const cancelBtn = (host: HTMLElement) => $$(host, ".retry-notice button").find((b) => b.textContent === "Cancel");

async function fillLogin(host: HTMLElement) {
  await type($(host, "#username"), "alice");
  await type($(host, "#password"), "s3cret pw");
}

describe("login under load", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("");
    session.set({ loaded: true, user: null });
    history.replaceState(null, "", "/login?next=/contests/cup");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    vi.spyOn(Math, "random").mockReturnValue(0); // no jitter: the countdown starts at Retry-After
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("counts down after a 503 with Retry-After, then logs in on the second try", async () => {
    const f = fakeAPI({ "POST /api/session": answers(busy("3"), { body: { user: alice, csrf_token: "tok-1" } }) });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams("next=/contests/cup")} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(100);
    const logins = () => f.calls.filter((c) => c.path === "/api/session").length;
    expect(logins()).toBe(1);
    // The countdown, in a polite live region, with a Cancel button.
    expect(notice(host)!.getAttribute("data-retry")).toBe("waiting");
    const status = $(host, '.retry-notice [role="status"]')!;
    expect(status.getAttribute("aria-live")).toBe("polite");
    expect(text(status)).toBe("Many people are logging in right now — retrying in 3 s…");
    expect(cancelBtn(host)).toBeDefined();
    expect(unlabelledControls(host)).toEqual([]);
    // What was typed stays; the Log in button waits.
    expect(($(host, "#password") as HTMLInputElement).value).toBe("s3cret pw");
    expect(($(host, 'button[type="submit"]') as HTMLButtonElement).disabled).toBe(true);
    await settle(1000);
    expect(text(status)).toBe("Many people are logging in right now — retrying in 2 s…");
    await settle(1000);
    expect(text(status)).toBe("Many people are logging in right now — retrying in 1 s…");
    expect(logins()).toBe(1);
    await settle(1000);
    expect(logins()).toBe(2);
    expect(f.calls[1]!.body).toEqual({ username: "alice", password: "s3cret pw" });
    expect(session.get().user?.username).toBe("alice");
    expect(location.pathname).toBe("/contests/cup");
    expect(notice(host)!.getAttribute("data-retry")).toBe("idle");
    unmount();
  });

  it("treats 429 alike and waits the default 2 s without Retry-After", async () => {
    const f = fakeAPI({ "POST /api/session": answers(busy(undefined, 429), { body: { user: alice, csrf_token: "tok-1" } }) });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(100);
    expect(text($(host, '.retry-notice [role="status"]'))).toContain("retrying in 2 s");
    await settle(2000);
    expect(f.calls.length).toBe(2);
    expect(session.get().user?.username).toBe("alice");
    unmount();
  });

  it("never retries a wrong password (401)", async () => {
    const f = fakeAPI({ "POST /api/session": () => ({ status: 401, body: { error: { code: "unauthorized", message: "bad credentials" } }, headers: { "Retry-After": "1" } }) });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(5000);
    expect(f.calls.length).toBe(1);
    expect(text($(host, '[role="alert"]'))).toBe("Wrong username or password.");
    expect(notice(host)!.getAttribute("data-retry")).toBe("idle");
    expect(($(host, 'button[type="submit"]') as HTMLButtonElement).disabled).toBe(false);
    unmount();
  });

  it("Cancel stops the countdown and keeps the password", async () => {
    const f = fakeAPI({ "POST /api/session": () => busy("10") });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(1000);
    await click(cancelBtn(host)!);
    await settle(15_000);
    expect(f.calls.length).toBe(1);
    expect(notice(host)!.getAttribute("data-retry")).toBe("idle");
    expect(($(host, "#password") as HTMLInputElement).value).toBe("s3cret pw");
    expect(($(host, 'button[type="submit"]') as HTMLButtonElement).disabled).toBe(false);
    expect(document.activeElement?.id).toBe("password");
    unmount();
  });

  it("gives up after the last retry with a Try again button", async () => {
    const f = fakeAPI({ "POST /api/session": () => busy("1") });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle((RETRY.maxRetries + 2) * 1000);
    expect(f.calls.length).toBe(RETRY.maxRetries + 1);
    const gaveUp = $(host, '[data-testid="login-gave-up"]')!;
    expect(text(gaveUp)).toContain(`still too busy after ${RETRY.maxRetries + 1} tries`);
    expect(notice(host)!.getAttribute("data-retry")).toBe("idle");
    // Try again starts over (a fresh round of retries).
    await click($$(gaveUp, "button").find((b) => b.textContent === "Try again")!);
    await settle(100);
    expect(f.calls.length).toBe(RETRY.maxRetries + 2);
    expect($(host, '[data-testid="login-gave-up"]')).toBeNull();
    expect(notice(host)!.getAttribute("data-retry")).toBe("waiting");
    unmount();
  });

  it("retries when the server cannot be reached, and says so", async () => {
    let n = 0;
    const ok = fakeAPI({ "POST /api/session": { user: alice, csrf_token: "tok-1" } });
    vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => (n++ === 0 ? Promise.reject(new TypeError("Failed to fetch")) : ok.fetch(input, init)));
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(100);
    expect(text($(host, '.retry-notice [role="status"]'))).toBe("Cannot reach the server — retrying in 2 s…");
    await settle(2000);
    expect(session.get().user?.username).toBe("alice");
    unmount();
  });

  it("speaks Chinese too", async () => {
    setLang("zh");
    vi.stubGlobal("fetch", fakeAPI({ "POST /api/session": () => busy("4") }).fetch);
    const { host, unmount } = await mount(<LoginPage query={new URLSearchParams()} />);
    await fillLogin(host);
    await submit($(host, "form"));
    await settle(100);
    expect(text($(host, '.retry-notice [role="status"]'))).toBe("现在登录的人很多，4 秒后自动重试…");
    expect(cancelBtn(host)).toBeUndefined(); // the button says 取消
    expect(text($(host, ".retry-notice button"))).toBe("取消");
    unmount();
  });
});

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

describe("submit under load", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: alice });
    localStorage.setItem("verdict.editor.language", "py3");
    localStorage.setItem("verdict.draft.sum.py3", "print(sum(map(int, input().split())))");
    vi.stubGlobal("WebSocket", SilentSocket);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    vi.spyOn(Math, "random").mockReturnValue(0);
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it("shows the queued countdown and retries with the same Idempotency-Key", async () => {
    const f = fakeAPI({
      "GET /api/problems/sum": { problem: { slug: "sum", title: "Sum", statement: "Add.", time_limit_ms: 1000, memory_limit_kb: 262144, mode: "icpc", languages: ["py3"] } },
      "GET /api/languages": { languages: [{ id: "py3", name: "Python 3" }] },
      "POST /api/submissions": answers(busy("2", 429), busy("2"), { status: 202, body: { id: 41, status: "queued" } }),
      "GET /api/submissions/41": { submission: { id: 41, problem: "sum", language: "py3", verdict: "", score: 0, time_ms: null, memory_kb: null, created_at: new Date().toISOString(), cases: [] } },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    expect($(host, ".cm-content")).not.toBeNull();
    await submit($(host, ".submit-panel form"));
    await settle(100);
    const posts = () => f.calls.filter((c) => c.method === "POST" && c.path === "/api/submissions");
    expect(posts().length).toBe(1);
    const status = $(host, '.submit-panel .retry-notice [role="status"]')!;
    expect(text(status)).toBe("Queued: the server is busy — retrying in 2 s…");
    expect(text($(host, '.submit-panel button[type="submit"]'))).toBe("Queued…");
    await settle(2000);
    expect(posts().length).toBe(2);
    await settle(2000);
    expect(posts().length).toBe(3);
    const keys = posts().map((c) => c.headers["Idempotency-Key"]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(posts()[2]!.body).toEqual({ problem: "sum", language: "py3", source: "print(sum(map(int, input().split())))" });
    await settle(200);
    expect(text($(host, '.submit-panel button[type="submit"]'))).toBe("Submit");
    expect($(host, ".submit-panel .retry-notice")!.getAttribute("data-retry")).toBe("idle");
    expect(f.calls.some((c) => c.path === "/api/submissions/41")).toBe(true);
    unmount();
  });

  it("keeps the key after Cancel, so the next click is the same submission", async () => {
    const f = fakeAPI({
      "GET /api/problems/sum": { problem: { slug: "sum", title: "Sum", statement: "Add.", time_limit_ms: 1000, memory_limit_kb: 262144, mode: "icpc", languages: ["py3"] } },
      "GET /api/languages": { languages: [{ id: "py3", name: "Python 3" }] },
      "POST /api/submissions": answers(busy("5"), { status: 422, body: { error: { code: "invalid", message: "language not allowed" } } }, busy("5")),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ProblemPage slug="sum" />);
    await settle(500);
    const form = $(host, ".submit-panel form");
    await submit(form);
    await settle(1000);
    await click(cancelBtn(host)!);
    await settle(10_000);
    const posts = () => f.calls.filter((c) => c.method === "POST" && c.path === "/api/submissions");
    expect(posts().length).toBe(1);
    // Same code again: same key. A 422 is shown and not retried; then a new key.
    await submit(form);
    await settle(100);
    expect(posts().length).toBe(2);
    expect(text($(host, ".submit-panel")).includes("language not allowed")).toBe(true);
    await submit(form);
    await settle(100);
    const keys = posts().map((c) => c.headers["Idempotency-Key"]);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[1]);
    unmount();
  });

  it("sends a question again after a 503 with the same Idempotency-Key, and a new question with a new one", async () => {
    session.set({ loaded: true, user: alice });
    const now = Date.now();
    const contest = {
      contest: { slug: "cup", title: "Cup", rule: "icpc", start_at: new Date(now - 3600_000).toISOString(), end_at: new Date(now + 3600_000).toISOString(),
        freeze_minutes: 0, registration: "open", phase: "running", registered: true },
      problems: [{ label: "A", slug: "sum", title: "Sum", points: 100 }],
    };
    const posted = (id: number, question: string) => ({ status: 201, body: { clarification: { id, problem: null, question, answer: null, public: false,
      announcement: false, user: "alice", created_at: new Date(now).toISOString(), answered_at: null } } });
    const f = fakeAPI({
      "GET /api/contests/cup": contest,
      "GET /api/contests/cup/clarifications": { body: { clarifications: [] } },
      "POST /api/contests/cup/clarifications": answers(busy("2"), posted(9, "Is n >= 1?"), posted(10, "Is m >= 1?")),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ContestPage slug="cup" query={new URLSearchParams("tab=clarifications")} />);
    await settle(100);
    await type($(host, "#clar-question"), "Is n >= 1?");
    await submit($(host, 'form[aria-labelledby="ask-h"]'));
    await settle(100);
    const posts = () => f.calls.filter((c) => c.method === "POST");
    expect(posts().length).toBe(1);
    expect(text($(host, '.retry-notice [role="status"]'))).toBe("The server is busy — sending again in 2 s…");
    await settle(2100);
    expect(posts().length).toBe(2);
    const key = posts()[0]!.headers["Idempotency-Key"];
    expect(key).toMatch(/^[A-Za-z0-9_.:-]{1,64}$/);
    expect(posts()[1]!.headers["Idempotency-Key"]).toBe(key);
    expect(posts()[1]!.body).toEqual({ question: "Is n >= 1?" });
    expect(text(host)).toContain("Your question was sent.");
    // The next question is another post: a key of its own.
    await type($(host, "#clar-question"), "Is m >= 1?");
    await submit($(host, 'form[aria-labelledby="ask-h"]'));
    await settle(100);
    expect(posts().length).toBe(3);
    expect(posts()[2]!.headers["Idempotency-Key"]).not.toBe(key);
    unmount();
  });
});
