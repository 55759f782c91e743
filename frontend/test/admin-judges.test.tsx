// @vitest-environment jsdom
// The admin judges page: the judges and, per upcoming contest, how many
// connected judges hold its test data (GET /api/judges "warm").
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { AdminPage, loadJudges } from "../src/pages/admin";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, mount, text, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const judge = { name: "lab-1", connected: true, cores: 4, running: 1, created_at: "2026-03-01T09:00:00Z", revoked_at: null, last_seen_at: "2026-03-01T09:59:58Z" };
const warm = [
  { contest: "spring", contest_id: 3, starts_at: "2026-03-01T10:05:00Z", ends_at: "2026-03-01T13:00:00Z", warming: true, warm: 2, judges: 3 },
  { contest: "later", contest_id: 4, starts_at: "2026-03-01T12:00:00Z", ends_at: "2026-03-01T14:00:00Z", warming: false, warm: 0, judges: 3 },
];

describe("admin: judges", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("shows how many judges are warm for each upcoming contest", async () => {
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/judges": { judges: [judge], warm } }).fetch);
    const { host } = await mount(<AdminPage section="judges" />);
    const rows = await waitFor(() => ($$(host, "table.warm tbody tr").length === 2 ? $$(host, "table.warm tbody tr") : null), "warm rows");
    expect(rows.map((r) => r.getAttribute("data-contest"))).toEqual(["spring", "later"]);
    expect(text(rows[0])).toContain("2 of 3");
    expect(text(rows[0])).toContain("in progress");
    expect(text(rows[1])).toContain("0 of 3");
    expect(text(rows[1])).toContain("not yet");
    expect(text(host)).toContain("Judges ready for contests");
    expect(text($(host, "table.judges"))).toContain("lab-1");
    expect(unlabelledControls(host)).toEqual([]);
  });

  it("shows no warm section without upcoming contests, and tolerates an older web node", async () => {
    vi.stubGlobal("fetch", fakeAPI({ "GET /api/judges": { judges: [judge] } }).fetch);
    expect(await loadJudges()).toEqual({ judges: [judge], warm: [] });
    const { host } = await mount(<AdminPage section="judges" />);
    await waitFor(() => $(host, "table.judges"), "judges table");
    expect($(host, "table.warm")).toBeNull();
    expect(text(host)).not.toContain("Judges ready for contests");
  });
});
