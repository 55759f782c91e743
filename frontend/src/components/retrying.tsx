// Automatic retries with a visible countdown, for actions the server may
// answer with "busy, try later" (429/503 + Retry-After, or no answer, or
// 502/504 from nginx). The decisions are src/retry.ts; this runs the wait,
// re-renders the countdown and lets the user cancel it.
//
//   const r = useAutoRetry();
//   const out = await r.run(() => api.login(u, p));   // retries inside
//   <RetryNotice retry={r} texts={{ waiting, trying }} />

import { ApiError } from "../api";
import { t, type Key } from "../i18n";
import { RETRY, retryAfterError, type RetryPolicy } from "../retry";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface RetryWait {
  /** 1 for the first automatic retry. */
  attempt: number;
  /** waiting: counting down to `until` (ms); trying: the retry is in flight. */
  phase: "waiting" | "trying";
  until: number;
  /** The failure being retried. */
  error: unknown;
}

export type RetryOutcome<T> =
  | { ok: true; value: T }
  /** exhausted: every automatic retry failed too; tries: how many were made in all. */
  | { ok: false; cancelled: false; error: unknown; exhausted: boolean; tries: number }
  | { ok: false; cancelled: true };

const CANCELLED = { ok: false, cancelled: true } as const;

export interface AutoRetry {
  run<T>(op: () => Promise<T>): Promise<RetryOutcome<T>>;
  /** Stops the countdown; run resolves as cancelled. */
  cancel(): void;
  wait: RetryWait | null;
  /** Whole seconds left in the countdown (0 while trying). */
  secondsLeft: number;
}

export function useAutoRetry(policy: RetryPolicy = RETRY): AutoRetry {
  const [wait, setWait] = useState<RetryWait | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const gen = useRef(0);
  const wake = useRef<((go: boolean) => void) | null>(null);
  const alive = useRef(true);

  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      gen.current++;
      wake.current?.(false);
    };
  }, []);

  // The countdown: re-render a few times a second while waiting.
  const waiting = wait?.phase === "waiting";
  useEffect(() => {
    if (!waiting) return;
    setNow(Date.now());
    const h = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(h);
  }, [waiting, wait?.attempt]);

  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const h = setTimeout(() => {
        wake.current = null;
        resolve(true);
      }, ms);
      wake.current = (go) => {
        clearTimeout(h);
        wake.current = null;
        resolve(go);
      };
    });

  const run = useCallback(async <T,>(op: () => Promise<T>): Promise<RetryOutcome<T>> => {
    wake.current?.(false);
    const my = ++gen.current;
    for (let attempt = 0; ; attempt++) {
      try {
        const value = await op();
        // A try already in flight when the page went away is not reported;
        // one that succeeds after Cancel is (Cancel only stops waiting).
        if (!alive.current) return CANCELLED;
        if (my === gen.current) setWait(null);
        return { ok: true, value };
      } catch (error) {
        if (!alive.current || my !== gen.current) return CANCELLED;
        const d = retryAfterError(error, attempt, policy);
        if (!d.retry) {
          setWait(null);
          return { ok: false, cancelled: false, error, exhausted: d.reason === "exhausted", tries: attempt + 1 };
        }
        const until = Date.now() + d.delayMs;
        setNow(Date.now());
        setWait({ attempt: attempt + 1, phase: "waiting", until, error });
        if (!(await sleep(d.delayMs)) || my !== gen.current) return CANCELLED;
        setWait({ attempt: attempt + 1, phase: "trying", until, error });
      }
    }
  }, [policy]);

  const cancel = useCallback(() => {
    gen.current++;
    wake.current?.(false);
    setWait(null);
  }, []);

  const secondsLeft = wait?.phase === "waiting" ? Math.max(0, Math.ceil((wait.until - now) / 1000)) : 0;
  return { run, cancel, wait, secondsLeft };
}

export interface RetryTexts {
  /** {seconds} placeholder. */
  waiting: Key;
  trying: Key;
}

/** RetryNotice shows the countdown in a polite live region (rendered even
 *  when idle, so screen readers hear the first message) and, while
 *  counting down, a Cancel button. */
export function RetryNotice({ retry, texts, id }: { retry: AutoRetry; texts: RetryTexts; id: string }) {
  const w = retry.wait;
  const offline = w && w.error instanceof ApiError && w.error.status === 0;
  const msg = !w
    ? ""
    : w.phase === "waiting"
      ? t(offline ? "retry.offline.waiting" : texts.waiting, { seconds: retry.secondsLeft })
      : t(offline ? "retry.offline.trying" : texts.trying);
  return (
    <div class={w ? "alert alert-warn retry-notice" : "retry-notice retry-idle"} data-retry={w?.phase ?? "idle"} data-attempt={w?.attempt}>
      <span id={id} role="status" aria-live="polite" aria-atomic="true">
        {msg}
      </span>
      {w?.phase === "waiting" && (
        <button type="button" class="btn btn-small" aria-describedby={id} onClick={retry.cancel}>
          {t("common.cancel")}
        </button>
      )}
    </div>
  );
}
