// @vitest-environment jsdom
// The admin users section against a fake web node: the list with search,
// filters and "Load more", per-row role / enable / disable / edit with the
// API's field errors next to their controls, a reset password shown once,
// the CSV import still there; labels; both languages.
import { act } from "preact/test-utils";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type AdminUser } from "../src/api";
import { setLang } from "../src/i18n";
import { AdminPage, USER_SEARCH_DEBOUNCE_MS } from "../src/pages/admin";
import { session } from "../src/state";
import { fakeAPI, type Call } from "./fakeapi";
import { $, $$, choose, cleanup, click, flush, mount, submit, text, type, waitFor } from "./dom";

const me = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const setter = { id: 2, username: "setter", display_name: "Setter", role: "setter" as const, created_at: "2026-01-01T00:00:00Z" };

const user = (id: number, username: string, over: Partial<AdminUser> = {}): AdminUser => ({
  id,
  username,
  display_name: username[0]!.toUpperCase() + username.slice(1),
  email: `${username}@example.org`,
  role: "student",
  disabled: false,
  created_at: "2026-11-30T05:00:00.000Z",
  ...over,
});

/** A small user store behind GET/PUT /api/users, two per page. */
function usersAPI(extra: Record<string, object> = {}) {
  let users: AdminUser[] = [
    user(1, "admin", { role: "admin", email: "" }),
    user(2, "setter", { role: "setter" }),
    user(3, "alice"),
    user(4, "bob", { disabled: true }),
    user(5, "carol"),
  ];
  const f = fakeAPI({
    "GET /api/users": (c: Call) => {
      const q = c.query.get("q")?.toLowerCase() ?? "";
      const role = c.query.get("role");
      const disabled = c.query.get("disabled");
      const after = Number(c.query.get("cursor") ?? 0);
      const match = users.filter(
        (u) =>
          u.id > after &&
          (!q || u.username.startsWith(q) || u.display_name.toLowerCase().includes(q) || u.email.includes(q)) &&
          (!role || u.role === role) &&
          (disabled === null || String(u.disabled) === disabled),
      );
      const page = match.slice(0, 2);
      return { body: { users: page, next_cursor: match.length > 2 ? String(page[1]!.id) : null } };
    },
    ...Object.fromEntries(
      ["admin", "setter", "alice", "bob", "carol"].map((name) => [
        `PUT /api/users/${name}`,
        (c: Call) => {
          const patch = c.body as Partial<AdminUser>;
          if (name === "admin" && patch.role !== undefined) {
            return { status: 400, body: { error: { code: "validation", field: "role", message: "you cannot change your own role" } } };
          }
          if (name === "admin" && patch.disabled !== undefined) {
            return { status: 400, body: { error: { code: "validation", field: "disabled", message: "you cannot disable yourself" } } };
          }
          if (patch.email === "bob@example.org" && name !== "bob") {
            return { status: 400, body: { error: { code: "validation", field: "email", message: "email is already taken" } } };
          }
          users = users.map((u) => (u.username === name ? { ...u, ...patch } : u));
          return { body: { user: users.find((u) => u.username === name) } };
        },
      ]),
    ),
    ...extra,
  });
  return f;
}

const usernames = (host: HTMLElement) => $$(host, "tr[data-username]").map((r) => r.getAttribute("data-username"));
const listCalls = (calls: Call[]) => calls.filter((c) => c.method === "GET" && c.path === "/api/users");
const lastQuery = (calls: Call[]) => Object.fromEntries(listCalls(calls).at(-1)!.query);
const row = (host: HTMLElement, name: string) => $(host, `tr[data-username="${name}"]`)!;
const button = (root: Element, label: string) => $$(root, "button").find((b) => b.textContent === label) as HTMLButtonElement | undefined;
const status = (host: HTMLElement) => text($(host, '[data-testid="users-status"]'));

