// @vitest-environment jsdom
import { render } from "preact";
import { describe, expect, it } from "vitest";
import { ScoreboardRow, ScoreboardTable } from "../src/components/scoreboard";
import { applyEvent, cellView, fromDoc, rankRows, rowView, type ScoreRow } from "../src/scoreboard";

const row = (user: string, solved: number, penalty: number, score = 0, problems: ScoreRow["problems"] = {}): ScoreRow => ({
  rank: 0,
  user,
  display_name: user.toUpperCase(),
  solved,
  penalty,
  score,
  problems,
});

describe("rankRows", () => {
  it("ICPC: solved desc, penalty asc, ties share a rank", () => {
    const r = rankRows("icpc", [row("c", 2, 300), row("a", 3, 500), row("b", 2, 200), row("d", 2, 200), row("e", 0, 0)]);
    expect(r.map((x) => [x.user, x.rank])).toEqual([
      ["a", 1],
      ["b", 2],
      ["d", 2],
      ["c", 4],
      ["e", 5],
    ]);
  });
  it("IOI: score desc", () => {
    const r = rankRows("ioi", [row("a", 0, 0, 150), row("b", 0, 0, 300), row("c", 0, 0, 150)]);
    expect(r.map((x) => [x.user, x.rank])).toEqual([
      ["b", 1],
      ["a", 2],
      ["c", 2],
    ]);
  });
});

describe("cellView", () => {
  it("ICPC cells", () => {
    expect(cellView("icpc", undefined)).toEqual({ text: "", sub: "", tone: "empty" });
    expect(cellView("icpc", { solved: true, attempts: 1, time_min: 12 })).toEqual({ text: "+", sub: "12", tone: "solved" });
    expect(cellView("icpc", { solved: true, attempts: 3, time_min: 95, first_blood: true })).toEqual({ text: "+2", sub: "95", tone: "first" });
    expect(cellView("icpc", { solved: false, attempts: 4 })).toEqual({ text: "-4", sub: "", tone: "failed" });
    // After the freeze: tries shown as pending, not as right or wrong.
    expect(cellView("icpc", { solved: false, attempts: 2, pending: 1 })).toEqual({ text: "?", sub: "2+1", tone: "pending" });
    expect(cellView("icpc", { pending: true })).toEqual({ text: "?", sub: "1", tone: "pending" });
  });
  it("IOI cells", () => {
    expect(cellView("ioi", { score: 100, solved: true })).toEqual({ text: "100", sub: "", tone: "solved" });
    expect(cellView("ioi", { score: 37.5 })).toEqual({ text: "37.5", sub: "", tone: "partial" });
    expect(cellView("ioi", { score: 0, attempts: 2 })).toEqual({ text: "0", sub: "", tone: "zero" });
    expect(cellView("ioi", { score: 40, pending: 1 })).toEqual({ text: "40?", sub: "", tone: "pending" });
    expect(cellView("ioi", {})).toEqual({ text: "", sub: "", tone: "empty" });
  });
});

describe("applyEvent", () => {
  const board = fromDoc({ rule: "icpc", frozen: false, rows: [row("a", 1, 20), row("b", 0, 0)] }, "icpc");
  it("merges changed rows and ranks again", () => {
    const next = applyEvent(board, { rows: [row("b", 2, 50, 0, { A: { solved: true, attempts: 1, time_min: 20 } })] });
    expect(next.rows.map((r) => [r.user, r.rank, r.solved])).toEqual([
      ["b", 1, 2],
      ["a", 2, 1],
    ]);
    expect(board.rows[0]!.user).toBe("a"); // not mutated
  });
  it("adds new users and takes the frozen flag", () => {
    const next = applyEvent(board, { frozen: true, rows: [row("c", 1, 10)] });
    expect(next.frozen).toBe(true);
    expect(next.rows.map((r) => r.user)).toEqual(["c", "a", "b"]);
  });
  it("replaces the board on a full document", () => {
    const next = applyEvent(board, { full: true, rows: [row("z", 0, 0)] });
    expect(next.rows.map((r) => r.user)).toEqual(["z"]);
  });
  it("removes the users who left and ranks again", () => {
    const next = applyEvent(board, { frozen: false, rows: [row("c", 0, 0)], left: ["a"] });
    expect(next.rows.map((r) => [r.user, r.rank])).toEqual([
      ["b", 1],
      ["c", 1],
    ]);
    expect(board.rows.map((r) => r.user)).toEqual(["a", "b"]); // not mutated
    expect(applyEvent(board, { rows: [], left: "a" }).rows).toHaveLength(2); // not a list: ignored
  });
});

describe("scoreboard rendering", () => {
  it("renders an ICPC row with marks and labels", () => {
    const r = rankRows("icpc", [
      row("alice", 2, 135, 0, {
        A: { solved: true, attempts: 1, time_min: 15, first_blood: true },
        B: { solved: true, attempts: 3, time_min: 80 },
        C: { solved: false, attempts: 2 },
        D: { solved: false, attempts: 1, pending: 1 },
      }),
    ])[0]!;
    const host = document.createElement("table");
    const tbody = document.createElement("tbody");
    host.appendChild(tbody);
    render(<ScoreboardRow rule="icpc" labels={["A", "B", "C", "D", "E"]} row={rowView("icpc", ["A", "B", "C", "D", "E"], r)} />, tbody);
    const cells = [...tbody.querySelectorAll("td, th")].map((c) => c.textContent);
    expect(cells).toEqual(["1", "ALICE", "2", "135", "+15", "+280", "-2", "?1+1", ""]);
    const a = tbody.querySelector('[data-label="A"]')!;
    expect(a.className).toContain("cell-first");
    expect(a.getAttribute("aria-label")).toBe("A: solved at minute 15, 1 try, first to solve");
    expect(tbody.querySelector('[data-label="D"]')!.className).toContain("cell-pending");
    expect(tbody.querySelector('[data-label="E"]')!.getAttribute("aria-label")).toBe("E: not tried");
  });

  it("renders an IOI table without a penalty column", () => {
    const board = fromDoc({ rule: "ioi", rows: [row("bob", 0, 0, 170, { A: { score: 100, solved: true }, B: { score: 70 } })] }, "ioi");
    const host = document.createElement("div");
    render(<ScoreboardTable board={board} labels={["A", "B"]} />, host);
    const head = [...host.querySelectorAll("thead th")].map((c) => c.textContent);
    expect(head).toEqual(["Rank", "Contestant", "Score", "A", "B"]);
    const cells = [...host.querySelectorAll("tbody td, tbody th")].map((c) => c.textContent);
    expect(cells).toEqual(["1", "BOB", "170", "100", "70"]);
  });

  it("updates rows in place when an event arrives", () => {
    const host = document.createElement("div");
    let board = fromDoc({ rule: "icpc", rows: [row("a", 1, 10), row("b", 0, 0)] }, "icpc");
    render(<ScoreboardTable board={board} labels={["A"]} />, host);
    const bRow = host.querySelector('tr[data-user="b"]');
    board = applyEvent(board, { rows: [row("b", 2, 30)] });
    render(<ScoreboardTable board={board} labels={["A"]} />, host);
    const order = [...host.querySelectorAll("tbody tr")].map((tr) => tr.getAttribute("data-user"));
    expect(order).toEqual(["b", "a"]);
    // The same DOM row moved (keyed by user): no flicker, no rebuild.
    expect(host.querySelector('tr[data-user="b"]')).toBe(bRow);
  });
});
