// @vitest-environment jsdom
// The awards page: the public see the final awards and standings once
// there are any; staff edit an award (remove a team, add one), and an
// admin finalizes only when nothing stands in the way.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { AwardsPage, awardOf } from "../src/pages/awards";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, choose, cleanup, click, mount, text, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const alice = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const award = (id: string, citation: string, team_ids: string[]) => ({ id, citation, team_ids });
const teams = [{ id: "1", name: "Alice" }, { id: "2", name: "Bob" }];
const board = {
  rule: "icpc", frozen: false,
  rows: [
    { rank: 1, user: "alice", user_id: 1, display_name: "Alice", solved: 2, penalty: 50, score: 0, problems: {} },
    { rank: 2, user: "bob", user_id: 2, display_name: "Bob", solved: 0, penalty: 0, score: 0, problems: {} },
  ],
};

describe("awards page", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("names each team's medal", () => {
    const as = [award("gold-medal", "Gold medal winner", ["1"]), award("honorable-mention", "Honorable mention", ["2"])];
    expect(awardOf(as, "1")).toBe("Gold medal winner");
    expect(awardOf(as, "2")).toBe("Honorable mention");
    expect(awardOf(as, "3")).toBe("");
  });

  it("shows the public nothing before the awards, then the awards and the standings", async () => {
    session.set({ loaded: true, user: alice });
    let doc = { awards: [] as ReturnType<typeof award>[], final: false, finalized_at: null as string | null, teams: [] as typeof teams };
    const f = fakeAPI({ "GET /api/contests/cup/awards": () => ({ body: doc }), "GET /api/contests/cup/scoreboard": { ...board } });
    vi.stubGlobal("fetch", f.fetch);
    const first = await mount(<AwardsPage slug="cup" />);
    await waitFor(() => text(first.host).includes("shown once the contest is over") || null, "the not-yet notice");
    expect(f.calls.some((c) => c.path.endsWith("/finalize"))).toBe(false);
    first.unmount();
    doc = { awards: [award("winner", "Contest winner", ["1"]), award("gold-medal", "Gold medal winner", ["1"])], final: true,
      finalized_at: "2026-06-25T15:10:00.000+00:00", teams };
    const { host } = await mount(<AwardsPage slug="cup" />);
    await waitFor(() => $$(host, "[data-testid=final-standings] tbody tr").length === 2 || null, "the standings");
    expect(text($(host, "[data-award=winner]")!)).toContain("Alice");
    expect(text($(host, "[data-testid=final-standings] tbody tr")!)).toContain("Gold medal winner");
    expect(text(host)).toContain("finalized 2026-06-25");
    expect($(host, "[data-award=winner] input")).toBeNull(); // no editing for the public
    expect($(host, "[data-testid=awards-print]")).not.toBeNull();
  });

  it("lets staff edit an award and an admin finalize once nothing blocks it", async () => {
    session.set({ loaded: true, user: admin });
    let edits: { award_id: string; citation: string | null; add: string[]; remove: string[]; updated_at: string }[] = [];
    let fin = { finalized: false, finalized_at: null as string | null, can_finalize: false, blockers: ["1 submission(s) pending judgement"] };
    const computed = [award("gold-medal", "Gold medal winner", ["1"]), award("silver-medal", "Silver medal winner", [])];
    const f = fakeAPI({
      "GET /api/contests/cup/awards": () => {
        const awards = computed.map((a) => {
          const e = edits.find((x) => x.award_id === a.id);
          return e ? { ...a, team_ids: [...a.team_ids.filter((x) => !e.remove.includes(x)), ...e.add] } : a;
        });
        return { body: { awards, final: fin.finalized, finalized_at: fin.finalized_at, teams, computed, edits, editable: !fin.finalized } };
      },
      "GET /api/contests/cup/scoreboard": { ...board },
      "GET /api/contests/cup/finalize": () => ({ body: fin }),
      "GET /api/contests/cup/award-settings": { gold: 4, silver: 4, bronze: 4, honorable_below_median: true },
      "PUT /api/contests/cup/awards/silver-medal": (c) => {
        const b = c.body as { citation: string | null; add: string[]; remove: string[] };
        edits = [{ award_id: "silver-medal", citation: b.citation, add: b.add, remove: b.remove, updated_at: "now" }];
        return { body: edits[0] };
      },
      "POST /api/contests/cup/finalize": () => {
        fin = { ...fin, finalized: true, finalized_at: "2026-06-25T15:10:00.000+00:00" };
        return { body: { ...fin, finalized_by: "admin", comment: "Finalized by the jury" } };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    vi.stubGlobal("confirm", () => true);
    const { host } = await mount(<AwardsPage slug="cup" />);
    await waitFor(() => $(host, "[data-testid=finalize-blockers]"), "the blockers");
    expect(unlabelledControls(host)).toEqual([]);
    expect(($(host, "[data-testid=finalize]") as HTMLButtonElement).disabled).toBe(true);
    // Bob to silver.
    await choose($(host, "[data-award=silver-medal] select"), "2");
    await click($$(host, "[data-award=silver-medal] button").find((b) => text(b) === "Save")!);
    await waitFor(() => $$(host, "[data-award=silver-medal] .team-chip").some((c) => text(c).includes("Bob")) || null, "bob has silver");
    const put = f.calls.find((c) => c.method === "PUT")!;
    expect(put.body).toEqual({ citation: null, add: ["2"], remove: [] });
    expect(put.headers["X-CSRF-Token"]).toBe("csrf-1");
    expect(text($(host, "[data-award=silver-medal]")!)).toContain("edited");
    // Nothing blocks any more: finalize.
    fin = { ...fin, can_finalize: true, blockers: [] };
    await click($$(host, "[data-award=silver-medal] button").find((b) => text(b) === "Save")!);
    await waitFor(() => !($(host, "[data-testid=finalize]") as HTMLButtonElement | null)?.disabled || null, "finalize enabled");
    await click($(host, "[data-testid=finalize]"));
    await waitFor(() => $(host, "[data-testid=finalized]") || null, "finalized");
    expect(f.calls.some((c) => c.method === "POST" && c.path === "/api/contests/cup/finalize")).toBe(true);
    expect($(host, "[data-award=silver-medal] input")).toBeNull(); // published: no more editing
  });
});
