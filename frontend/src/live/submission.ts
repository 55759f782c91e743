// The live verdict view's model: one submission's status and cases, built
// from the REST document (GET /api/submissions/{id}) and then from the
// submission channel's snapshot and events. Pure.

import { isFinal, type CaseResult, type LiveEvent, type SubmissionState, type SubtaskScore, type Verdict } from "./protocol";

export interface CaseRow {
  index: number;
  verdict: string;
  timeMs: number | null;
  memoryKb: number | null;
  score: number | null;
  message: string;
}

export interface SubmissionView {
  id: number;
  status: string; // a Verdict: status while running, outcome at the end
  score: number;
  compileMessage: string;
  cases: CaseRow[]; // sorted by index, no duplicates
  timeMs: number | null;
  memoryKb: number | null;
  /** The feedback policy the server applied ("" for staff: nothing held back). */
  feedback: string;
  /** first_failure: the first failing case, when the server says it. */
  firstFailure: number | null;
  /** Each subtask's score, when the server shows them (IOI-mode problems under full or score_only). */
  subtasks: SubtaskScore[];
}

/** The REST shape of GET /api/submissions/{id} (fields the view uses). */
export interface SubmissionDoc {
  id: number;
  status?: string;
  verdict?: string | null;
  score?: number | null;
  time_ms?: number | null;
  memory_kb?: number | null;
  compile_message?: string | null;
  feedback?: string | null;
  first_failure?: number | null;
  subtasks?: SubtaskScore[] | null;
  cases?: { index: number; verdict: string; time_ms?: number | null; memory_kb?: number | null; score?: number | null; message?: string | null }[];
}

export function fromDoc(d: SubmissionDoc): SubmissionView {
  const status = d.verdict && isFinal(d.verdict) ? d.verdict : (d.status ?? d.verdict ?? "pending");
  return {
    id: d.id,
    status,
    score: d.score ?? 0,
    compileMessage: d.compile_message ?? "",
    cases: sortCases(
      (d.cases ?? []).map((c) => ({
        index: c.index,
        verdict: c.verdict,
        timeMs: c.time_ms ?? null,
        memoryKb: c.memory_kb ?? null,
        score: c.score ?? null,
        message: c.message ?? "",
      })),
    ),
    timeMs: d.time_ms ?? null,
    memoryKb: d.memory_kb ?? null,
    feedback: d.feedback ?? "",
    firstFailure: d.first_failure ?? null,
    subtasks: d.subtasks ?? [],
  };
}

/** resultsHidden: the contest's closed policy hides the result until its end. */
export function resultsHidden(v: SubmissionView): boolean {
  return v.feedback === "closed";
}

function liveCase(c: CaseResult): CaseRow {
  return {
    index: c.case,
    verdict: c.verdict,
    timeMs: c.cpu_ms,
    memoryKb: c.memory_kib,
    score: c.score,
    message: c.message ?? "",
  };
}

function sortCases(cs: CaseRow[]): CaseRow[] {
  const byIndex = new Map<number, CaseRow>();
  for (const c of cs) byIndex.set(c.index, c);
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

function mergeCases(old: CaseRow[], add: CaseRow[]): CaseRow[] {
  return sortCases([...old, ...add]);
}

function summarise(v: SubmissionView): SubmissionView {
  if (v.cases.length === 0) return v;
  return {
    ...v,
    timeMs: Math.max(v.timeMs ?? 0, ...v.cases.map((c) => c.timeMs ?? 0)),
    memoryKb: Math.max(v.memoryKb ?? 0, ...v.cases.map((c) => c.memoryKb ?? 0)),
  };
}

/** applySnapshot replaces the view with the channel's whole state. */
export function applySnapshot(v: SubmissionView, state: unknown): SubmissionView {
  const s = state as SubmissionState;
  if (!s || typeof s !== "object") return v;
  return summarise({
    ...v,
    id: s.submission_id ?? v.id,
    status: s.status ?? v.status,
    score: s.score ?? 0,
    compileMessage: s.compile_message ?? v.compileMessage,
    cases: sortCases((s.cases ?? []).map(liveCase)),
    timeMs: null,
    memoryKb: null,
    feedback: s.feedback ?? v.feedback,
    // The snapshot is the whole state: its first failure and subtasks too.
    firstFailure: s.first_failure ?? null,
    subtasks: s.subtasks ?? [],
  });
}

/** applyEvent applies one cases/status event; other kinds are ignored. */
export function applyEvent(v: SubmissionView, ev: LiveEvent): SubmissionView {
  const b = ev.body as SubmissionState;
  if (!b || typeof b !== "object") return v;
  const next: SubmissionView = {
    ...v,
    status: b.status ?? v.status,
    score: typeof b.score === "number" ? b.score : v.score,
    compileMessage: b.compile_message ?? v.compileMessage,
    feedback: b.feedback ?? v.feedback,
  };
  if (ev.kind === "cases" || (b.cases && b.cases.length > 0)) {
    next.cases = mergeCases(v.cases, (b.cases ?? []).map(liveCase));
  }
  // A cases event carries the whole first failure and subtask scores as of
  // itself (a status event has neither: keep what we have).
  if (typeof b.first_failure === "number" && b.first_failure > 0) next.firstFailure = b.first_failure;
  if (Array.isArray(b.subtasks) && b.subtasks.length > 0) next.subtasks = b.subtasks;
  return summarise(next);
}

export function done(v: SubmissionView): boolean {
  return isFinal(v.status);
}

/**
 * rows returns what the case table shows: the known cases plus placeholder
 * rows up to `expected` (when the problem's case count is known), so the
 * table has its final height from the start and nothing below it moves.
 */
export function rows(v: SubmissionView, expected: number | null): CaseRow[] {
  const out = [...v.cases];
  // Policies that show only some cases (or none): no placeholder rows, which
  // would pass the cases not shown off as skipped.
  if (v.feedback === "first_failure" || v.feedback === "closed") return out.sort((a, b) => a.index - b.index);
  const max = Math.max(expected ?? 0, ...out.map((c) => c.index), 0);
  if (v.status === "CE") return out;
  const have = new Set(out.map((c) => c.index));
  for (let i = 1; i <= max; i++) {
    if (!have.has(i)) {
      out.push({ index: i, verdict: done(v) ? "SK" : "", timeMs: null, memoryKb: null, score: null, message: "" });
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

export type VerdictTone = "ok" | "bad" | "warn" | "pending" | "muted";

export function verdictTone(v: string): VerdictTone {
  switch (v as Verdict) {
    case "AC":
      return "ok";
    case "WA":
    case "RE":
    case "CE":
    case "PE":
      return "bad";
    case "TLE":
    case "MLE":
    case "OLE":
    case "SE":
      return "warn";
    case "SK":
      return "muted";
    default:
      return "pending";
  }
}

/** caseRanges writes case indexes compactly: [1, 2, 3, 5] is "1–3, 5". */
export function caseRanges(cases: readonly number[]): string {
  const xs = [...new Set(cases)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < xs.length; ) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j]! + 1) j++;
    out.push(j > i ? `${xs[i]}–${xs[j]}` : `${xs[i]}`);
    i = j + 1;
  }
  return out.join(", ");
}
