// The staff's similarity check (GET /api/similarity and
// /api/similarity/compare): types, fetchers, and the pure helper that cuts
// a source into plain and highlighted segments for the side-by-side view.

import { call } from "./api";
import type * as S from "./api/openapi.gen";

// The documents: docs/openapi.json's, generated (src/api/openapi.gen.ts).
export type SimilaritySource = S.SimilaritySource;
export type SimilarityPair = S.SimilarityPair;
export type SimilarityReport = S.SimilarityReport;
export type Span = S.SimilaritySpan;
export type SimilaritySide = S.SimilaritySide;
export type SimilarityComparison = S.SimilarityComparison;

export interface SimilarityScope {
  problem?: string;
  contest?: string;
  all?: boolean;
}

export function similarityQuery(s: SimilarityScope): string {
  const q = new URLSearchParams();
  if (s.contest) q.set("contest", s.contest);
  else if (s.problem) q.set("problem", s.problem);
  if (s.all) q.set("all", "1");
  return q.toString();
}

export const similarityApi = {
  // The query as similarityQuery writes it: the contest, else the problem.
  pairs: (s: SimilarityScope, signal?: AbortSignal) =>
    call("GET /api/similarity", { query: { contest: s.contest || undefined, problem: s.contest ? undefined : s.problem, all: s.all ? "1" : undefined }, signal }),
  compare: (a: number, b: number, signal?: AbortSignal) => call("GET /api/similarity/compare", { query: { a, b }, signal }),
};

/** A piece of a source: plain (region null) or inside matching region n. */
export interface Segment {
  text: string;
  region: number | null;
}

/** segments cuts src at the regions' spans (byte offsets of the UTF-8
 *  source, as the API gives them), in order; overlapping or out-of-range
 *  spans are clipped, so any answer renders. */
export function segments(src: string, spans: Span[]): Segment[] {
  const bytes = new TextEncoder().encode(src);
  const dec = new TextDecoder();
  const order = spans.map((s, i) => ({ s, i })).sort((x, y) => x.s.start - y.s.start);
  const out: Segment[] = [];
  let at = 0;
  const push = (from: number, to: number, region: number | null) => {
    if (to > from) out.push({ text: dec.decode(bytes.subarray(from, to)), region });
  };
  for (const { s, i } of order) {
    const start = Math.max(at, Math.min(s.start, bytes.length));
    const end = Math.max(start, Math.min(s.end, bytes.length));
    push(at, start, null);
    push(start, end, i);
    at = end;
  }
  push(at, bytes.length, null);
  return out;
}

/** percent formats a share in [0, 1] as a whole percentage. */
export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}
