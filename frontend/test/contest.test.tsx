// @vitest-environment jsdom
// The contest page: the Register button, staff answering clarifications,
// and a student's page picking up the answer without a reload.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act } from "preact/test-utils";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type Clarification, type Contest } from "../src/api";
import { CLAR_POLL } from "../src/clarifications";
import { setLang } from "../src/i18n";
import { ContestPage } from "../src/pages/contests";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, click, flush, mount, submit, text, type, waitFor } from "./dom";

const student = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const now = Date.now();
const contest = (over: Partial<Contest> = {}) => ({
  contest: {
    slug: "cup",
    title: "Cup",
    rule: "icpc",
    start_at: new Date(now - 3600_000).toISOString(),
    end_at: new Date(now + 3600_000).toISOString(),
    freeze_minutes: 0,
    registration: "open",
    phase: "running",
    registered: false,
    ...over,
  },
  problems: [{ label: "A", slug: "sum", title: "Sum", points: 100 }],
});
const question = (over: Partial<Clarification> = {}): Clarification => ({
  id: 7,
  problem: "A",
  question: "Is n >= 1?",
  answer: null,
  public: false,
  announcement: false,
  user: "alice",
  created_at: new Date(now - 60_000).toISOString(),
  answered_at: null,
  ...over,
});
const q = (tab: string) => new URLSearchParams(`tab=${tab}`);

