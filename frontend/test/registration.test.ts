import { describe, expect, it } from "vitest";
import type { Contest, User } from "../src/api";
import { parseUsernames, registrationState } from "../src/registration";

const contest = (over: Partial<Contest> = {}): Contest => ({
  slug: "cup",
  title: "Cup",
  rule: "icpc",
  start_at: "2026-03-01T10:00:00Z",
  end_at: "2026-03-01T15:00:00Z",
  freeze_minutes: 0,
  registration: "open",
  id: 1,
  time_zone: "UTC",
  feedback: "full",
  feedback_after: "full",
  phase: "running",
  registered: false,
  ...over,
});
const student: User = { id: 2, username: "alice", display_name: "Alice", role: "student" as const, created_at: "2026-01-01T00:00:00Z" };
const setter: User = { id: 3, username: "sam", display_name: "Sam", role: "setter" as const, created_at: "2026-01-01T00:00:00Z" };
const during = Date.parse("2026-03-01T12:00:00Z");
const after = Date.parse("2026-03-01T16:00:00Z");

describe("registrationState", () => {
  it.each([
    ["anonymous, running", contest(), null, during, "anonymous"],
    ["anonymous, ended", contest({ phase: "ended" }), null, after, "ended"],
    ["staff are not offered registration", contest(), setter, during, "staff"],
    ["registered", contest({ registered: true }), student, during, "registered"],
    ["registered, ended", contest({ registered: true, phase: "ended" }), student, after, "registered"],
    ["open, not registered", contest(), student, during, "can-register"],
    ["open, upcoming", contest({ phase: "upcoming" }), student, Date.parse("2026-03-01T09:00:00Z"), "can-register"],
    ["by list, not on it", contest({ registration: "list" }), student, during, "by-list"],
    ["by list, on it", contest({ registration: "list", registered: true }), student, during, "registered"],
    ["ended by the clock although the phase is stale", contest({ phase: "running" }), student, after, "ended"],
    ["ended by phase", contest({ phase: "ended" }), student, during, "ended"],
  ] as const)("%s", (_name, c, u, now, want) => {
    expect(registrationState(c, u, now)).toBe(want);
  });
});

describe("parseUsernames", () => {
  it.each([
    ["", [], []],
    ["alice", ["alice"], []],
    ["alice, bob\ncarol;dave\t erin", ["alice", "bob", "carol", "dave", "erin"], []],
    ["Alice alice ALICE bob", ["alice", "bob"], []],
    ["ab al!ce ok.name-1_x", ["ok.name-1_x"], ["ab", "al!ce"]],
    ["  \n ,, ;; ", [], []],
    ["x".repeat(33) + " " + "y".repeat(32), ["y".repeat(32)], ["x".repeat(33)]],
  ])("%j", (text, usernames, invalid) => {
    expect(parseUsernames(text)).toEqual({ usernames, invalid });
  });
});
