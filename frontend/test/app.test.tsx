// @vitest-environment jsdom
// Smoke test of the shell and the problem list against a fake API: the app
// mounts, routes, and renders what GET /api/problems returns, in both
// languages. (The browser end-to-end test lives elsewhere.)
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/app";
import { setLang } from "../src/i18n";
import { session } from "../src/state";

function fakeFetch(routes: Record<string, unknown>) {
  return vi.fn(async (input: RequestInfo | URL) => {
    const path = String(input).split("?")[0]!;
    if (path in routes) return new Response(JSON.stringify(routes[path]), { status: 200, headers: { "Content-Type": "application/json" } });
    return new Response(JSON.stringify({ error: { code: "not_found", message: "no" } }), { status: 404 });
  });
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await act(async () => await new Promise((r) => setTimeout(r, 0)));
};

describe("App", () => {
  // Preact runs effects after paint: requestAnimationFrame with a 100 ms
  // setTimeout fallback. Let those timers fire while jsdom still exists;
  // otherwise one can fire after teardown ("cancelAnimationFrame is not
  // defined") and fail the run at random.
  afterAll(async () => {
    await new Promise((r) => setTimeout(r, 250));
  });

  afterEach(() => {
    vi.unstubAllGlobals();
    setLang("en");
  });

  it("renders the problem list from the API, then in Chinese", async () => {
    vi.stubGlobal(
      "fetch",
      fakeFetch({ "/api/problems": { problems: [{ slug: "a-plus-b", title: "A + B", time_limit_ms: 1000, memory_limit_kb: 262144, mode: "icpc" }] } }),
    );
    session.set({ loaded: true, user: null });
    history.replaceState(null, "", "/problems");
    const host = document.createElement("div");
    document.body.appendChild(host);
    await act(() => render(<App />, host));
    await flush();
    expect(host.querySelector("h1")?.textContent).toBe("Problems");
    const link = host.querySelector('a[href="/problems/a-plus-b"]');
    expect(link?.textContent).toBe("A + B");
    expect(host.textContent).toContain("1 s · 256.0 MB");
    await act(() => setLang("zh"));
    expect(host.querySelector("h1")?.textContent).toBe("题目列表");
    expect(document.documentElement.lang).toBe("zh-CN");
    expect(localStorage.getItem("verdict.lang")).toBe("zh");
    render(null, host);
  });

  it("shows not found for unknown paths", async () => {
    vi.stubGlobal("fetch", fakeFetch({}));
    history.replaceState(null, "", "/no/such/page/here");
    const host = document.createElement("div");
    await act(() => render(<App />, host));
    expect(host.querySelector("h1")?.textContent).toBe("Page not found.");
    render(null, host);
  });
});
