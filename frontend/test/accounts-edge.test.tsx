// @vitest-environment jsdom
// Issue 15, accounts and the edge: the register page in each registration
// mode, the admin settings section that sets the mode, and the contest
// form's time zone (times typed in ISO order as wall times in the
// contest's zone, sent as RFC 3339).
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type Contest } from "../src/api";
import { setLang } from "../src/i18n";
import { AdminPage, contestBody, contestForm } from "../src/pages/admin";
import { RegisterPage } from "../src/pages/auth";
import { parseDomains } from "../src/pages/admin/settings";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, cleanup, click, flush, mount, submit, text, type, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const setter = { id: 3, username: "sam", display_name: "Sam", role: "setter" as const, created_at: "2026-01-01T00:00:00Z" };

afterAll(async () => {
  await new Promise((r) => setTimeout(r, 250));
});
beforeEach(() => {
  setLang("en");
  setCsrfToken("csrf-1");
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("register page: the registration mode", () => {
  const page = async (mode: object) => {
    session.set({ loaded: true, user: null });
    const f = fakeAPI({
      "GET /api/settings/registration": mode,
      "POST /api/users": (c) =>
        (c.body as { email?: string }).email?.endsWith("@uni.edu")
          ? { status: 201, body: { user: { id: 5, username: "new", display_name: "new", role: "student" as const, created_at: "2026-01-01T00:00:00Z" } } }
          : { status: 400, body: { error: { code: "validation", message: "email registration is open only to e-mail addresses at uni.edu", field: "email" } } },
      "POST /api/session": { user: { id: 5, username: "new", display_name: "new", role: "student" as const, created_at: "2026-01-01T00:00:00Z" }, csrf_token: "t" },
    });
    vi.stubGlobal("fetch", f.fetch);
    const m = await mount(<RegisterPage query={new URLSearchParams()} />);
    await flush();
    return { ...m, f };
  };

  it("open: the form, e-mail optional", async () => {
    const { host } = await page({ mode: "open", domains: [] });
    expect($(host, "form")).not.toBeNull();
    expect(($(host, "#email") as HTMLInputElement).required).toBe(false);
    expect($(host, '[data-testid="registration-closed"]')).toBeNull();
    expect(unlabelledControls(host)).toEqual([]);
  });

  it("closed: says so, no form", async () => {
    const { host } = await page({ mode: "closed", domains: ["uni.edu"] });
    expect(text($(host, '[data-testid="registration-closed"]'))).toContain("Registration is closed");
    expect($(host, "form")).toBeNull();
  });

  it("domains: names them, e-mail required, the API's field error by the field", async () => {
    const { host, f } = await page({ mode: "domains", domains: ["school.org", "uni.edu"] });
    expect(text($(host, '[data-testid="registration-domains"]'))).toContain("school.org, uni.edu");
    const email = $(host, "#email") as HTMLInputElement;
    expect(email.required).toBe(true);
    expect(text(host.querySelector('label[for="email"]'))).toContain("uni.edu");
    await type($(host, "#username"), "new");
    await type($(host, "#password"), "password1");
    await type(email, "me@example.org");
    await submit($(host, "form"));
    await waitFor(() => text($(host, "#email-err")), "the field error");
    expect(text($(host, "#email-err"))).toContain("uni.edu");
    expect(f.calls.find((c) => c.method === "POST" && c.path === "/api/users")!.body).toMatchObject({ email: "me@example.org" });
  });
});

describe("admin settings: the registration mode", () => {
  it("shows the mode, saves a domain list, shows a field error", async () => {
    session.set({ loaded: true, user: admin });
    let stored = { mode: "open", domains: [] as string[] };
    const f = fakeAPI({
      "GET /api/settings/registration": () => ({ body: stored }),
      "PUT /api/settings/registration": (c) => {
        const b = c.body as { mode: string; domains: string[] };
        if (b.domains.some((d) => !d.includes("."))) return { status: 400, body: { error: { code: "validation", message: 'domains "uni" is not a domain name', field: "domains" } } };
        stored = { mode: b.mode, domains: b.domains.map((d) => d.toLowerCase()) };
        return { body: stored };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<AdminPage section="settings" />);
    await waitFor(() => $(host, '[data-testid="registration-current"]'), "the current mode");
    expect(text($(host, '[data-testid="registration-current"]'))).toContain("Anyone");
    expect(unlabelledControls(host)).toEqual([]);

    await click($(host, 'input[name="reg-mode"][value="domains"]'));
    await type($(host, "#reg-domains"), "uni");
    await submit($(host, "#reg-domains")!.closest("form"));
    await waitFor(() => text($(host, "#reg-domains-err")), "the domains error");
    expect(text($(host, "#reg-domains-err"))).toContain("not a domain");

    await type($(host, "#reg-domains"), "Uni.edu\nschool.org, cs.uni.edu");
    await submit($(host, "#reg-domains")!.closest("form"));
    await waitFor(() => text(host).includes("Saved."), "saved");
    const put = f.calls.filter((c) => c.method === "PUT").at(-1)!;
    expect(put.body).toEqual({ mode: "domains", domains: ["Uni.edu", "school.org", "cs.uni.edu"] });
    expect(put.headers["X-CSRF-Token"]).toBe("csrf-1");
    expect(text($(host, '[data-testid="registration-current"]'))).toContain("uni.edu, school.org, cs.uni.edu");
  });

  it("setters are told only admins change it", async () => {
    session.set({ loaded: true, user: setter });
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/settings/registration": { mode: "open", domains: [] } }).fetch);
    const { host } = await mount(<AdminPage section="settings" />);
    await flush();
    expect(text(host)).toContain("Only admins change the registration mode.");
    expect($(host, "#reg-domains")).toBeNull();
  });

  it("parses a pasted domain list", () => {
    expect(parseDomains(" uni.edu\n\nschool.org,cs.uni.edu ; x.org ")).toEqual(["uni.edu", "school.org", "cs.uni.edu", "x.org"]);
    expect(parseDomains("")).toEqual([]);
  });
});

describe("contest form: the contest's time zone", () => {
  const contest = {
    slug: "c",
    title: "C",
    rule: "icpc" as const,
    start_at: "2026-03-01T10:00:00+01:00",
    end_at: "2026-03-01T15:00:00+01:00",
    time_zone: "Europe/Berlin",
    freeze_minutes: 0,
    registration: "open" as const,
    problems: [],
    id: 1,
    feedback: "full" as const,
    feedback_after: "full" as const,
    phase: "upcoming" as const,
  };
  it("shows the times as wall times in the contest's zone, sends RFC 3339", () => {
    const f = contestForm(contest);
    expect(f).toMatchObject({ start_at: "2026-03-01 10:00", end_at: "2026-03-01 15:00", time_zone: "Europe/Berlin" });
    expect(contestBody(f, [])).toMatchObject({ start_at: "2026-03-01T09:00:00.000Z", end_at: "2026-03-01T14:00:00.000Z", time_zone: "Europe/Berlin" });
    // Another zone: the same wall times are other instants.
    expect(contestBody({ ...f, time_zone: "Asia/Shanghai" }, [])).toMatchObject({ start_at: "2026-03-01T02:00:00.000Z" });
    // A contest from a node that sends no zone: UTC.
    // (The spec requires time_zone; the form still reads an answer without one.)
    expect(contestForm({ ...contest, time_zone: undefined, start_at: "2026-03-01T10:00:00Z" } as unknown as Contest)).toMatchObject({ start_at: "2026-03-01 10:00", time_zone: "UTC" });
  });

  it("labels each time field with the zone and its offset; no locale-ordered picker", async () => {
    session.set({ loaded: true, user: admin });
    const f = fakeAPI({
      "GET /api/contests": { contests: [] },
      "POST /api/contests": (c) => ({ status: 201, body: { contest: { ...(c.body as object), id: 9 }, problems: [] } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<AdminPage section="contests" />);
    await flush();
    expect(unlabelledControls(host)).toEqual([]);
    expect(($(host, "#c-start") as HTMLInputElement).type).not.toBe("datetime-local");
    await type($(host, "#c-zone"), "America/New_York");
    await type($(host, "#c-slug"), "cup");
    await type($(host, "#c-title"), "Cup");
    await type($(host, "#c-start"), "2026-07-01 09:00");
    await type($(host, "#c-end"), "2026-07-01 14:00");
    expect(text(host.querySelector('label[for="c-start"]'))).toBe("Start (America/New_York, UTC−04:00)");
    expect(text(host.querySelector('label[for="c-zone"]'))).toContain("Time zone");
    await submit($(host, "#c-slug")!.closest("form"));
    await waitFor(() => f.calls.find((c) => c.method === "POST" && c.path === "/api/contests"), "the POST");
    expect(f.calls.find((c) => c.method === "POST" && c.path === "/api/contests")!.body).toMatchObject({
      time_zone: "America/New_York",
      start_at: "2026-07-01T13:00:00.000Z",
      end_at: "2026-07-01T18:00:00.000Z",
    });
  });
});
