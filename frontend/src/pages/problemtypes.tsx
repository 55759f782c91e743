// Problem types beyond stdin/stdout (docs/problems.md): the file I/O line
// of a statement, the upload of an output-only problem's outputs on its
// page. (The reference solutions of a problem: admin/solutions.tsx.)

import { useRef, useState } from "preact/hooks";
import { api, newIdempotencyKey, type Problem } from "../api";
import { t } from "../i18n";
import { session, useStore } from "../state";
import { ErrorBox, Field, fieldError, formError, Notice } from "../ui";
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
