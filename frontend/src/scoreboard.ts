// The scoreboard model: the document of GET /api/contests/{slug}/scoreboard
// and of the contest channel's snapshot, merging of scoreboard events,
// ranking, and what each cell shows. Pure.

export type Rule = "icpc" | "ioi";

export interface ProblemCell {
  solved?: boolean;
  attempts?: number; // submissions counted (wrong ones before the AC, plus the AC)
  time_min?: number | null; // minutes from the start to the AC
  pending?: number | boolean; // submissions not yet shown (judging, or after the freeze)
  first_blood?: boolean;
  score?: number | null; // IOI
}

export interface ScoreRow {
  rank: number;
  user: string | number;
  display_name?: string;
  solved: number;
  penalty: number;
  score: number;
  problems: Record<string, ProblemCell>;
}

export interface Scoreboard {
  rule: Rule;
  frozen: boolean;
  rows: ScoreRow[];
}

export function emptyBoard(rule: Rule): Scoreboard {
  return { rule, frozen: false, rows: [] };
}

function cmp(rule: Rule, a: ScoreRow, b: ScoreRow): number {
  if (rule === "ioi") return (b.score ?? 0) - (a.score ?? 0);
  return (b.solved ?? 0) - (a.solved ?? 0) || (a.penalty ?? 0) - (b.penalty ?? 0);
}

/**
 * rankRows orders rows and gives tied rows the same rank (1, 2, 2, 4).
 * ICPC: more solved first, then less penalty. IOI: more score first. Within
 * a tie the display name orders the rows, so the order is stable.
 */
export function rankRows(rule: Rule, rows: ScoreRow[]): ScoreRow[] {
  const sorted = [...rows].sort(
    (a, b) => cmp(rule, a, b) || String(a.display_name ?? a.user).localeCompare(String(b.display_name ?? b.user)),
  );
  let rank = 0;
  return sorted.map((r, i) => {
    if (i === 0 || cmp(rule, sorted[i - 1]!, r) !== 0) rank = i + 1;
    return r.rank === rank ? r : { ...r, rank };
  });
}

/** Normalises a scoreboard document from the API or a snapshot. */
export function fromDoc(doc: unknown, fallbackRule: Rule): Scoreboard {
  const d = (doc ?? {}) as Partial<Scoreboard>;
  const rule: Rule = d.rule === "ioi" || d.rule === "icpc" ? d.rule : fallbackRule;
  const rows = Array.isArray(d.rows) ? d.rows.filter((r) => r && r.user !== undefined) : [];
  return { rule, frozen: !!d.frozen, rows: rankRows(rule, rows.map((r) => ({ ...r, problems: r.problems ?? {} }))) };
}

/**
 * applyEvent merges the body of a "scoreboard" event. A body with `full:
 * true` (or a `rule`) is the whole board; otherwise its rows replace the rows
 * of the same users, the users named in `left` leave the board (a contestant
 * staff unregistered), and the board is ranked again.
 */
export function applyEvent(b: Scoreboard, body: unknown): Scoreboard {
  const d = (body ?? {}) as Partial<Scoreboard> & { full?: boolean; left?: unknown };
  if (d.full || d.rule) return fromDoc({ ...d, rule: d.rule ?? b.rule }, b.rule);
  const byUser = new Map(b.rows.map((r) => [String(r.user), r]));
  if (Array.isArray(d.left)) {
    for (const u of d.left) byUser.delete(String(u));
  }
  for (const r of d.rows ?? []) {
    if (!r || r.user === undefined) continue;
    byUser.set(String(r.user), { ...r, problems: r.problems ?? {} });
  }
  return {
    rule: b.rule,
    frozen: typeof d.frozen === "boolean" ? d.frozen : b.frozen,
    rows: rankRows(b.rule, [...byUser.values()]),
  };
}

export type CellTone = "first" | "solved" | "failed" | "pending" | "partial" | "zero" | "empty";

export interface CellView {
  /** Main text: "+", "+2", "-3", "?", "100". */
  text: string;
  /** Second line: minute of the AC, or pending count. */
  sub: string;
  tone: CellTone;
}

function pendingCount(p: ProblemCell["pending"]): number {
  if (typeof p === "number") return p;
  return p ? 1 : 0;
}

/** cellView says what one problem cell shows. */
export function cellView(rule: Rule, c: ProblemCell | undefined): CellView {
  if (!c) return { text: "", sub: "", tone: "empty" };
  const attempts = c.attempts ?? 0;
  const pending = pendingCount(c.pending);
  if (rule === "ioi") {
    const hasScore = typeof c.score === "number";
    if (!hasScore && pending === 0 && attempts === 0) return { text: "", sub: "", tone: "empty" };
    const score = c.score ?? 0;
    const text = hasScore ? formatScore(score) : "";
    if (pending > 0) return { text: text ? `${text}?` : "?", sub: "", tone: "pending" };
    return { text, sub: "", tone: c.solved ? "solved" : score > 0 ? "partial" : "zero" };
  }
  if (c.solved) {
    const wrong = Math.max(0, attempts - 1);
    return {
      text: wrong > 0 ? `+${wrong}` : "+",
      sub: c.time_min == null ? "" : String(c.time_min),
      tone: c.first_blood ? "first" : "solved",
    };
  }
  if (pending > 0) {
    return { text: "?", sub: attempts > 0 ? `${attempts}+${pending}` : String(pending), tone: "pending" };
  }
  if (attempts > 0) return { text: `-${attempts}`, sub: "", tone: "failed" };
  return { text: "", sub: "", tone: "empty" };
}

export function formatScore(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}

export interface RowView {
  rank: number;
  name: string;
  user: string;
  /** ICPC: solved count; IOI: total score. */
  total: string;
  /** ICPC: penalty minutes; IOI: empty. */
  penalty: string;
  cells: { label: string; view: CellView }[];
}

/** rowView is everything one scoreboard row shows, in column order. */
export function rowView(rule: Rule, labels: string[], r: ScoreRow): RowView {
  return {
    rank: r.rank,
    name: r.display_name || String(r.user),
    user: String(r.user),
    total: rule === "ioi" ? formatScore(r.score ?? 0) : String(r.solved ?? 0),
    penalty: rule === "ioi" ? "" : String(r.penalty ?? 0),
    cells: labels.map((label) => ({ label, view: cellView(rule, r.problems?.[label]) })),
  };
}
