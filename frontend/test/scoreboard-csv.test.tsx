// @vitest-environment jsdom
// The scoreboard's "Download CSV" link: a plain download link to the
// staff-only export, shown to admins and setters, never to students or
// visitors; the router leaves it to the browser.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setCsrfToken } from "../src/api";
import { setLang } from "../src/i18n";
import { ContestPage } from "../src/pages/contests";
import { installLinkHandler } from "../src/router";
import { session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, cleanup, mount, text, waitFor } from "./dom";

const now = Date.now();
const doc = {
  contest: {
    slug: "spring cup",
    title: "Spring Cup",
    rule: "icpc",
    start_at: new Date(now - 3600_000).toISOString(),
    end_at: new Date(now + 3600_000).toISOString(),
    freeze_minutes: 0,
    registration: "open",
  },
  problems: [{ label: "A", slug: "sum", title: "Sum", points: 100 }],
};
const board = { rule: "icpc", rows: [{ user: "alice", display_name: "Alice", rank: 1, solved: 1, penalty: 10, score: 0, problems: { A: { solved: true, attempts: 1, time_min: 10 } } }] };
const people = {
  admin: { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" },
  setter: { id: 2, username: "setter", display_name: "Setter", role: "setter" as const, created_at: "2026-01-01T00:00:00Z" },
  student: { id: 3, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" },
};

async function open() {
  const f = fakeAPI({
    "GET /api/contests/spring%20cup": doc,
    "GET /api/contests/spring%20cup/scoreboard": board,
  });
  vi.stubGlobal("fetch", f.fetch);
  const m = await mount(<ContestPage slug="spring cup" query={new URLSearchParams("tab=scoreboard")} />);
  await waitFor(() => $(m.host, "table.scoreboard"), "scoreboard");
  return { ...m, calls: f.calls };
}

describe("scoreboard CSV link", () => {
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });
  beforeEach(() => {
    setLang("en");
    setCsrfToken("t");
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  for (const who of ["admin", "setter"] as const) {
    it(`is offered to staff (${who})`, async () => {
      session.set({ loaded: true, user: people[who] });
      const { host, unmount } = await open();
      const a = $(host, '[data-testid="scoreboard-csv"]') as HTMLAnchorElement;
      expect(a).not.toBeNull();
      expect(a.tagName).toBe("A");
      expect(a.getAttribute("href")).toBe("/api/contests/spring%20cup/scoreboard.csv");
      expect(a.hasAttribute("download")).toBe(true);
      expect(a.getAttribute("download")).toBe("spring cup-scoreboard.csv");
      expect(text(a)).toBe("Download CSV");
      expect(text($(host, `#${a.getAttribute("aria-describedby")}`))).toContain("including results after the freeze");
      unmount();
    });
  }

  it("is not shown to students or visitors", async () => {
    for (const user of [people.student, null]) {
      session.set({ loaded: true, user });
      const { host, unmount } = await open();
      expect($(host, '[data-testid="scoreboard-csv"]')).toBeNull();
      expect(host.innerHTML).not.toContain("scoreboard.csv");
      unmount();
    }
  });

  it("is left to the browser by the client-side router", async () => {
    installLinkHandler();
    session.set({ loaded: true, user: people.admin });
    const { host, unmount } = await open();
    const a = $(host, '[data-testid="scoreboard-csv"]') as HTMLAnchorElement;
    const pushState = vi.spyOn(history, "pushState");
    let routerTookIt = true;
    // Runs after the router's listener: did it claim the click?
    document.addEventListener(
      "click",
      (e) => {
        routerTookIt = e.defaultPrevented;
        e.preventDefault(); // jsdom would otherwise try to navigate
      },
      { once: true },
    );
    a.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, button: 0 }));
    expect(routerTookIt).toBe(false);
    expect(pushState).not.toHaveBeenCalled();
    pushState.mockRestore();
    unmount();
  });

  it("speaks Simplified Chinese", async () => {
    setLang("zh");
    session.set({ loaded: true, user: people.setter });
    const { host, unmount } = await open();
    expect(text($(host, '[data-testid="scoreboard-csv"]'))).toBe("下载 CSV");
    unmount();
  });
});
