// Small shared components and hooks.

import type { ComponentChildren, InputHTMLAttributes, RefObject } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api";
import { t, verdictLabel } from "./i18n";
import { verdictTone } from "./live/submission";

/** errorText turns any error into a sentence for the user. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    switch (true) {
      case e.status === 0:
        return t("common.networkError");
      case e.status === 401:
        return t("common.loginRequired");
      case e.status === 403 && e.code !== "csrf":
        return e.message || t("common.forbidden");
      case e.status === 429:
        return t("common.rateLimited", { seconds: e.retryAfter ?? 10 });
      case e.status === 503:
        return t("common.unavailable", { message: e.message });
      default:
        return e.message;
    }
  }
  return t("common.error", { message: e instanceof Error ? e.message : String(e) });
}

/** waitTime names a wait of `seconds` (a Retry-After) the way people say
 *  it: "45 s", "15 min", "1 h 30 min". Rounded up, so it never promises
 *  less than the server asked for. */
export function waitTime(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return t("common.seconds", { n: s });
  const m = Math.ceil(s / 60);
  if (m < 60) return t("common.minutes", { n: m });
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? t("common.hours", { n: h }) : t("common.hoursMinutes", { h, m: m % 60 });
}

export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  setData: (fn: (d: T | undefined) => T | undefined) => void;
}

/** useAsync runs fn when deps change and keeps the latest answer only. */
export function useAsync<T>(fn: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ac = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    fn(ac.signal).then(
      (data) => !ac.signal.aborted && setState({ data, loading: false }),
      (error) => !ac.signal.aborted && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => ac.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const setData = useCallback((f: (d: T | undefined) => T | undefined) => setState((s) => ({ ...s, data: f(s.data) })), []);
  return { data: state.data, error: state.error, loading: state.loading, reload, setData };
}

export function Loading() {
  return (
    <p class="muted" role="status" aria-live="polite">
      {t("common.loading")}
    </p>
  );
}

export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  return (
    <div class="alert alert-error" role="alert">
      <span>{errorText(error)}</span>
      {onRetry && (
        <button type="button" class="btn btn-small" onClick={onRetry}>
          {t("common.retry")}
        </button>
      )}
    </div>
  );
}

export function Notice({ kind = "info", children }: { kind?: "info" | "ok" | "warn" | "error"; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}

export function VerdictBadge({ verdict, short = false }: { verdict: string; short?: boolean }) {
  if (!verdict) return <span class="verdict verdict-empty" aria-label={t("verdict.waiting")} />;
  return (
    <span class={`verdict verdict-${verdictTone(verdict)}`} title={verdictLabel(verdict)}>
      {short ? verdict : verdictLabel(verdict)}
    </span>
  );
}

/** fieldErrors maps an ApiError with a field to that field's message. */
export function fieldError(err: unknown, field: string): string | undefined {
  return err instanceof ApiError && err.field === field ? err.message : undefined;
}

/** formError is the error to show above a form (not tied to a field). */
export function formError(err: unknown, fields: string[]): unknown {
  if (err instanceof ApiError && err.field && fields.includes(err.field)) return null;
  return err;
}

type FieldProps = {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children?: ComponentChildren;
} & InputProps;

/** The input attributes Field passes through (typed loosely: Preact 11's
 *  InputHTMLAttributes is a union that does not survive Omit). */
type InputProps = Partial<Record<string, unknown>> & {
  onInput?: (e: { currentTarget: HTMLInputElement }) => void;
  onChange?: (e: { currentTarget: HTMLInputElement }) => void;
};

/** Field is a labelled input with its error message wired to aria. */
export function Field({ id, label, error, hint, children, ...input }: FieldProps) {
  const describedBy = [error ? `${id}-err` : "", hint ? `${id}-hint` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>{label}</label>
      {children ?? <input id={id} name={id} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy} {...(input as InputHTMLAttributes<HTMLInputElement>)} />}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error && (
        <small id={`${id}-err`} class="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

/** useNow re-renders every `ms` and returns Date.now(). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const h = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(h);
  }, [ms]);
  return now;
}

/** useTitle sets document.title. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${t("app.name")}` : t("app.name");
  }, [title]);
}

/** useFocusHeading moves focus to the page's h1 after navigation (screen readers). */
export function useFocusHeading(): RefObject<HTMLHeadingElement | null> {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return ref;
}
