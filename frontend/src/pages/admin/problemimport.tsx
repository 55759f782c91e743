// Admin: a problem from an ICPC problem package (zip).

import { useState } from "preact/hooks";
import { api, type ProblemImportResult } from "../../api";
import { t } from "../../i18n";
import { ErrorBox, Field, fieldError, formError } from "../../ui";
import { Section, useSubmit, VISIBILITIES } from "./form";
import { ImportChecks } from "./importchecks";

const IMPORT_FIELDS = ["file", "slug", "visibility", "languages"];

/** ProblemImport creates a problem from an ICPC problem package (zip):
 *  the server converts it (POST /api/problems/import) and says what it
 *  did not import in notes, shown with a link to the new problem. */
export function ProblemImport({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [slug, setSlug] = useState("");
  const [visibility, setVisibility] = useState("private");
  const [languages, setLanguages] = useState("");
  const imp = useSubmit<ProblemImportResult>();
  const fe = (k: string) => fieldError(imp.error, k);
  const r = imp.result;
  return (
    <Section title={t("admin.icpc.title")}>
      <p id="imp-about" class="muted hint">
        {t("admin.icpc.hint")}
      </p>
      <form
        class="form"
        aria-describedby="imp-about"
        data-testid="icpc-import"
        onSubmit={(e) => {
          e.preventDefault();
          if (!file) return;
          imp.run(async () => {
            const res = await api.importProblem(file, { slug, visibility, languages });
            onImported();
            return res;
          });
        }}
      >
        <Field id="imp-file" label={t("admin.icpc.file")} type="file" accept=".zip,application/zip" required error={fe("file")} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <Field id="imp-slug" label={t("admin.icpc.slug")} hint={t("admin.icpc.slugHint")} pattern="[a-z0-9][a-z0-9-]*" value={slug} onInput={(e) => setSlug(e.currentTarget.value)} error={fe("slug")} />
        <Field id="imp-visibility" label={t("admin.visibility")} error={fe("visibility")}>
          <select
            id="imp-visibility"
            value={visibility}
            onChange={(e) => setVisibility(e.currentTarget.value)}
            aria-invalid={fe("visibility") ? "true" : undefined}
            aria-describedby={fe("visibility") ? "imp-visibility-err" : undefined}
          >
            {VISIBILITIES.map((x) => (
              <option key={x}>{x}</option>
            ))}
          </select>
        </Field>
        <Field id="imp-languages" label={t("admin.languages")} value={languages} onInput={(e) => setLanguages(e.currentTarget.value)} error={fe("languages")} />
        <ErrorBox error={formError(imp.error, IMPORT_FIELDS)} />
        {r && (
          <div class="alert alert-ok" role="status" data-testid="icpc-imported">
            <p>
              {t("admin.icpc.done", { title: r.problem.title, slug: r.problem.slug, cases: r.testdata.case_count, subtasks: r.testdata.subtasks })}{" "}
              <a href={`/problems/${encodeURIComponent(r.problem.slug)}`}>{t("admin.icpc.open")}</a>
            </p>
            {r.notes.length > 0 && (
              <>
                <p>{t("admin.icpc.notes")}</p>
                <ul data-testid="icpc-notes">
                  {r.notes.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
        {r && <ImportChecks result={r} />}
        <button type="submit" class="btn btn-primary" disabled={imp.busy || !file} aria-busy={imp.busy ? "true" : undefined}>
          {imp.busy ? t("admin.icpc.busy") : t("admin.icpc.submit")}
        </button>
      </form>
    </Section>
  );
}