describe("contest page", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-9");
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("offers Register in an open contest and shows the state after", async () => {
    session.set({ loaded: true, user: student });
    const f = fakeAPI({
      "GET /api/contests/cup": contest(),
      "POST /api/contests/cup/register": { contest: "cup", registered: true },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ContestPage slug="cup" query={q("problems")} />);
    const btn = await waitFor(() => $$(host, ".registration button").find((b) => b.textContent === "Register"), "Register button");
    expect($(host, ".registration")!.getAttribute("data-state")).toBe("can-register");
    await click(btn);
    await waitFor(() => $(host, '.registration[data-state="registered"]'), "registered state");
    expect(text($(host, ".registration"))).toBe("Registered. Good luck!");
    expect(f.calls.find((c) => c.method === "POST")!.headers["X-CSRF-Token"]).toBe("csrf-9");
    unmount();
  });

  it("says so when registration is by list, and offers nothing to staff", async () => {
    session.set({ loaded: true, user: student });
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/contests/cup": contest({ registration: "list" }) }).fetch);
    let m = await mount(<ContestPage slug="cup" query={q("problems")} />);
    await waitFor(() => $(m.host, '.registration[data-state="by-list"]'), "by-list notice");
    expect($(m.host, ".registration button")).toBeNull();
    m.unmount();
    session.set({ loaded: true, user: admin });
    m = await mount(<ContestPage slug="cup" query={q("problems")} />);
    await waitFor(() => $(m.host, "h1"), "page");
    expect($(m.host, ".registration")).toBeNull();
    m.unmount();
  });

  it("lets staff answer a question, choosing who sees the answer", async () => {
    session.set({ loaded: true, user: admin });
    let clars: Clarification[] = [question(), question({ id: 8, user: "bob", question: "Old one", answer: "Yes.", public: true, answered_at: new Date(now).toISOString() })];
    const f = fakeAPI({
      "GET /api/contests/cup": contest(),
      "GET /api/contests/cup/clarifications": () => ({ body: { clarifications: clars } }),
      "POST /api/contests/cup/clarifications/7/answer": (c) => {
        const b = c.body as { answer: string; public: boolean };
        clars = clars.map((x) => (x.id === 7 ? { ...x, answer: b.answer, public: b.public, answered_at: new Date().toISOString() } : x));
        return { body: { clarification: clars.find((x) => x.id === 7) } };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ContestPage slug="cup" query={q("clarifications")} />);
    const item = await waitFor(() => $(host, 'li[data-clar-id="7"]'), "question 7");
    // Staff see the open question first, with the asker, and how many wait.
    expect($$(host, "li[data-clar-id]").map((li) => li.getAttribute("data-clar-id"))).toEqual(["7", "8"]);
    expect(text(item)).toContain("alice");
    expect(text(host)).toContain("1 question waiting for an answer.");
    expect(unlabelledControls(host)).toEqual([]);
    // No default audience: the button waits for text and a choice.
    const send = $$(item, "button").find((b) => b.textContent === "Send answer") as HTMLButtonElement;
    await type($(item, "textarea"), "Yes, n >= 1.");
    expect(send.disabled).toBe(true);
    await click($(item, 'input[value="public"]'));
    expect(send.disabled).toBe(false);
    await submit($(item, "form"));
    await waitFor(() => $(host, 'li[data-clar-id="7"][data-answered="1"]'), "answered");
    const post = f.calls.find((c) => c.method === "POST")!;
    expect(post.body).toEqual({ answer: "Yes, n >= 1.", public: true });
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-9");
    expect(text($(host, 'li[data-clar-id="7"] .clar-answer-text'))).toBe("Yes, n >= 1.");
    expect(text(host)).toContain("No question is waiting for an answer.");
    // The answered question offers an edit, not a form.
    expect($(host, 'li[data-clar-id="7"] form')).toBeNull();
    expect($$(host, 'li[data-clar-id="7"] button').map((b) => b.textContent)).toEqual(["Edit answer"]);
    // Focus follows: the Edit button after answering, the text when editing,
    // with the current answer and audience filled in.
    await waitFor(() => document.activeElement?.textContent === "Edit answer", "focus on Edit");
    await click($(host, 'li[data-clar-id="7"] button'));
    await waitFor(() => document.activeElement?.id === "ans-7", "focus on the answer");
    expect((document.activeElement as HTMLTextAreaElement).value).toBe("Yes, n >= 1.");
    expect(($(host, 'li[data-clar-id="7"] input[value="public"]') as HTMLInputElement).checked).toBe(true);
    unmount();
  });

  it("shows a student the answer to their question without a reload", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    session.set({ loaded: true, user: student });
    let clars: Clarification[] = [question()];
    const f = fakeAPI({
      "GET /api/contests/cup": contest({ registered: true }),
      "GET /api/contests/cup/clarifications": () => ({ body: { clarifications: clars } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<ContestPage slug="cup" query={q("clarifications")} />);
    const settle = async (ms: number) => {
      for (let i = 0; i < ms / 100; i++) await act(async () => void (await vi.advanceTimersByTimeAsync(100)));
    };
    await settle(500);
    expect($(host, 'li[data-clar-id="7"][data-answered="0"]')).not.toBeNull();
    expect(unlabelledControls(host)).toEqual([]);
    const reads = () => f.calls.filter((c) => c.path.endsWith("/clarifications")).length;
    expect(reads()).toBe(1);
    // Staff answer meanwhile; the page asks again within the waiting interval.
    clars = [question({ answer: "Yes.", public: true, answered_at: new Date().toISOString() })];
    await settle(CLAR_POLL.waiting * 1.2 + 200);
    expect(reads()).toBe(2);
    const li = $(host, 'li[data-clar-id="7"]')!;
    expect(li.getAttribute("data-answered")).toBe("1");
    expect(li.classList.contains("clar-new")).toBe(true);
    expect(text($(host, '[data-testid="clar-news"]'))).toBe("1 new answer.");
    // Answered: back to the slow rate.
    await settle(CLAR_POLL.waiting * 1.2 + 200);
    expect(reads()).toBe(2);
    await settle(CLAR_POLL.idle * 1.2);
    expect(reads()).toBe(3);
    unmount();
  });
});

describe("unlabelledControls", () => {
  it("finds controls without a name", async () => {
    const { host, unmount } = await mount(
      <div>
        <label for="a">A</label>
        <input id="a" />
        <input id="b" />
        <label>
          C <input id="c" />
        </label>
        <input aria-label="D" />
        <select id="e" />
        <button type="button" />
        <button type="button">OK</button>
        <input type="hidden" />
      </div>,
    );
    await flush(1);
    expect(unlabelledControls(host)).toEqual(["input#b", "select#e", "button"]);
    unmount();
  });
});
