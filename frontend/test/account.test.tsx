// @vitest-environment jsdom
// The account page's "Change password" form against a fake web node: the
// new session's CSRF token replaces the old one, the two new passwords are
// compared here, the API's field errors sit next to their fields, a 429
// says how long to wait; the header links to the page; both languages.
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { api, retryAfterSeconds, setCsrfToken } from "../src/api";
import { App } from "../src/app";
import { setLang } from "../src/i18n";
import { AccountPage } from "../src/pages/account";
import { session } from "../src/state";
import { waitTime } from "../src/ui";
import { fakeAPI } from "./fakeapi";
import { $, cleanup, flush, mount, submit, text, type, waitFor } from "./dom";

const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const form = (host: HTMLElement) => $(host, '[data-testid="password-form"]');

async function fill(host: HTMLElement, current: string, next: string, confirm: string) {
  await type($(host, "#current_password"), current);
  await type($(host, "#new_password"), next);
  await type($(host, "#confirm_password"), confirm);
}

describe("account: change password", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("old-token");
    session.set({ loaded: true, user: alice });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("has labelled inputs with the right autocomplete", async () => {
    vi.stubGlobal("fetch", fakeAPI({}).fetch);
    const { host, unmount } = await mount(<AccountPage />);
    expect(text($(host, "h1"))).toBe("Account");
    expect(text($(host, "h2"))).toBe("Change password");
    expect(unlabelledControls(host)).toEqual([]);
    expect(text($(host, 'label[for="current_password"]'))).toBe("Current password");
    expect(text($(host, 'label[for="new_password"]'))).toBe("New password");
    expect(text($(host, 'label[for="confirm_password"]'))).toBe("Confirm new password");
    expect($(host, "#current_password")!.getAttribute("autocomplete")).toBe("current-password");
    expect($(host, "#new_password")!.getAttribute("autocomplete")).toBe("new-password");
    expect($(host, "#confirm_password")!.getAttribute("autocomplete")).toBe("new-password");
    for (const id of ["current_password", "new_password", "confirm_password"]) expect(($(host, `#${id}`) as HTMLInputElement).type).toBe("password");
    // The account it belongs to, for password managers.
    expect(($(host, 'input[autocomplete="username"]') as HTMLInputElement).value).toBe("alice");
    // Native controls in the tab order; a real submit button (Enter submits).
    expect(form(host)!.querySelectorAll('[tabindex="-1"]').length).toBe(0);
    expect(form(host)!.querySelector('button[type="submit"]')).not.toBeNull();
    unmount();
  });

  it("changes the password and keeps the new session's CSRF token and user", async () => {
    const f = fakeAPI({
      "POST /api/me/password": () => ({ body: { user: { ...alice, display_name: "Alice L." }, csrf_token: "new-token" } }),
      "DELETE /api/session": () => ({ status: 204 }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AccountPage />);
    await fill(host, "old secret", "brand new secret", "brand new secret");
    await submit(form(host));
    await waitFor(() => text(host).includes("Your password was changed."), "success message");
    const post = f.calls.find((c) => c.path === "/api/me/password")!;
    expect(post.method).toBe("POST");
    expect(post.body).toEqual({ current_password: "old secret", new_password: "brand new secret" });
    expect(post.headers["X-CSRF-Token"]).toBe("old-token");
    // The session store has the answer's user; the fields are cleared.
    expect(session.get().user?.display_name).toBe("Alice L.");
    for (const id of ["current_password", "new_password", "confirm_password"]) expect(($(host, `#${id}`) as HTMLInputElement).value).toBe("");
    expect(text($(host, '[role="status"]'))).toContain("every other session was logged out");
    // The next write carries the new token.
    await api.logout();
    expect(f.calls.at(-1)!.headers["X-CSRF-Token"]).toBe("new-token");
    unmount();
  });

  it("checks the confirmation here and sends nothing when it differs", async () => {
    const f = fakeAPI({});
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AccountPage />);
    await fill(host, "old secret", "brand new secret", "brand new secreT");
    await submit(form(host));
    await flush();
    expect(f.calls.length).toBe(0);
    expect(text($(host, "#confirm_password-err"))).toBe("The two new passwords do not match.");
    expect($(host, "#confirm_password")!.getAttribute("aria-invalid")).toBe("true");
    expect($(host, "#confirm_password")!.getAttribute("aria-describedby")).toBe("confirm_password-err");
    expect(document.activeElement?.id).toBe("confirm_password");
    // Fixed as the user types: the message goes away.
    await type($(host, "#confirm_password"), "brand new secret");
    expect($(host, "#confirm_password-err")).toBeNull();
    unmount();
  });

  it("shows the API's field errors next to their fields", async () => {
    const answers = [
      { status: 400, body: { error: { code: "validation", field: "current_password", message: "current_password is wrong" } } },
      { status: 400, body: { error: { code: "validation", field: "new_password", message: "password must be at least 8 characters long" } } },
    ];
    const f = fakeAPI({ "POST /api/me/password": () => answers.shift() });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AccountPage />);
    await fill(host, "guess", "brand new secret", "brand new secret");
    await submit(form(host));
    await waitFor(() => $(host, "#current_password-err"), "current password error");
    expect(text($(host, "#current_password-err"))).toBe("current_password is wrong");
    expect($(host, "#current_password")!.getAttribute("aria-invalid")).toBe("true");
    expect($(host, "#new_password-err")).toBeNull();
    expect(form(host)!.querySelector('[role="alert"]')).toBeNull();
    expect(document.activeElement?.id).toBe("current_password");
    expect(text(host)).not.toContain("Your password was changed.");
    // The session keeps its token.
    expect(session.get().user).toEqual(alice);

    await fill(host, "old secret", "short", "short");
    await submit(form(host));
    await waitFor(() => $(host, "#new_password-err"), "new password error");
    expect(text($(host, "#new_password-err"))).toContain("at least 8 characters");
    expect($(host, "#new_password")!.getAttribute("aria-describedby")).toBe("new_password-err new_password-hint");
    expect($(host, "#current_password-err")).toBeNull();
    unmount();
  });

  it("says how long to wait after too many wrong passwords (429)", async () => {
    const answers = [
      { status: 429, headers: { "Retry-After": "840" }, body: { error: { code: "rate_limited", message: "too many attempts" } } },
      { status: 429, body: { error: { code: "rate_limited", message: "too many attempts" } } },
    ];
    vi.stubGlobal("fetch", fakeAPI({ "POST /api/me/password": () => answers.shift() }).fetch);
    const { host, unmount } = await mount(<AccountPage />);
    await fill(host, "guess", "brand new secret", "brand new secret");
    await submit(form(host));
    const alert = await waitFor(() => $(host, '[data-testid="rate-limited"]'), "rate limit message");
    expect(alert.getAttribute("role")).toBe("alert");
    expect(text(alert)).toBe("Too many wrong passwords. Try again in 14 min.");
    expect($(host, "#current_password-err")).toBeNull();
    // Without a Retry-After: still a sentence.
    await submit(form(host));
    await waitFor(() => text($(host, '[data-testid="rate-limited"]')).includes("later"), "no Retry-After");
    expect(text($(host, '[data-testid="rate-limited"]'))).toBe("Too many wrong passwords. Try again later.");
    unmount();
  });

  it("speaks Simplified Chinese", async () => {
    setLang("zh");
    vi.stubGlobal(
      "fetch",
      fakeAPI({ "POST /api/me/password": () => ({ status: 429, headers: { "Retry-After": "30" }, body: { error: { code: "rate_limited", message: "x" } } }) }).fetch,
    );
    const { host, unmount } = await mount(<AccountPage />);
    expect(text($(host, "h1"))).toBe("我的账户");
    expect(text($(host, 'label[for="current_password"]'))).toBe("当前密码");
    expect(text($(host, 'label[for="confirm_password"]'))).toBe("确认新密码");
    await fill(host, "a", "bbbbbbbb", "cccccccc");
    await submit(form(host));
    expect(text($(host, "#confirm_password-err"))).toBe("两次输入的新密码不一致。");
    await fill(host, "a", "bbbbbbbb", "bbbbbbbb");
    await submit(form(host));
    await waitFor(() => $(host, '[data-testid="rate-limited"]'), "rate limit");
    expect(text($(host, '[data-testid="rate-limited"]'))).toBe("密码错误次数过多，请 30 秒后再试。");
    unmount();
  });

  it("asks a visitor to log in", async () => {
    session.set({ loaded: true, user: null });
    const { host, unmount } = await mount(<AccountPage />);
    expect(text(host)).toContain("Log in to manage your account.");
    expect($(host, 'a[href="/login?next=%2Faccount"]')).not.toBeNull();
    expect(form(host)).toBeNull();
    unmount();
  });
});

