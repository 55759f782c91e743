// A fake web node for the DOM tests: routes "METHOD /path" to handlers and
// records every call (method, path, query, headers, JSON body or FormData).
// A handler may answer with headers too (e.g. Retry-After).
import { vi } from "vitest";

export interface Call {
  method: string;
  path: string;
  /** The query string of the request. */
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
  /** A multipart body (FormData), when the call sent one. */
  form?: FormData;
}

export type Handler = (call: Call) => { status?: number; body?: unknown; headers?: Record<string, string> } | undefined;

export function fakeAPI(routes: Record<string, Handler | object>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://localhost");
    const method = (init?.method ?? "GET").toUpperCase();
    const headers = (init?.headers ?? {}) as Record<string, string>;
    let body: unknown;
    if (typeof init?.body === "string") body = JSON.parse(init.body);
    const form = init?.body instanceof FormData ? init.body : undefined;
    const call: Call = { method, path: url.pathname, query: url.searchParams, headers, body, form };
    calls.push(call);
    const r = routes[`${method} ${url.pathname}`];
    if (r === undefined) {
      return new Response(JSON.stringify({ error: { code: "not_found", message: `no route ${method} ${url.pathname}` } }), { status: 404 });
    }
    const out = typeof r === "function" ? (r as Handler)(call) ?? {} : { body: r };
    const status = out.status ?? 200;
    if (status === 204) return new Response(null, { status, headers: out.headers });
    return new Response(JSON.stringify(out.body ?? {}), { status, headers: { "Content-Type": "application/json", ...out.headers } });
  });
  return { fetch, calls };
}
