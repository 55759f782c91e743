// @vitest-environment jsdom
// A background rejudge's progress (GET /api/rejudge/{job}) under the admin's
// rejudge form and the status page: asked again until the job is done,
// through a web node's 503, and no more after a 404 or the end.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setCsrfToken } from "../src/api";
import { RejudgeProgress } from "../src/components/rejudgeprogress";
import { setLang } from "../src/i18n";
import { RejudgeAdmin } from "../src/pages/admin/rejudge";
import { fakeAPI } from "./fakeapi";
import { $, cleanup, click, flush, mount, text, type, waitFor } from "./dom";

const status = (over: object) => ({
  job: "j1", total: 3, done: 0, failed: 0, user_id: 1, started_at: "2026-12-03T08:00:00Z", finished: false, interrupted: false, ...over,
});

describe("rejudge progress", () => {
  beforeEach(() => {
    setLang("en");
    setCsrfToken("csrf-1");
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("asks until the job is finished, then stops", async () => {
    const answers = [status({ done: 1 }), status({ done: 2 }), status({ done: 3, finished: true, finished_at: "2026-12-03T08:01:00Z" })];
    let n = 0;
    const f = fakeAPI({ "GET /api/rejudge/j1": () => ({ body: answers[Math.min(n++, answers.length - 1)] }) });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<RejudgeProgress job="j1" total={3} pollMs={0} />);
    await waitFor(() => text(host).includes("Rejudging: 1 of 3") || null, "the first progress");
    await waitFor(() => text(host).includes("Rejudge done: 3 of 3") || null, "the end");
    expect(host.querySelector(".alert-ok")).not.toBeNull();
    const asked = f.calls.length;
    await flush(10);
    expect(f.calls.length).toBe(asked); // no more asking once finished
    expect(asked).toBe(3);
  });

  it("asks again after a 503 and shows failures", async () => {
    let n = 0;
    const f = fakeAPI({
      "GET /api/rejudge/j1": () =>
        n++ === 0
          ? // No Retry-After: the API client hands it back at once (with one it waits and asks again itself).
            { status: 503, body: { error: { code: "unavailable", message: "a backing service is unavailable" } } }
          : { body: status({ done: 2, failed: 1, finished: true }) },
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<RejudgeProgress job="j1" total={3} pollMs={0} />);
    await waitFor(() => text(host).includes("Rejudge done: 2 of 3") || null, "the end after a 503");
    expect(text(host)).toContain("1 could not be queued");
    expect(host.querySelector(".alert-warn")).not.toBeNull();
    expect(host.querySelector(".alert-error")).toBeNull(); // the 503's error is gone once answered
  });

  it("stops on a 404 (expired job) and says so", async () => {
    const f = fakeAPI({
      "GET /api/rejudge/j1": () => ({ status: 404, body: { error: { code: "not_found", message: "no such rejudge job", field: "job" } } }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<RejudgeProgress job="j1" total={3} pollMs={0} />);
    await waitFor(() => host.querySelector(".alert-error"), "the error");
    await flush(10);
    expect(f.calls.length).toBe(1);
  });

  it("says an interrupted job left the rest with their verdict", async () => {
    const f = fakeAPI({ "GET /api/rejudge/j1": () => ({ body: status({ done: 1, interrupted: true }) }) });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<RejudgeProgress job="j1" total={3} pollMs={0} />);
    await waitFor(() => text(host).includes("stopped after 1 of 3") || null, "the interruption");
    await flush(10);
    expect(f.calls.length).toBe(1);
  });

  it("the admin form shows the job it started", async () => {
    const f = fakeAPI({
      "POST /api/rejudge": () => ({ status: 202, body: { queued: 3, background: true, job: "j1" } }),
      "GET /api/rejudge/j1": () => ({ body: status({ done: 3, finished: true }) }),
    });
    vi.stubGlobal("fetch", f.fetch);
    const { host } = await mount(<RejudgeAdmin />);
    await click(host.querySelector('input[value="problem"]'));
    await type($(host, "#rj-value"), "sum");
    await click(host.querySelector('button[type="submit"]'));
    await waitFor(() => text(host).includes("Rejudge done: 3 of 3") || null, "the job's progress");
    expect(f.calls.find((c) => c.method === "POST")?.body).toEqual({ problem: "sum" });
    expect(host.querySelector('.rejudge-progress[data-job="j1"]')).not.toBeNull();
  });
});
