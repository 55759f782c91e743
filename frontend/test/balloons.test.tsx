// @vitest-environment jsdom
// The balloon page: the first solves in order with colours and flags, the
// delivered toggle, and the live re-read on a balloon channel event.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unlabelledControls } from "../src/a11y";
import { setCsrfToken, type Balloon } from "../src/api";
import { setLang } from "../src/i18n";
import { validChannel } from "../src/live/protocol";
import { BalloonsPage, pendingCount } from "../src/pages/balloons";
import { live, session } from "../src/state";
import { fakeAPI } from "./fakeapi";
import { $, $$, cleanup, click, mount, text, waitFor } from "./dom";

const admin = { id: 1, username: "admin", display_name: "Admin", role: "admin" as const, created_at: "2026-01-01T00:00:00Z" };
const balloon = (team: string, label: string, over: Partial<Balloon> = {}): Balloon => ({
  team, team_name: `Team ${team}`, problem_id: label.charCodeAt(0), label, color: "Red", rgb: "#ff0000", submission_id: 1,
  submitter: "alice", time: "2026-03-01T10:05:00.000+00:00", contest_time: "0:05:00.000", first_in_contest: false,
  first_for_problem: false, delivered: false, delivered_at: null, ...over,
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

describe("balloon page", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
    session.set({ loaded: true, user: admin });
    vi.stubGlobal("WebSocket", SilentSocket);
  });
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("lists first solves, toggles delivered, and re-reads on a live change", async () => {
    expect(validChannel({ kind: "balloons", id: 3 })).toBe(true);
    expect(validChannel({ kind: "balloons", id: 0 })).toBe(false);
    let list = [balloon("7", "A", { first_in_contest: true, first_for_problem: true })];
    const f = fakeAPI({
      "GET /api/contests/cup/balloons": () => ({ body: { items: list, channel: { kind: "balloons", id: 3 } } }),
      "PUT /api/contests/cup/balloons/7/A": (c) => ({ body: { ...list[0], delivered: (c.body as { delivered: boolean }).delivered } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    let handlers: { event?: (ev: unknown) => void } = {};
    const sub = vi.spyOn(live(), "subscribe").mockImplementation((_ch, h) => {
      handlers = h as typeof handlers;
      return () => {};
    });
    const { host } = await mount(<BalloonsPage slug="cup" />);
    await waitFor(() => $$(host, "tbody tr").length === 1 || null, "one balloon");
    expect(unlabelledControls(host)).toEqual([]);
    expect(sub).toHaveBeenCalledWith({ kind: "balloons", id: 3 }, expect.anything());
    const row = $(host, "tbody tr")!;
    expect(text(row)).toContain("Team 7");
    expect(text(row)).toContain("first in contest");
    expect(text(row)).toContain("first on problem");
    expect(text(host)).toContain("1 to deliver");

    click($(host, "tbody input[type=checkbox]")!);
    await waitFor(() => (($(host, "tbody input") as HTMLInputElement).checked ? true : null), "delivered");
    expect(f.calls.some((c) => c.method === "PUT" && (c.body as { delivered: boolean }).delivered === true)).toBe(true);

    // A new AC on the channel: the page reads the list again.
    list = [{ ...list[0]!, delivered: true }, balloon("9", "B", { first_for_problem: true })];
    handlers.event?.({ kind: "balloon", body: { contest_id: 3, what: "solved", submission_id: 5 } });
    await waitFor(() => $$(host, "tbody tr").length === 2 || null, "the new balloon");
    expect(text($$(host, "tbody tr")[1]!)).toContain("Team 9");
    expect(pendingCount(list)).toBe(1);
  });
});
