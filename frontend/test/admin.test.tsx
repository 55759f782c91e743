// @vitest-environment jsdom
// The admin contest form (registration, visibility) and the participants
// editor against a fake web node; every control has a label.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { AdminPage, contestBody, contestForm } from "../src/pages/admin";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, choose, cleanup, click, flush, mount, submit, text, type, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };

describe("admin: contests", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("creates a by-list contest, then adds and removes participants", async () => {
    let participants = [{ user_id: 5, username: "bob", registered_at: "2026-03-01T10:00:00Z" }];
    const f = fakeAPI({
      "GET /api/contests": { contests: [] },
      "POST /api/contests": (c) => ({ status: 201, body: { contest: { ...(c.body as object), id: 9 }, problems: [] } }),
      "GET /api/contests/cup/participants": () => ({ body: { participants } }),
      "POST /api/contests/cup/participants": (c) => {
        const names = (c.body as { usernames: string[] }).usernames;
        const unknown = names.filter((n) => n.startsWith("nobody"));
        if (unknown.length) return { status: 422, body: { error: { code: "validation", message: "unknown users", field: "usernames", unknown } } };
        const added = names.filter((n) => !participants.some((p) => p.username === n));
        participants = [...participants, ...added.map((n, i) => ({ user_id: 10 + i, username: n, registered_at: "2026-03-01T11:00:00Z" }))];
        return { body: { added: added.length, already: names.length - added.length } };
      },
      "DELETE /api/contests/cup/participants/bob": () => {
        participants = participants.filter((p) => p.username !== "bob");
        return { status: 204 };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="contests" />);
    await flush();
    expect(unlabelledControls(host)).toEqual([]);
    expect($(host, "#c-registration")).not.toBeNull();
    expect(($(host, "#c-visible") as HTMLInputElement).checked).toBe(true);

    await type($(host, "#c-slug"), "cup");
    await type($(host, "#c-title"), "Cup");
    await type($(host, "#c-start"), "2026-03-01T10:00");
    await type($(host, "#c-end"), "2026-03-01T15:00");
    await choose($(host, "#c-registration"), "list");
    expect($(host, "#c-feedback-after")).toBeNull();
    await choose($(host, "#c-feedback"), "closed");
    // closed asks what to show once the contest ended (never closed again).
    const after = $(host, "#c-feedback-after") as HTMLSelectElement;
    expect([...after.options].map((o) => o.value)).toEqual(["full", "first_failure", "score_only"]);
    await choose(after, "score_only");
    await click($(host, "#c-visible"));
    expect(text(host)).toContain("Only users on the participants list take part");
    await submit($(host, "#c-slug")!.closest("form"));
    await waitFor(() => text(host).includes("Saved."), "saved");
    const post = f.calls.find((c) => c.method === "POST" && c.path === "/api/contests")!;
    expect(post.body).toMatchObject({ slug: "cup", title: "Cup", registration: "list", feedback: "closed", feedback_after: "score_only", visible: false, problems: [] });
    expect(post.headers["X-CSRF-Token"]).toBe("csrf-1");

    // The participants editor appears for the saved contest.
    await waitFor(() => $(host, 'tr[data-username="bob"]'), "bob listed");
    expect(unlabelledControls(host)).toEqual([]);
    // Not usernames: refused here, nothing sent.
    const before = f.calls.length;
    await type($(host, "#pt-add"), "carol, x!");
    await submit($(host, "#pt-add")!.closest("form"));
    expect(text(host)).toContain("Not valid usernames: x!");
    expect(f.calls.length).toBe(before);
    // Unknown users: the server's list is shown, the text is kept.
    await type($(host, "#pt-add"), "carol nobody1\nnobody2");
    await submit($(host, "#pt-add")!.closest("form"));
    await waitFor(() => $(host, '[data-testid="pt-unknown"]'), "unknown users shown");
    expect(text($(host, '[data-testid="pt-unknown"]'))).toContain("nobody1, nobody2");
    expect(($(host, "#pt-add") as HTMLTextAreaElement).value).toBe("carol nobody1\nnobody2");
    expect($(host, 'tr[data-username="carol"]')).toBeNull();
    // Fixed: added; the list is read again.
    await type($(host, "#pt-add"), "Carol bob");
    await submit($(host, "#pt-add")!.closest("form"));
    await waitFor(() => $(host, 'tr[data-username="carol"]'), "carol listed");
    expect(text(host)).toContain("Added 1; 1 already on the list.");
    expect(($(host, "#pt-add") as HTMLTextAreaElement).value).toBe("");
    // Remove bob.
    await click($(host, 'tr[data-username="bob"] button'));
    await waitFor(() => !$(host, 'tr[data-username="bob"]'), "bob removed");
    expect(text(host)).toContain("bob was removed.");
    const del = f.calls.find((c) => c.method === "DELETE")!;
    expect(del.headers["X-CSRF-Token"]).toBe("csrf-1");
    expect($$(host, "tr[data-username]").map((r) => r.getAttribute("data-username"))).toEqual(["carol"]);
    unmount();
  });

  it("loads an existing contest with its registration and visibility", async () => {
    const f = fakeAPI({
      "GET /api/contests": { contests: [{ slug: "hidden", title: "Hidden" }] },
      "GET /api/contests/hidden": {
        contest: { id: 4, slug: "hidden", title: "Hidden", rule: "ioi", start_at: "2026-03-01T10:00:00Z", end_at: "2026-03-01T15:00:00Z", freeze_minutes: 0, registration: "list", visible: false },
        problems: [{ label: "A", slug: "sum", title: "Sum", points: 50 }],
      },
      "GET /api/contests/hidden/participants": { participants: [] },
      "PUT /api/contests/hidden": (c) => ({ body: { contest: c.body, problems: [] } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="contests" />);
    await flush();
    await waitFor(() => $(host, '#c-existing option[value="hidden"]'), "datalist");
    await type($(host, "#c-lookup"), "hidden");
    await submit($(host, "#c-lookup")!.closest("form"));
    await waitFor(() => ($(host, "#c-slug") as HTMLInputElement).value === "hidden", "loaded");
    expect(($(host, "#c-registration") as HTMLSelectElement).value).toBe("list");
    expect(($(host, "#c-visible") as HTMLInputElement).checked).toBe(false);
    expect(($(host, "#c-problems") as HTMLTextAreaElement).value).toBe("A sum 50");
    await waitFor(() => text(host).includes("No participants yet."), "empty participants");
    await choose($(host, "#c-registration"), "open");
    await submit($(host, "#c-slug")!.closest("form"));
    await waitFor(() => f.calls.some((c) => c.method === "PUT"), "PUT");
    expect(f.calls.find((c) => c.method === "PUT")!.body).toMatchObject({ registration: "open", visible: false, problems: [{ label: "A", slug: "sum", points: 50 }] });
    unmount();
  });
});

describe("admin: problems", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("sets a problem's practice feedback policy, never closed, and shows the field error", async () => {
    const f = fakeAPI({
      "GET /api/problems": { problems: [] },
      "POST /api/problems": () => ({ status: 400, body: { error: { code: "validation", message: "feedback must be full, first_failure or score_only", field: "feedback" } } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host, unmount } = await mount(<AdminPage section="problems" />);
    await flush();
    expect(unlabelledControls(host)).toEqual([]);
    const sel = $(host, "#p-feedback") as HTMLSelectElement;
    expect([...sel.options].map((o) => o.value)).toEqual(["full", "first_failure", "score_only"]);
    expect(sel.value).toBe("full");
    await type($(host, "#p-slug"), "sum");
    await type($(host, "#p-title"), "Sum");
    await choose(sel, "first_failure");
    await submit($(host, "#p-slug")!.closest("form"));
    await waitFor(() => text(host).includes("feedback must be"), "field error");
    expect(f.calls.find((c) => c.method === "POST" && c.path === "/api/problems")!.body).toMatchObject({ slug: "sum", feedback: "first_failure" });
    unmount();
  });
});

describe("contestForm / contestBody", () => {
  it("round-trips registration and visibility", () => {
    const f = contestForm({
      slug: "c",
      title: "C",
      rule: "icpc",
      start_at: "2026-03-01T10:00:00Z",
      end_at: "2026-03-01T15:00:00Z",
      freeze_minutes: 30,
      registration: "list",
      visible: false,
      problems: [],
      id: 1,
      time_zone: "UTC",
      feedback: "full",
      feedback_after: "full",
      phase: "upcoming",
    });
    expect(f).toMatchObject({ registration: "list", visible: false, freeze_minutes: "30" });
    const b = contestBody(f, []);
    expect(b).toMatchObject({ registration: "list", visible: false, freeze_minutes: 30, start_at: "2026-03-01T10:00:00.000Z" });
    expect(contestBody(contestForm({ ...b, feedback: "first_failure", feedback_after: "score_only" } as never), [])).toMatchObject({
      feedback: "first_failure",
      feedback_after: "score_only",
    });
    expect(b).toMatchObject({ feedback: "full", feedback_after: "full" });
    // A contest from a node that does not send them: open and visible.
    expect(contestForm({ ...b, rule: "icpc", registration: undefined, visible: undefined } as never)).toMatchObject({ registration: "open", visible: true });
  });
});
