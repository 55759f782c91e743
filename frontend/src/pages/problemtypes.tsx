// Problem types beyond stdin/stdout (docs/problems.md): the file I/O line
// of a statement, the upload of an output-only problem's outputs on its
// page, and the reference solutions of a problem on its admin page.

import { useRef, useState } from "preact/hooks";
import { api, newIdempotencyKey, type Problem, type SolutionsDoc } from "../api";
import { t, type Key } from "../i18n";
import { session, useStore } from "../state";
import { ErrorBox, Field, fieldError, formError, Notice, useAsync } from "../ui";
import { LiveSubmission } from "./submission";

/** caseOfFileName reads a case number from an output's file name, as the
 *  server does: N, N.out, N.txt, outputN.txt, output_N.out. */
export function caseOfFileName(name: string): number | null {
  const base = name.split(/[\\/]/).pop() ?? "";
  const stem = base.split(".")[0]!.toLowerCase().replace(/^output/, "").replace(/^[_-]+/, "");
  if (!/^\d{1,6}$/.test(stem)) return null;
  const n = Number(stem);
  return n >= 1 ? n : null;
}

/** IOFiles shows where a problem's program reads and writes. */
export function IOFiles({ p }: { p: Problem }) {
  if (p.output_only) {
    return (
      <div>
        <dt>{t("problem.io")}</dt>
        <dd data-testid="problem-io">{t("problem.io.outputOnly")}</dd>
      </div>
    );
  }
  if (!p.input_file && !p.output_file) return null;
  return (
    <div>
      <dt>{t("problem.io")}</dt>
      <dd data-testid="problem-io">
        {t("problem.io.files", {
          input: p.input_file || t("problem.io.stdin"),
          output: p.output_file || t("problem.io.stdout"),
        })}
      </dd>
    </div>
  );
}

/** OutputsPanel submits an output-only problem's outputs: a zip of them,
 *  or one file per case (named after its case: 1.out, 2.out, …). */
export function OutputsPanel({ slug, contest, caseCount }: { slug: string; contest?: string; caseCount: number | null }) {
  const user = useStore(session).user;
  const [zip, setZip] = useState<File | null>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [submitted, setSubmitted] = useState<number | null>(null);
  const key = useRef<string | null>(null);
  const unnamed = files.filter((f) => caseOfFileName(f.name) === null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    key.current ??= newIdempotencyKey();
    setBusy(true);
    setError(null);
    try {
      const cases = files.map((f) => [caseOfFileName(f.name)!, f] as [number, File]);
      const r = await api.submitOutputs({ problem: slug, contest, zip, cases }, key.current);
      key.current = null;
      setSubmitted(r.id);
    } catch (err) {
      key.current = null;
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="submit-panel" aria-labelledby="outputs-h">
      <h2 id="outputs-h">{t("outputs.title")}</h2>
      <p class="muted">{t("outputs.hint")}</p>
      {!user && (
        <p class="alert alert-info">
          <a href={`/login?next=${encodeURIComponent(location.pathname)}`}>{t("nav.login")}</a> — {t("common.loginRequired")}
        </p>
      )}
      <form class="form" onSubmit={submit}>
        <Field id="outputs-zip" label={t("outputs.zip")} type="file" accept=".zip,application/zip" error={fieldError(error, "file")}
          onChange={(e) => setZip(e.currentTarget.files?.[0] ?? null)} />
        <Field id="outputs-files" label={t("outputs.files")} type="file" multiple
          onChange={(e) => setFiles(Array.from(e.currentTarget.files ?? []))} />
        {unnamed.length > 0 && <Notice kind="warn">{t("outputs.unnamed", { names: unnamed.map((f) => f.name).join(", ") })}</Notice>}
        <ErrorBox error={formError(error, ["file"])} />
        <div class="actions">
          <button type="submit" class="btn btn-primary" disabled={busy || !user || (!zip && files.length === 0) || unnamed.length > 0}>
            {busy ? t("editor.submitting") : t("outputs.submit")}
          </button>
        </div>
      </form>
      {submitted !== null && <LiveSubmission key={submitted} id={submitted} caseCount={caseCount} />}
    </section>
  );
}

/** SolutionsPanel lists a problem's reference solutions, runs them, and
 *  shows whether each got its expected verdict. */
export function SolutionsPanel({ slug }: { slug: string }) {
  const list = useAsync(() => api.solutions(slug), [slug]);
  const [doc, setDoc] = useState<SolutionsDoc | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const shown = doc ?? list.data;
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setDoc(await api.runSolutions(slug));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const refresh = async () => {
    try {
      setDoc(await api.solutions(slug));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section class="admin-section" aria-labelledby="solutions-h">
      <h2 id="solutions-h">{t("solutions.title")}</h2>
      <ErrorBox error={list.error ?? error} onRetry={list.reload} />
      {shown && shown.solutions.length === 0 && <p class="muted">{t("solutions.none")}</p>}
      {shown && shown.solutions.length > 0 && (
        <>
          <p data-testid="solutions-summary">{shown.ok ? t("solutions.allOk") : t("solutions.notAllOk")}</p>
          <table class="table">
            <thead>
              <tr>
                <th>{t("solutions.name")}</th>
                <th>{t("solutions.language")}</th>
                <th>{t("solutions.expected")}</th>
                <th>{t("solutions.got")}</th>
                <th>{t("solutions.state")}</th>
              </tr>
            </thead>
            <tbody>
              {shown.solutions.map((s) => (
                <tr key={s.id} class={s.state === "mismatch" ? "row-bad" : undefined}>
                  <td>{s.name}</td>
                  <td>{s.language}</td>
                  <td>{s.expected}</td>
                  <td>{s.submission_id ? <a href={`/submissions/${s.submission_id}`}>{s.verdict}</a> : "—"}</td>
                  <td>
                    {t(`solutions.state.${s.state}` as Key)}
                    {s.stale ? ` (${t("solutions.stale")})` : ""}
                    {s.error ? ` — ${s.error}` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="toolbar">
            <button type="button" class="btn btn-primary" disabled={busy} onClick={run}>
              {t("solutions.run")}
            </button>
            <button type="button" class="btn btn-ghost" onClick={refresh}>
              {t("solutions.refresh")}
            </button>
          </div>
        </>
      )}
    </section>
  );
}

