// The retry policy of the login form and the submit button (src/retry.ts).
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/api";
import { nextRetry, RETRY, retryAfterError, retryableStatus, type RetryInput } from "../src/retry";

const NOW = Date.UTC(2025, 2, 1, 9, 0, 0);
const zero = () => 0;
const top = () => 0.999999;

describe("nextRetry", () => {
  const cases: { name: string; in: RetryInput; want: ReturnType<typeof nextRetry> }[] = [
    { name: "429 with Retry-After 5 → 5 s", in: { status: 429, retryAfter: "5", attempt: 0 }, want: { retry: true, delayMs: 5000 } },
    { name: "503 with Retry-After 5 → 5 s", in: { status: 503, retryAfter: "5", attempt: 3 }, want: { retry: true, delayMs: 5000 } },
    { name: "Retry-After already in seconds", in: { status: 429, retryAfter: 7, attempt: 0 }, want: { retry: true, delayMs: 7000 } },
    { name: "fractional Retry-After rounds up", in: { status: 503, retryAfter: "1.2", attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "503 without header → default", in: { status: 503, attempt: 0 }, want: { retry: true, delayMs: RETRY.defaultDelayS * 1000 } },
    { name: "429 with an empty header → default", in: { status: 429, retryAfter: "", attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "Retry-After 0 → default", in: { status: 503, retryAfter: "0", attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "garbage Retry-After → default", in: { status: 503, retryAfter: "soon", attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "no header: backs off per try", in: { status: 503, attempt: 2 }, want: { retry: true, delayMs: 8000 } },
    { name: "network error (0) → default", in: { status: 0, attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "502 from nginx → default", in: { status: 502, attempt: 0 }, want: { retry: true, delayMs: 2000 } },
    { name: "504 from nginx with Retry-After", in: { status: 504, retryAfter: "3", attempt: 1 }, want: { retry: true, delayMs: 3000 } },
    {
      name: "Retry-After as HTTP date",
      in: { status: 503, retryAfter: new Date(NOW + 12_000).toUTCString(), attempt: 0, now: NOW },
      want: { retry: true, delayMs: 12_000 },
    },
    {
      name: "HTTP date in the past → default",
      in: { status: 503, retryAfter: new Date(NOW - 60_000).toUTCString(), attempt: 0, now: NOW },
      want: { retry: true, delayMs: 2000 },
    },
    { name: "cap: Retry-After 120 → 30 s", in: { status: 429, retryAfter: "120", attempt: 0 }, want: { retry: true, delayMs: RETRY.maxDelayS * 1000 } },
    { name: "cap: no header, many tries → 30 s", in: { status: 503, attempt: 9 }, want: { retry: true, delayMs: 30_000 } },
    { name: "401 → stop", in: { status: 401, attempt: 0 }, want: { retry: false, reason: "final" } },
    { name: "401 with Retry-After → stop", in: { status: 401, retryAfter: "5", attempt: 0 }, want: { retry: false, reason: "final" } },
    { name: "422 → stop", in: { status: 422, attempt: 0 }, want: { retry: false, reason: "final" } },
    { name: "500 → stop", in: { status: 500, attempt: 0 }, want: { retry: false, reason: "final" } },
    { name: "attempts exhausted → stop", in: { status: 503, retryAfter: "1", attempt: RETRY.maxRetries }, want: { retry: false, reason: "exhausted" } },
    { name: "last allowed retry still waits", in: { status: 429, retryAfter: "1", attempt: RETRY.maxRetries - 1 }, want: { retry: true, delayMs: 1000 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(nextRetry({ random: zero, ...c.in })).toEqual(c.want);
    });
  }

  it("jitter only adds, at most 20 %, and never passes the cap", () => {
    expect(nextRetry({ status: 429, retryAfter: "5", attempt: 0, random: top })).toEqual({ retry: true, delayMs: 6000 });
    expect(nextRetry({ status: 503, attempt: 0, random: () => 0.5 })).toEqual({ retry: true, delayMs: 2200 });
    for (const r of [0, 0.3, 0.7, top()]) {
      const d = nextRetry({ status: 503, retryAfter: "29", attempt: 0, random: () => r });
      expect(d.retry && d.delayMs).toBeGreaterThanOrEqual(29_000);
      expect(d.retry && d.delayMs).toBeLessThanOrEqual(30_000);
      // Capped waits spread below the cap (24–30 s) instead of all at 30 s.
      const c = nextRetry({ status: 503, retryAfter: "300", attempt: 0, random: () => r });
      expect(c.retry && c.delayMs).toBeGreaterThanOrEqual(24_000);
      expect(c.retry && c.delayMs).toBeLessThanOrEqual(30_000);
    }
  });

  it("a custom policy", () => {
    const p = { defaultDelayS: 1, maxDelayS: 5, maxRetries: 2, jitter: 0 };
    expect(nextRetry({ status: 503, attempt: 0 }, p)).toEqual({ retry: true, delayMs: 1000 });
    expect(nextRetry({ status: 503, attempt: 1 }, p)).toEqual({ retry: true, delayMs: 2000 });
    expect(nextRetry({ status: 503, attempt: 2 }, p)).toEqual({ retry: false, reason: "exhausted" });
    expect(nextRetry({ status: 503, retryAfter: "60", attempt: 0 }, p)).toEqual({ retry: true, delayMs: 5000 });
  });
});

describe("retryAfterError", () => {
  it("reads an ApiError's status and Retry-After", () => {
    expect(retryAfterError(new ApiError(429, "rate_limited", "slow down", undefined, 4), 0, RETRY, zero)).toEqual({ retry: true, delayMs: 4000 });
    expect(retryAfterError(new ApiError(503, "busy", "busy"), 0, RETRY, zero)).toEqual({ retry: true, delayMs: 2000 });
    expect(retryAfterError(new ApiError(0, "network", "failed to fetch"), 0, RETRY, zero)).toEqual({ retry: true, delayMs: 2000 });
    expect(retryAfterError(new ApiError(401, "unauthorized", "no"), 0)).toEqual({ retry: false, reason: "final" });
  });
  it("never retries other errors (an abort, a bug)", () => {
    const abort = new DOMException("aborted", "AbortError");
    expect(retryAfterError(abort, 0)).toEqual({ retry: false, reason: "final" });
    expect(retryAfterError(new TypeError("x is undefined"), 0)).toEqual({ retry: false, reason: "final" });
  });
  it("treats 429 and 503 alike, whatever the code", () => {
    for (const s of [429, 503]) for (const code of ["unavailable", "rate_limited", "busy", "http_503"]) {
      expect(retryAfterError(new ApiError(s, code, ""), 0, RETRY, zero)).toEqual({ retry: true, delayMs: 2000 });
    }
    expect([0, 429, 502, 503, 504].every(retryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409, 422, 500].some(retryableStatus)).toBe(false);
  });
});