describe("admin: users", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-u");
    session.set({ loaded: true, user: me });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists users and loads more with next_cursor", async () => {
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");
    expect(lastQuery(f.calls)).toEqual({});
    expect(usernames(host)).toEqual(["admin", "setter"]);
    expect(status(host)).toBe("2 users shown; more are available.");
    expect(unlabelledControls(host)).toEqual([]);
    // The columns: username (with "you"), display name, e-mail, role, status, created.
    const heads = $$(host, ".users-table thead th").map((th) => th.textContent);
    expect(heads).toEqual(["Username", "Display name", "E-mail", "Role", "Status", "Created", "Actions"]);
    expect(text(row(host, "admin").querySelector("th"))).toBe("adminyou");
    expect(($(row(host, "setter"), "select") as HTMLSelectElement).value).toBe("setter");
    expect(text(row(host, "setter"))).toContain("setter@example.org");
    expect(text(row(host, "setter"))).toContain("Active");
    expect(text(row(host, "setter"))).toMatch(/2026-\d{2}-\d{2} \d{2}:\d{2} UTC/); // ISO order, with the zone
    // The table scrolls sideways inside its box on a phone.
    expect($(host, ".users-table")!.closest(".table-wrap")).not.toBeNull();

    const more = button(host, "Load more")!;
    more.focus();
    await click(more);
    await waitFor(() => usernames(host).length === 4, "second page");
    expect(lastQuery(f.calls)).toEqual({ cursor: "2" });
    expect(usernames(host)).toEqual(["admin", "setter", "alice", "bob"]);
    expect(text(row(host, "bob"))).toContain("Disabled");
    await click(button(host, "Load more")!);
    await waitFor(() => usernames(host).length === 5, "last page");
    expect(lastQuery(f.calls)).toEqual({ cursor: "4" });
    expect(button(host, "Load more")).toBeUndefined();
    expect(status(host)).toBe("5 users shown.");
    // The button went away under the keyboard: focus lands on the status line.
    await waitFor(() => document.activeElement?.getAttribute("data-testid") === "users-status", "focus kept near");
    unmount();
  });

  it("searches (on Enter, or once typing pauses) and filters by role and disabled", async () => {
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");

    await type($(host, "#u-q"), "ali");
    await submit($(host, "#u-q")!.closest("form"));
    await waitFor(() => usernames(host).join() === "alice", "search on Enter");
    expect(lastQuery(f.calls)).toEqual({ q: "ali" });
    expect(status(host)).toBe("1 user shown.");

    // Typing alone asks once, after the pause.
    const before = listCalls(f.calls).length;
    await type($(host, "#u-q"), "b");
    await type($(host, "#u-q"), "bo");
    await flush(2);
    expect(listCalls(f.calls).length).toBe(before);
    await act(async () => await new Promise((r) => setTimeout(r, USER_SEARCH_DEBOUNCE_MS + 50)));
    await waitFor(() => usernames(host).join() === "bob", "debounced search");
    expect(listCalls(f.calls).length).toBe(before + 1);
    expect(lastQuery(f.calls)).toEqual({ q: "bo" });

    await type($(host, "#u-q"), "");
    await choose($(host, "#u-role"), "setter");
    await waitFor(() => usernames(host).join() === "setter", "role filter");
    expect(lastQuery(f.calls)).toEqual({ role: "setter" });

    await choose($(host, "#u-role"), "");
    await click($(host, "#u-disabled"));
    await waitFor(() => usernames(host).join() === "bob", "disabled only");
    expect(lastQuery(f.calls)).toEqual({ disabled: "true" });

    await type($(host, "#u-q"), "zzz");
    await submit($(host, "#u-q")!.closest("form"));
    await waitFor(() => text(host).includes("No users match."), "empty");
    unmount();
  });

  it("changes a role, and shows the server's refusal next to the select", async () => {
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");

    await choose($(row(host, "setter"), "select"), "student");
    await waitFor(() => status(host).includes("setter was updated."), "updated");
    const put = f.calls.find((c) => c.method === "PUT")!;
    expect(put.path).toBe("/api/users/setter");
    expect(put.body).toEqual({ role: "student" });
    expect(put.headers["X-CSRF-Token"]).toBe("csrf-u");
    expect(($(row(host, "setter"), "select") as HTMLSelectElement).value).toBe("student");

    const sel = $(row(host, "admin"), "select") as HTMLSelectElement;
    expect(sel.getAttribute("aria-label")).toBe("Role of admin");
    await choose(sel, "student");
    await waitFor(() => $(row(host, "admin"), ".field-error"), "role error");
    const err = $(row(host, "admin"), ".field-error")!;
    expect(text(err)).toBe("you cannot change your own role");
    expect(sel.getAttribute("aria-invalid")).toBe("true");
    expect(sel.getAttribute("aria-describedby")).toBe(err.id);
    // Refused: the select shows the stored role again.
    expect(sel.value).toBe("admin");
    unmount();
  });

  it("disables (after confirming) and enables a user; refuses disabling oneself beside the button", async () => {
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");

    const toggle = button(row(host, "setter"), "Disable")!;
    expect(toggle.getAttribute("aria-label")).toBe("Disable setter");
    await click(toggle);
    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Disable setter?"));
    await flush();
    expect(f.calls.some((c) => c.method === "PUT")).toBe(false);

    confirm.mockReturnValue(true);
    await click(toggle);
    await waitFor(() => text(row(host, "setter")).includes("Disabled"), "disabled");
    expect(f.calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual([{ disabled: true }]);
    // The same button, now Enable, keeps focus-friendly identity.
    expect(toggle.textContent).toBe("Enable");
    const asked = confirm.mock.calls.length;
    await click(toggle);
    await waitFor(() => text(row(host, "setter")).includes("Active"), "enabled");
    expect(confirm.mock.calls.length).toBe(asked); // enabling needs no confirmation
    expect(f.calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual([{ disabled: true }, { disabled: false }]);

    await click(button(row(host, "admin"), "Disable")!);
    await waitFor(() => $(row(host, "admin"), ".field-error"), "disabled error");
    expect(text($(row(host, "admin"), ".field-error"))).toBe("you cannot disable yourself");
    expect(button(row(host, "admin"), "Disable")!.getAttribute("aria-describedby")).toBe($(row(host, "admin"), ".field-error")!.id);
    expect(text(row(host, "admin"))).toContain("Active");
    unmount();
  });

  it("resets a password after confirming and shows it once, with a copy button", async () => {
    const f = usersAPI({
      "POST /api/users/alice/password": { username: "alice", password: "Xq7-generated-16" },
    });
    vi.stubGlobal("fetch", f.fetch);
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");
    await click(button(host, "Load more")!);
    await waitFor(() => row(host, "alice"), "alice");

    const reset = button(row(host, "alice"), "Reset password")!;
    expect(reset.getAttribute("aria-label")).toBe("Reset the password of alice");
    await click(reset);
    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Reset the password of alice?"));
    await flush();
    expect(f.calls.some((c) => c.path.endsWith("/password"))).toBe(false);

    confirm.mockReturnValue(true);
    await click(reset);
    const panel = await waitFor(() => $(host, '[data-testid="reset-password"]'), "password panel");
    const post = f.calls.find((c) => c.path === "/api/users/alice/password")!;
    expect(post.method).toBe("POST");
    expect(post.body).toEqual({});
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-u");
    expect(text(panel)).toContain("will not be shown again");
    const shown = $$(host, "input").filter((i) => (i as HTMLInputElement).value === "Xq7-generated-16");
    expect(shown.length).toBe(1);
    expect(text($(host, 'label[for="reset-pw"]'))).toBe("New password for alice");
    expect((shown[0] as HTMLInputElement).readOnly).toBe(true);
    expect(document.activeElement).toBe(shown[0]);
    expect(unlabelledControls(host)).toEqual([]);

    await click(button(panel, "Copy")!);
    await waitFor(() => text(panel).includes("Copied."), "copied");
    expect(writeText).toHaveBeenCalledWith("Xq7-generated-16");

    // Hidden: gone for good, focus back on the row's button.
    await click(button(panel, "Done, hide the password")!);
    expect($(host, '[data-testid="reset-password"]')).toBeNull();
    expect($$(host, "input").some((i) => (i as HTMLInputElement).value === "Xq7-generated-16")).toBe(false);
    expect(host.innerHTML).not.toContain("Xq7-generated-16");
    expect(document.activeElement).toBe(reset);
    unmount();
    Reflect.deleteProperty(navigator, "clipboard");
  });

  it("offers the account page instead of a reset on one's own row", async () => {
    const f = usersAPI({});
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => row(host, "admin"), "admin row");
    expect(button(row(host, "admin"), "Reset password")).toBeFalsy();
    const link = row(host, "admin")!.querySelector('a[href="/account"]');
    expect(link?.textContent).toBe("Change password");
    expect(button(row(host, "setter"), "Reset password")).toBeTruthy();
    unmount();
  });

  it("says so when the password cannot be copied", async () => {
    const f = usersAPI({ "POST /api/users/setter/password": { username: "setter", password: "pw-0123456789abc" } });
    vi.stubGlobal("fetch", f.fetch);
    vi.stubGlobal("confirm", () => true);
    Object.defineProperty(navigator, "clipboard", { value: { writeText: () => Promise.reject(new Error("denied")) }, configurable: true });
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => row(host, "setter"), "setter row");
    await click(button(row(host, "setter"), "Reset password")!);
    const panel = await waitFor(() => $(host, '[data-testid="reset-password"]'), "panel");
    await click(button(panel, "Copy")!);
    await waitFor(() => text(panel).includes("Could not copy"), "copy failed");
    unmount();
    Reflect.deleteProperty(navigator, "clipboard");
  });

  it("edits a display name and e-mail, sending only what changed, with the e-mail error beside it", async () => {
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");

    const edit = button(row(host, "setter"), "Edit")!;
    expect(edit.getAttribute("aria-expanded")).toBe("false");
    await click(edit);
    const form = await waitFor(() => $(host, "#u-editrow-2 form"), "edit form");
    expect(edit.getAttribute("aria-expanded")).toBe("true");
    await waitFor(() => document.activeElement?.id === "u-2-display_name", "focus in the form");
    expect(($(form, "#u-2-email") as HTMLInputElement).value).toBe("setter@example.org");
    expect(unlabelledControls(host)).toEqual([]);

    await type($(form, "#u-2-email"), "bob@example.org");
    await submit(form);
    await waitFor(() => $(form, "#u-2-email-err"), "email error");
    expect(text($(form, "#u-2-email-err"))).toBe("email is already taken");
    expect($(form, "#u-2-email")!.getAttribute("aria-invalid")).toBe("true");
    expect($(form, "#u-2-display_name-err")).toBeNull();
    expect(f.calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual([{ email: "bob@example.org" }]);

    await type($(form, "#u-2-display_name"), "Sam Setter");
    await type($(form, "#u-2-email"), "");
    await submit(form);
    await waitFor(() => !$(host, "#u-editrow-2"), "form closed");
    expect(f.calls.filter((c) => c.method === "PUT").at(-1)!.body).toEqual({ display_name: "Sam Setter", email: "" });
    expect(text(row(host, "setter"))).toContain("Sam Setter");
    expect(text(row(host, "setter"))).not.toContain("setter@example.org");
    expect(status(host)).toContain("setter was updated.");
    expect(document.activeElement).toBe(edit);

    // Escape closes the form without sending.
    await click(edit);
    const again = await waitFor(() => $(host, "#u-editrow-2 form"), "edit form again");
    const puts = f.calls.filter((c) => c.method === "PUT").length;
    await act(() => {
      $(again, "#u-2-display_name")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect($(host, "#u-editrow-2")).toBeNull();
    expect(f.calls.filter((c) => c.method === "PUT").length).toBe(puts);
    unmount();
  });

  it("keeps the CSV import, and reads the list again after it", async () => {
    const f = usersAPI({
      "POST /api/users/import": { created: 2, updated: 0, passwords: { dave: "pw-dave-1234567", erin: "pw-erin-1234567" } },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");
    expect(text(host)).toContain("Import users (CSV)");
    const file = $(host, "#u-file")!;
    await act(() => {
      Object.defineProperty(file, "files", { value: [new File(["username\ndave\nerin\n"], "u.csv", { type: "text/csv" })], configurable: true });
      file.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await submit(file.closest("form"));
    await waitFor(() => text(host).includes("Imported: 2 created, 0 updated."), "imported");
    expect(text(host)).toContain("pw-dave-1234567");
    const post = f.calls.find((c) => c.path === "/api/users/import")!;
    expect((post.form!.get("file") as File).name).toBe("u.csv");
    await waitFor(() => listCalls(f.calls).length === 2, "list read again");
    unmount();
  });

  it("shows a setter only the import (the list is for admins)", async () => {
    session.set({ loaded: true, user: setter });
    const f = usersAPI();
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await flush();
    expect($(host, "#u-file")).not.toBeNull();
    expect($(host, ".users-table")).toBeNull();
    expect($(host, "#u-q")).toBeNull();
    expect(listCalls(f.calls).length).toBe(0);
    unmount();
  });

  it("speaks Simplified Chinese", async () => {
    setLang("zh");
    vi.stubGlobal("fetch", usersAPI().fetch);
    const { host, unmount } = await mount(<AdminPage section="users" />);
    await waitFor(() => usernames(host).length === 2, "first page");
    expect(text(host)).toContain("账号列表");
    expect(text($(host, 'label[for="u-q"]'))).toBe("搜索");
    expect(text($(host, "#u-role option"))).toBe("全部角色");
    expect(status(host)).toBe("已显示 2 个用户，还有更多。");
    expect(text(row(host, "setter"))).toContain("出题人");
    expect(button(row(host, "setter"), "重置密码")).toBeDefined();
    expect(button(host, "加载更多")).toBeDefined();
    expect(unlabelledControls(host)).toEqual([]);
    unmount();
  });
});
