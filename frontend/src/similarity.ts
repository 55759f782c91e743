// The staff's similarity check (GET /api/similarity and
// /api/similarity/compare): types, fetchers, and the pure helper that cuts
// a source into plain and highlighted segments for the side-by-side view.

import { request } from "./api";

export interface SimilaritySource {
  submission_id: number;
  username: string;
  problem: string;
  language: string;
  verdict: string;
  created_at: string;
}

export interface SimilarityPair {
  a: SimilaritySource;
  b: SimilaritySource;
  shared: number;
  score: number;
  cover_a: number;
  cover_b: number;
}

export interface SimilarityReport {
  scope: string;
  sources: number;
  checked: number;
  skipped: number;
  candidates: number;
  elapsed_ms: number;
  pairs: SimilarityPair[];
}

export interface Span {
  start: number;
  end: number;
  line_start: number;
  line_end: number;
}

export interface SimilaritySide extends SimilaritySource {
  source: string;
  tokens: number;
  matched: number;
}

export interface SimilarityComparison {
  a: SimilaritySide;
  b: SimilaritySide;
  regions: { a: Span; b: Span; tokens: number }[];
}

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
  pairs: (s: SimilarityScope, signal?: AbortSignal) =>
    request<SimilarityReport>(`/api/similarity?${similarityQuery(s)}`, { signal }),
  compare: (a: number, b: number, signal?: AbortSignal) =>
    request<SimilarityComparison>(`/api/similarity/compare?a=${a}&b=${b}`, { signal }),
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