describe("account: the header links to it", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    setLang("en");
  });

  it("turns the user's name into a link to /account, which routes to the page", async () => {
    setLang("en");
    vi.stubGlobal("fetch", fakeAPI({}).fetch);
    session.set({ loaded: true, user: alice });
    history.replaceState(null, "", "/account");
    const host = document.createElement("div");
    document.body.appendChild(host);
    await act(() => render(<App />, host));
    await flush();
    const link = host.querySelector("a.whoami")!;
    expect(link.getAttribute("href")).toBe("/account");
    expect(link.textContent).toBe("Alice (account settings)");
    expect(link.getAttribute("aria-current")).toBe("page");
    expect(host.querySelector("h1")?.textContent).toBe("Account");
    render(null, host);
    host.remove();
  });
});

describe("waitTime / retryAfterSeconds", () => {
  it("names a wait the way people say it, never shorter", () => {
    setLang("en");
    expect(waitTime(1)).toBe("1 s");
    expect(waitTime(59)).toBe("59 s");
    expect(waitTime(60)).toBe("1 min");
    expect(waitTime(61)).toBe("2 min");
    expect(waitTime(3600)).toBe("1 h");
    expect(waitTime(5400)).toBe("1 h 30 min");
    setLang("zh");
    expect(waitTime(900)).toBe("15 分钟");
    setLang("en");
  });
  it("reads seconds or an HTTP date", () => {
    const now = Date.parse("2026-11-30T05:00:00Z");
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds("0", now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds("Mon, 30 Nov 2026 05:02:00 GMT", now)).toBe(120);
    expect(retryAfterSeconds("Mon, 30 Nov 2026 04:00:00 GMT", now)).toBeUndefined();
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds("1.5", now)).toBe(2);
  });
});
