// The web node's HTTP API, the transport: one fetch wrapper that sends the
// CSRF token on cookie-authenticated writes and turns error bodies into
// ApiError; call() is request() typed by the route in docs/openapi.json
// (./openapi.gen.ts), so a path, method, body or answer the spec does not
// have fails the type check.

import type { BodyOf, OperationId, Operations, ResponseOf } from "./openapi.gen";

/** An error answer: {"error":{"code","message","field"}} or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number, // 0: the request did not get an answer
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfter?: number,
    /** The whole parsed error body, for answers that carry more than
     * {code,message,field} (e.g. "unknown" usernames, per-line "errors"). */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let csrfToken = "";
export function setCsrfToken(t: string): void {
  csrfToken = t;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
/** Writes that do not need the token (they create the session). */
const NO_CSRF = new Set(["POST /api/session", "POST /api/register", "POST /api/users"]);

export interface RequestOptions {
  method?: string;
  body?: unknown; // JSON-encoded unless FormData
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function parseError(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  let field: string | undefined;
  let body: unknown;
  try {
    const j = (await res.json()) as { error?: { code?: string; message?: string; field?: string } };
    body = j;
    if (j && j.error) {
      code = j.error.code || code;
      message = j.error.message || message;
      field = j.error.field || undefined;
    }
  } catch {
    /* not JSON: keep the status text */
  }
  return new ApiError(res.status, code, message, field, retryAfterSeconds(res.headers.get("Retry-After")), body);
}

/** retryAfterSeconds reads a Retry-After header: delay-seconds, or an
 *  HTTP date (RFC 9110 allows both), as whole seconds from now. */
export function retryAfterSeconds(v: string | null, now = Date.now()): number | undefined {
  if (!v) return undefined;
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const n = Math.ceil(Number(t));
    return n > 0 ? n : undefined;
  }
  // Only something that looks like a date ("Wed, 21 Oct 2015 07:28:00 GMT"):
  // Date.parse reads almost anything as some date.
  if (!/[a-z]/i.test(t)) return undefined;
  const at = Date.parse(t);
  if (Number.isNaN(at)) return undefined;
  const s = Math.ceil((at - now) / 1000);
  return s > 0 ? s : undefined;
}

/** unknownUsernames reads the "unknown" list of a participants 422. */
export function unknownUsernames(e: unknown): string[] {
  if (!(e instanceof ApiError)) return [];
  const b = e.body as { error?: { unknown?: unknown }; unknown?: unknown } | undefined;
  const u = b?.error?.unknown ?? b?.unknown;
  return Array.isArray(u) ? u.filter((x): x is string => typeof x === "string") : [];
}

/** importErrors reads the per-line errors of a refused CSV import. */
export function importErrors(e: unknown): { line: number; field?: string; message: string }[] {
  if (!(e instanceof ApiError)) return [];
  const list = (e.body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (x): x is { line: number; field?: string; message: string } =>
      !!x && typeof x === "object" && typeof (x as { line?: unknown }).line === "number" && typeof (x as { message?: unknown }).message === "string",
  );
}

/** A read answered "busy, come back in N s" (429/503 with Retry-After: a
 *  web node's admission gate under a storm, or a rate limit) is sent again
 *  after N s (plus up to 20 % jitter, so a room does not come back at
 *  once), up to READ_RETRIES times and only while N is at most
 *  READ_RETRY_MAX_S: the page loads late instead of failing. Writes are the
 *  caller's to retry (login and submit do, with their countdown).
 *  READ_RETRY_MAX_S is the most a web node's admission gate tells
 *  (admission.DefaultMaxRetryAfter in Go): change both together. */
export const READ_RETRIES = 3;
export const READ_RETRY_MAX_S = 10;

function busyWaitMs(res: Response, attempt: number): number | undefined {
  if ((res.status !== 503 && res.status !== 429) || attempt >= READ_RETRIES) return undefined;
  const s = retryAfterSeconds(res.headers.get("Retry-After"));
  if (s === undefined || s > READ_RETRY_MAX_S) return undefined;
  return Math.round(s * 1000 * (1 + 0.2 * Math.random()));
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = (opts.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] = "application/json";
  }
  const route = `${method} ${path.split("?")[0]}`;
  if (!SAFE.has(method) && !NO_CSRF.has(route) && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let res: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      res = await fetch(path, { method, headers, body, credentials: "same-origin", signal: opts.signal });
    } catch (e) {
      if ((e as Error).name === "AbortError") throw e;
      throw new ApiError(0, "network", (e as Error).message || "network error");
    }
    const wait = SAFE.has(method) ? busyWaitMs(res, attempt) : undefined;
    if (wait === undefined) break;
    await res.body?.cancel();
    await pause(wait, opts.signal);
  }
  if (!res.ok) throw await parseError(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** newIdempotencyKey is a random UUID v4 for one submit click. */
export function newIdempotencyKey(): string {
  // randomUUID needs a secure context (https or localhost); fall back.
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : "";
}

/** A route of the API as the spec writes it: "GET /api/problems/{slug}". */
export type Route = { [K in OperationId]: `${Operations[K]["method"]} ${Operations[K]["path"]}` }[OperationId];
/** The operation of a route. */
export type OpOf<R extends Route> = { [K in OperationId]: `${Operations[K]["method"]} ${Operations[K]["path"]}` extends R ? K : never }[OperationId];

type Params<K extends OperationId> = Operations[K]["params"];
type Extra<K extends OperationId> = (keyof Params<K>["path"] extends never ? { path?: undefined } : { path: Params<K>["path"] }) & {
  query?: { [Q in keyof Params<K>["query"]]?: Params<K>["query"][Q] | null };
} & ([BodyOf<K>] extends [never] ? { body?: undefined } : { body: BodyOf<K> }) & {
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

/**
 * call requests a route of the spec: the {name} parts of its path are
 * filled (URL-encoded) from path, query is appended without its empty
 * values, and the answer is typed as the spec's 2xx answer.
 */
export function call<R extends Route>(route: R, ...[opts]: keyof Params<OpOf<R>>["path"] extends never ? [Extra<OpOf<R>>?] : [Extra<OpOf<R>>]): Promise<ResponseOf<OpOf<R>>> {
  const sp = route.indexOf(" ");
  const method = route.slice(0, sp);
  const vars = (opts?.path ?? {}) as Record<string, string | number>;
  const path = route.slice(sp + 1).replace(/\{(\w+)\}/g, (_, k: string) => {
    if (vars[k] === undefined) throw new Error(`${route}: no ${k}`);
    return encodeURIComponent(String(vars[k]));
  });
  const query = opts?.query ? qs(opts.query as Record<string, string | number | boolean | undefined | null>) : "";
  return request<ResponseOf<OpOf<R>>>(path + query, { method, body: opts?.body, headers: opts?.headers, signal: opts?.signal });
}
