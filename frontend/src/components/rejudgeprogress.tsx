// How far a background rejudge got (GET /api/rejudge/{job}): the admin's
// rejudge form and the status page's "Rejudge these" show it under their
// button until the job is done.
//
// It asks again every RejudgePollMs: the job's progress is a counter in
// Redis that no channel publishes (the rejudged submissions' own statuses
// do come live, on the status page's channel). A 5xx or no answer (a web
// node restarting) is asked again later; a 4xx (the job expired, the
// session ended) ends it with the error shown.

import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type RejudgeStatus } from "../api";
import { t } from "../i18n";
import { ErrorBox, Notice } from "../ui";

/** How often the progress is asked again while the job runs. */
export const RejudgePollMs = 2000;

/** pollMs: how often to ask (RejudgePollMs; the tests ask faster). */
export function RejudgeProgress({ job, total, pollMs = RejudgePollMs }: { job: string; total: number; pollMs?: number }) {
  const [st, setSt] = useState<RejudgeStatus | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = async () => {
      try {
        const s = await api.rejudgeStatus(job, ac.signal);
        if (ac.signal.aborted) return;
        setSt(s);
        setError(null);
        if (s.finished || s.interrupted) return;
      } catch (e) {
        if (ac.signal.aborted) return;
        setError(e);
        if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429) return;
      }
      timer = setTimeout(ask, pollMs);
    };
    void ask();
    return () => {
      ac.abort();
      clearTimeout(timer);
    };
  }, [job, pollMs]);

  const n = st?.total ?? total;
  const done = st?.done ?? 0;
  const failed = st?.failed ?? 0;
  return (
    <div class="rejudge-progress" data-job={job}>
      {st?.interrupted ? (
        <Notice kind="warn">{t("admin.rejudgeInterrupted", { done, total: n })}</Notice>
      ) : st?.finished ? (
        <Notice kind={failed > 0 ? "warn" : "ok"}>
          {t("admin.rejudgeFinished", { done, total: n })}
          {failed > 0 && <> {t("admin.rejudgeFailed", { n: failed })}</>}
        </Notice>
      ) : (
        <Notice kind="info">
          <label>
            {t("admin.rejudgeRunning", { done, total: n })}{" "}
            <progress max={Math.max(n, 1)} value={done} />
          </label>
          {failed > 0 && <> {t("admin.rejudgeFailed", { n: failed })}</>}
        </Notice>
      )}
      {error !== null && <ErrorBox error={error} />}
    </div>
  );
}
