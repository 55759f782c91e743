// @vitest-environment jsdom
// The teams page: the list, the import (bad lines named), the team mode
// switch and a deletion.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type TeamsDoc } from "../src/api";
import { setLang } from "../src/i18n";
import { groupNames, TeamsPage } from "../src/pages/teams";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, choose, cleanup, click, flush, mount, submit, text, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const doc = (): TeamsDoc => ({
  team_mode: false,
  groups: [
    { id: "participants", name: "Participants", hidden: false, sortorder: 0 },
    { id: "observers", name: "Observers", hidden: true, sortorder: 1 },
  ],
  organizations: [{ id: "uva", name: "UvA", formal_name: "University of Amsterdam", country: "NLD" }],
  teams: [
    { id: "t1", name: "Hacks", display_name: "Hacks!", organization_id: "uva", organization: "UvA", group_ids: ["participants"], hidden: false,
      members: [{ username: "alice", display_name: "Alice", role: "contestant" }, { username: "bob", display_name: "Bob", role: "contestant" }] },
    { id: "t3", name: "Watchers", display_name: null, group_ids: ["observers"], hidden: true, members: [] },
  ],
});

describe("teams page", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("lists teams, imports with line errors, switches team mode and deletes", async () => {
    let d = doc();
    let imports = 0;
    const f = fakeAPI({
      "GET /api/contests/cup/teams": () => ({ body: d }),
      "PUT /api/contests/cup/team-mode": (c) => {
        d = { ...d, team_mode: (c.body as { enabled: boolean }).enabled };
        return { body: { team_mode: d.team_mode } };
      },
      "POST /api/contests/cup/teams/import": () =>
        ++imports === 1
          ? { status: 400, body: { error: { code: "validation", field: "members", message: "1 error(s)" },
              errors: [{ line: 3, field: "members", message: "no user \"zed\"" }] } }
          : { body: { format: "csv", groups: 0, organizations: 0, teams: 2, members: 3 } },
      "DELETE /api/contests/cup/teams/t3": () => {
        d = { ...d, teams: d.teams.filter((t) => t.id !== "t3") };
        return { status: 204 };
      },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<TeamsPage slug="cup" />);
    await waitFor(() => $$(host, "#teams-table tbody tr").length === 2 || null, "two teams");
    expect(unlabelledControls(host)).toEqual([]);
    expect(text($(host, "tr[data-team=t1]")!)).toContain("Hacks!");
    expect(text($(host, "tr[data-team=t1]")!)).toContain("alice, bob");
    expect(text($(host, "tr[data-team=t3]")!)).toContain("Observers (hidden)");
    expect($$(host, ".teams-export a").map((a) => a.getAttribute("href"))).toContain("/api/contests/cup/teams/export?format=teams.tsv");

    await choose($(host, "#teams-format"), "csv");
    const input = $(host, "#teams-file") as HTMLInputElement;
    Object.defineProperty(input, "files", { value: [new File(["id,name,members\n"], "teams.csv", { type: "text/csv" })] });
    input.dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    await submit($(host, "form.teams-import"));
    await waitFor(() => $(host, "#teams-errors"), "the line errors");
    expect(text($(host, "#teams-errors")!)).toContain("line 3 (members): no user \"zed\"");
    const post = f.calls.find((c) => c.method === "POST")!;
    expect(post.query.get("format")).toBe("csv");
    expect(post.form?.get("file")).toBeInstanceOf(File);

    await submit($(host, "form.teams-import"));
    await waitFor(() => $(host, "#teams-imported"), "imported");
    expect(text($(host, "#teams-imported")!)).toContain("Imported — teams: 2;");
    expect($(host, "#teams-errors")).toBeNull();

    await click($(host, "#team-mode"));
    await waitFor(() => (($(host, "#team-mode") as HTMLInputElement).checked ? true : null), "team mode on");
    expect(f.calls.some((c) => c.method === "PUT" && (c.body as { enabled: boolean }).enabled === true)).toBe(true);

    await click($(host, "tr[data-team=t3] button"));
    await waitFor(() => $$(host, "#teams-table tbody tr").length === 1 || null, "t3 deleted");
    expect(groupNames(doc(), ["participants", "nope"])).toBe("Participants, nope");
  });
});
