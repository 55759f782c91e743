// "Run on my input" next to the editor: an input box, Run, and the output,
// stderr (bounded by the judge), time and memory of one run of the current
// source on that input, optionally also on the sample tests (compared with
// their answers). A custom run is not a submission (docs/api.md); its
// progress and outcome come live on the user's channel ("custom_run"
// events), with GET /api/custom-runs/{id} as the fallback.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../api";
import { t } from "../i18n";
import { memory, millis } from "../format";
import { isFinal, type CustomOutput, type CustomRunState } from "../live/protocol";
import { live, session, useStore } from "../state";
import { ErrorBox, VerdictBadge } from "../ui";

export function CustomRunPanel({
  slug,
  contest,
  language,
  source,
}: {
  slug: string;
  contest?: string;
  language: string;
  /** The editor's current text. */
  source: () => string;
}) {
  const user = useStore(session).user;
  const [input, setInput] = useState("");
  const [samples, setSamples] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [run, setRun] = useState<CustomRunState | null>(null);
  const runId = useRef<number | null>(null);

  // Live: this user's custom run events; only the latest run is shown.
  useEffect(() => {
    if (!user) return;
    return live().subscribe(
      { kind: "user", id: user.id },
      {
        snapshot: () => {
          // A (re)subscription may have missed the outcome: read it.
          const id = runId.current;
          if (id !== null) api.getCustomRun(id).then((st) => runId.current === id && setRun(st)).catch(() => {});
        },
        event: (ev) => {
          if (ev.kind !== "custom_run") return;
          const st = ev.body as CustomRunState;
          if (st && st.run_id === runId.current) setRun(st);
        },
      },
    );
  }, [user?.id]);

  // Fallback poll while the run is pending (a socket that is down).
  useEffect(() => {
    if (!run || isFinal(run.status)) return;
    const id = run.run_id;
    const timer = setTimeout(() => {
      api.getCustomRun(id).then((st) => runId.current === id && setRun((cur) => (cur && isFinal(cur.status) ? cur : st))).catch(() => {});
    }, 3000);
    return () => clearTimeout(timer);
  }, [run]);

  const start = async () => {
    if (busy) return;
    const src = source();
    if (!src.trim()) {
      setError(new ApiError(400, "empty", t("editor.empty"), "source"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const st = await api.customRun({ problem: slug, contest, language, source: src, input, samples });
      runId.current = st.run_id;
      setRun((cur) => (cur && cur.run_id === st.run_id ? cur : st));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const pending = run !== null && !isFinal(run.status);
  return (
    <section class="custom-run" aria-labelledby="run-h" data-testid="custom-run">
      <h3 id="run-h">{t("run.title")}</h3>
      <label for="run-input">{t("run.input")}</label>
      <textarea id="run-input" class="run-input" rows={4} spellcheck={false} value={input} onInput={(e) => setInput(e.currentTarget.value)} />
      <div class="actions">
        <label class="check">
          <input type="checkbox" checked={samples} onChange={(e) => setSamples(e.currentTarget.checked)} /> {t("run.samples")}
        </label>
        <button type="button" class="btn" data-testid="run-button" disabled={busy || pending || !user || !language} onClick={start}>
          {busy || pending ? t("run.running") : t("run.run")}
        </button>
      </div>
      <p class="muted hint">{t("run.note")}</p>
      <ErrorBox error={error} />
      {run && (
        <div class="run-result" aria-live="polite" data-testid="run-result" data-status={run.status}>
          <p class="run-status">
            <VerdictBadge verdict={run.status} />
          </p>
          {run.compile_message && <pre class="run-compile">{run.compile_message}</pre>}
          {(run.runs ?? []).map((o) => (
            <RunOutput key={o.case} o={o} />
          ))}
        </div>
      )}
    </section>
  );
}

function RunOutput({ o }: { o: CustomOutput }) {
  return (
    <div class="run-output" data-testid={`run-output-${o.case}`}>
      <h4>
        {o.case === 0 ? t("run.case.input") : t("run.case.sample", { n: o.case })} —{" "}
        <VerdictBadge verdict={o.verdict} />
      </h4>
      <dl class="limits">
        <div>
          <dt>{t("run.time")}</dt>
          <dd>{millis(o.cpu_ms)}</dd>
        </div>
        <div>
          <dt>{t("run.memory")}</dt>
          <dd>{memory(o.memory_kib)}</dd>
        </div>
        <div>
          <dt>{t("run.exit")}</dt>
          <dd>{o.exit_code}</dd>
        </div>
      </dl>
      {o.message && <p class="muted">{o.message}</p>}
      <p class="run-label">
        {t("run.output")} {o.stdout_truncated && <span class="muted">{t("run.truncated")}</span>}
      </p>
      <pre class="run-stdout" data-testid="run-stdout">
        {o.stdout}
      </pre>
      {(o.stderr || o.stderr_truncated) && (
        <>
          <p class="run-label">
            {t("run.stderr")} {o.stderr_truncated && <span class="muted">{t("run.truncated")}</span>}
          </p>
          <pre class="run-stderr">{o.stderr}</pre>
        </>
      )}
    </div>
  );
}
