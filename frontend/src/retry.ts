// When to retry a request the server (or nginx in front of it) could not
// take right now, and after how long. Pure: the login form and the submit
// button ask nextRetry after each failed try; components/retrying.tsx runs
// the wait and the countdown.
//
//   429, 503           overloaded / rate limited: wait Retry-After if the
//                      answer has one, else the default (growing per try)
//   0, 502, 504        no answer, bad gateway, gateway timeout: the same
//                      (the request may or may not have arrived; callers
//                      that write send an Idempotency-Key and reuse it)
//   anything else      stop (401 wrong password, 4xx validation, 500)
//
// The wait never goes below what the server asked for: jitter only adds
// (up to +20 %), so a room of browsers told "5 s" spreads over 5–6 s;
// only a wait cut to the cap (30 s) is spread below it (24–30 s).

import { ApiError, retryAfterSeconds } from "./api";

export interface RetryPolicy {
  /** Seconds to wait when the answer has no (usable) Retry-After. */
  defaultDelayS: number;
  /** No wait is longer than this, whatever the server says. */
  maxDelayS: number;
  /** Automatic retries after the first try; then the caller gives up. */
  maxRetries: number;
  /** Up to this fraction is added at random to every wait. */
  jitter: number;
}

export const RETRY: RetryPolicy = { defaultDelayS: 2, maxDelayS: 30, maxRetries: 10, jitter: 0.2 };

/** The statuses worth retrying by themselves (0: no answer at all). */
const RETRYABLE = new Set([0, 429, 502, 503, 504]);

export function retryableStatus(status: number): boolean {
  return RETRYABLE.has(status);
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  /** final: the answer is not a "try later" (e.g. 401); exhausted: too many tries. */
  | { retry: false; reason: "final" | "exhausted" };

export interface RetryInput {
  /** HTTP status of the failed try; 0 when there was no answer. */
  status: number;
  /** The Retry-After header as sent (seconds or an HTTP date), or already in seconds. */
  retryAfter?: string | number | null;
  /** Retries already made for this action (0 after the first try failed). */
  attempt: number;
  /** Clock (ms) for HTTP-date Retry-After values. */
  now?: number;
  /** Random source in [0, 1) for the jitter. */
  random?: () => number;
}

/** nextRetry says whether to try again and after how many milliseconds. */
export function nextRetry(i: RetryInput, p: RetryPolicy = RETRY): RetryDecision {
  if (!retryableStatus(i.status)) return { retry: false, reason: "final" };
  if (i.attempt >= p.maxRetries) return { retry: false, reason: "exhausted" };
  const asked =
    typeof i.retryAfter === "number"
      ? i.retryAfter > 0 && Number.isFinite(i.retryAfter)
        ? i.retryAfter
        : undefined
      : retryAfterSeconds(i.retryAfter ?? null, i.now ?? Date.now());
  // Without a server hint, back off: 2 s, 4 s, 8 s, … (capped below).
  const base = asked ?? p.defaultDelayS * 2 ** Math.min(i.attempt, 8);
  const r = Math.min(Math.max((i.random ?? Math.random)(), 0), 1);
  // Capped waits are spread below the cap, so they do not all land at once.
  const s = base >= p.maxDelayS ? p.maxDelayS * (1 - p.jitter * r) : Math.min(p.maxDelayS, base * (1 + p.jitter * r));
  return { retry: true, delayMs: Math.round(s * 1000) };
}

/** retryAfterError is nextRetry for an error thrown by api.request: an
 *  ApiError's status and parsed Retry-After; anything else (an abort, a
 *  bug) never retries. */
export function retryAfterError(e: unknown, attempt: number, p: RetryPolicy = RETRY, random?: () => number): RetryDecision {
  if (!(e instanceof ApiError)) return { retry: false, reason: "final" };
  return nextRetry({ status: e.status, retryAfter: e.retryAfter, attempt, random }, p);
}
