import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, importErrors, READ_RETRIES, READ_RETRY_MAX_S, request, setCsrfToken, unknownUsernames, unwrapContest, unwrapList, unwrapOne } from "../src/api";
import { fakeAPI } from "./fakeapi";

describe("API document shapes", () => {
  it("reads lists wrapped by name or as items", () => {
    expect(unwrapList({ problems: [{ slug: "a" }] }, "problems").items).toEqual([{ slug: "a" }]);
    expect(unwrapList({ items: [1], next_cursor: "c" }, "problems")).toEqual({ items: [1], next_cursor: "c" });
    expect(unwrapList({}, "problems").items).toEqual([]);
  });
  it("reads one document wrapped or bare", () => {
    expect(unwrapOne({ problem: { slug: "a" } }, "problem")).toEqual({ slug: "a" });
    expect(unwrapOne({ slug: "a", title: "A" }, "problem")).toEqual({ slug: "a", title: "A" });
  });
  it("merges a contest and its problems (docs/api.md shape)", () => {
    const c = unwrapContest({ contest: { slug: "demo", rule: "icpc" }, problems: [{ label: "A", slug: "a", title: "A", points: 100 }] });
    expect(c.slug).toBe("demo");
    expect(c.problems?.map((p) => p.label)).toEqual(["A"]);
    expect(unwrapContest({ slug: "x", rule: "ioi", problems: [] }).problems).toEqual([]);
  });
});

describe("error bodies", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("keeps the whole body: unknown usernames of a participants 422", async () => {
    const f = fakeAPI({
      "POST /api/contests/cup/participants": () => ({
        status: 422,
        body: { error: { code: "validation", message: "unknown users: carol", field: "usernames", unknown: ["carol", 7, "dave"] } },
      }),
    });
    vi.stubGlobal("fetch", f.fetch);
    setCsrfToken("tok");
    const err = await api.addParticipants("cup", ["bob", "carol", "dave"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
    expect((err as ApiError).field).toBe("usernames");
    expect(unknownUsernames(err)).toEqual(["carol", "dave"]);
    expect(f.calls[0]).toMatchObject({ method: "POST", body: { usernames: ["bob", "carol", "dave"] } });
    expect(f.calls[0]!.headers["X-CSRF-Token"]).toBe("tok");
  });

  it("reads the per-line errors of a refused CSV import", async () => {
    const f = fakeAPI({
      "POST /api/users/import": () => ({
        status: 400,
        body: {
          error: { code: "validation", field: "file", message: "2 line(s) have errors" },
          errors: [{ line: 3, field: "username", message: "bad" }, { line: "x" }, { line: 5, message: "taken" }],
        },
      }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const err = await api.importUsers(new File(["username\n"], "u.csv")).catch((e: unknown) => e);
    expect(importErrors(err)).toEqual([
      { line: 3, field: "username", message: "bad" },
      { line: 5, message: "taken" },
    ]);
    expect(importErrors(new Error("x"))).toEqual([]);
    expect(unknownUsernames(err)).toEqual([]);
  });

  it("sends the CSRF token on every staff write of this change", async () => {
    const f = fakeAPI({
      "DELETE /api/contests/cup/participants/bob": () => ({ status: 204 }),
      "POST /api/contests/cup/clarifications/7/answer": { clarification: { id: 7, answer: "Yes.", public: true } },
      "POST /api/contests/cup/register": { contest: "cup", registered: true },
      "GET /api/contests/cup/participants": { participants: [{ user_id: 1, username: "bob", registered_at: "2026-03-01T10:00:00Z" }] },
    });
    vi.stubGlobal("fetch", f.fetch);
    setCsrfToken("tok2");
    await api.removeParticipant("cup", "bob");
    const c = await api.answerClarification("cup", 7, { answer: "Yes.", public: true });
    expect(c).toEqual({ id: 7, answer: "Yes.", public: true });
    await api.registerContest("cup");
    const p = await api.participants("cup");
    expect(p.items.map((x) => x.username)).toEqual(["bob"]);
    expect(f.calls.map((c) => [c.method, c.path, c.headers["X-CSRF-Token"] ?? null])).toEqual([
      ["DELETE", "/api/contests/cup/participants/bob", "tok2"],
      ["POST", "/api/contests/cup/clarifications/7/answer", "tok2"],
      ["POST", "/api/contests/cup/register", "tok2"],
      ["GET", "/api/contests/cup/participants", null],
    ]);
    expect(f.calls[1]!.body).toEqual({ answer: "Yes.", public: true });
  });
});

describe("reads answered busy", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("sends a read again after Retry-After, and stops after a few tries", async () => {
    vi.useFakeTimers();
    let n = 0;
    const f = fakeAPI({
      "GET /api/problems": () =>
        ++n <= 2
          ? { status: 503, body: { error: { code: "busy", message: "the server is busy" } }, headers: { "Retry-After": "2" } }
          : { body: { problems: [{ slug: "a" }] } },
    });
    vi.stubGlobal("fetch", f.fetch);
    const p = request<{ problems: { slug: string }[] }>("/api/problems");
    await vi.advanceTimersByTimeAsync(1999);
    expect(f.calls.length).toBe(1); // never before the server's time
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await p).problems[0]!.slug).toBe("a");
    expect(f.calls.length).toBe(3);

    n = -100; // busy for good: the error after READ_RETRIES retries
    f.calls.length = 0;
    const q = request("/api/problems").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    const err = await q;
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).retryAfter).toBe(2);
    expect(f.calls.length).toBe(1 + READ_RETRIES);
  });

  it("does not resend writes, long waits or answers without Retry-After", async () => {
    const f = fakeAPI({
      "POST /api/contests/cup/register": () => ({ status: 503, body: {}, headers: { "Retry-After": "1" } }),
      "GET /api/contests": () => ({ status: 503, body: {}, headers: { "Retry-After": String(READ_RETRY_MAX_S + 1) } }),
      "GET /api/problems": () => ({ status: 503, body: {} }),
    });
    vi.stubGlobal("fetch", f.fetch);
    setCsrfToken("t");
    for (const [method, path] of [["POST", "/api/contests/cup/register"], ["GET", "/api/contests"], ["GET", "/api/problems"]] as const) {
      const err = await request(path, { method }).catch((e: unknown) => e);
      expect((err as ApiError).status).toBe(503);
    }
    expect(f.calls.length).toBe(3);
  });

  it("stops waiting when the page is left", async () => {
    const f = fakeAPI({ "GET /api/problems": () => ({ status: 429, body: {}, headers: { "Retry-After": "5" } }) });
    vi.stubGlobal("fetch", f.fetch);
    const ac = new AbortController();
    const p = request("/api/problems", { signal: ac.signal }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    expect(await p).toBeDefined();
    expect(f.calls.length).toBe(1);
  });
});
