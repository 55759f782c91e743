// Admin: problems — the list, load one by slug, the problem form with a
// statement preview, its test data upload and reference solutions, and the
// ICPC package import (./problemimport).

import { useState } from "preact/hooks";
import { api } from "../../api";
import type { BodyOf } from "../../api/openapi.gen";
import { t } from "../../i18n";
import { useMarkdown } from "../../markdown";
import { ErrorBox, Field, fieldError, formError, Notice, useAsync } from "../../ui";
import { CheckField, FeedbackOptions, Section, SLUG_PATTERN, SlugLookup, useForm, useSubmit, VISIBILITIES } from "./form";
import { AdminList } from "./list";
import { ProblemImport } from "./problemimport";
import { SolutionsPanel } from "./solutions";

type Req = BodyOf<"createProblem">;

// The fields as the inputs hold them; a select's value is one of the
// options it offers, which are the spec's values.
const emptyProblem = {
  slug: "",
  title: "",
  statement: "",
  time_limit_ms: "1000",
  memory_limit_kb: "262144",
  checker: "default" as NonNullable<Req["checker"]>,
  float_tolerance: "0",
  mode: "icpc" as NonNullable<Req["mode"]>,
  visibility: "private" as NonNullable<Req["visibility"]>,
  feedback: "full" as NonNullable<Req["feedback"]>,
  languages: "",
  input_file: "",
  output_file: "",
  output_only: false as boolean,
};
const FIELDS = Object.keys(emptyProblem);

export function ProblemAdmin() {
  const { f, setF, set } = useForm(emptyProblem);
  const [editing, setEditing] = useState<string | null>(null);
  const [lookup, setLookup] = useState("");
  const [preview, setPreview] = useState(false);
  const existing = useAsync(() => api.problems(), []);
  const save = useSubmit<unknown>();
  const load = useSubmit<unknown>();
  const fe = (k: string) => fieldError(save.error, k);

  const loadSlug = (slug: string) => {
    setLookup(slug);
    load.run(async () => {
      const p = await api.problem(slug);
      setF({
        slug: p.slug,
        title: p.title,
        statement: p.statement,
        time_limit_ms: String(p.time_limit_ms),
        memory_limit_kb: String(p.memory_limit_kb),
        checker: p.checker ?? "default",
        float_tolerance: String(p.float_tolerance ?? 0),
        mode: p.mode,
        visibility: p.visibility ?? "private",
        feedback: p.feedback ?? "full",
        languages: (p.languages ?? []).join(", "),
        input_file: p.input_file ?? "",
        output_file: p.output_file ?? "",
        output_only: !!p.output_only,
      });
      setEditing(p.slug);
      return p;
    });
  };

  const doSave = (e: Event) => {
    e.preventDefault();
    const body: Req = {
      slug: f.slug.trim(),
      title: f.title,
      statement: f.statement,
      time_limit_ms: Number(f.time_limit_ms),
      memory_limit_kb: Number(f.memory_limit_kb),
      checker: f.checker,
      float_tolerance: Number(f.float_tolerance),
      mode: f.mode,
      visibility: f.visibility,
      feedback: f.feedback,
      languages: f.languages.split(/[\s,]+/).filter(Boolean),
      input_file: f.input_file.trim(),
      output_file: f.output_file.trim(),
      output_only: f.output_only,
    };
    save.run(async () => {
      const r = editing ? await api.updateProblem(editing, body) : await api.createProblem(body);
      setEditing(body.slug ?? null);
      existing.reload();
      return r;
    });
  };

  const html = useMarkdown(preview ? f.statement : "");

  return (
    <>
      <AdminList kind="problems" onEdit={loadSlug} />
      <Section title={t("admin.editExisting")}>
        <SlugLookup id="p" value={lookup} onInput={setLookup} onLoad={loadSlug} items={existing.data?.items ?? []} busy={load.busy} error={load.error} />
      </Section>
      <Section title={editing ? `${t("admin.problems")}: ${editing}` : `${t("common.create")}: ${t("admin.problems")}`}>
        <form class="form grid" onSubmit={doSave}>
          <Field id="p-slug" label={t("admin.slug")} required pattern={SLUG_PATTERN} value={f.slug} onInput={set("slug")} error={fe("slug")} />
          <Field id="p-title" label={t("admin.titleField")} required value={f.title} onInput={set("title")} error={fe("title")} />
          <Field id="p-statement" label={t("admin.statement")} error={fe("statement")}>
            <textarea
              id="p-statement"
              rows={14}
              value={f.statement}
              onInput={set("statement")}
              aria-invalid={fe("statement") ? "true" : undefined}
              aria-describedby={fe("statement") ? "p-statement-err" : undefined}
            />
          </Field>
          <div class="toolbar">
            <button type="button" class="btn btn-ghost" aria-pressed={preview} onClick={() => setPreview(!preview)}>
              {t("admin.preview")}
            </button>
          </div>
          {preview && <div class="markdown preview" dangerouslySetInnerHTML={{ __html: html }} />}
          <Field id="p-time" label={t("admin.timeLimit")} type="number" min={100} max={60000} required value={f.time_limit_ms} onInput={set("time_limit_ms")} error={fe("time_limit_ms")} />
          <Field id="p-memory" label={t("admin.memoryLimit")} type="number" min={1024} required value={f.memory_limit_kb} onInput={set("memory_limit_kb")} error={fe("memory_limit_kb")} />
          <Field id="p-checker" label={t("admin.checker")} error={fe("checker")}>
            <select id="p-checker" value={f.checker} onChange={set("checker")}>
              {["default", "exact", "float", "special", "icpc"].map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          </Field>
          {f.checker === "float" && <Field id="p-tol" label={t("admin.tolerance")} type="number" step="any" min={0} value={f.float_tolerance} onInput={set("float_tolerance")} error={fe("float_tolerance")} />}
          <Field id="p-mode" label={t("admin.mode")} error={fe("mode")}>
            <select id="p-mode" value={f.mode} onChange={set("mode")}>
              <option value="icpc">ICPC</option>
              <option value="ioi">IOI</option>
            </select>
          </Field>
          <Field id="p-visibility" label={t("admin.visibility")} error={fe("visibility")}>
            <select id="p-visibility" value={f.visibility} onChange={set("visibility")}>
              {VISIBILITIES.map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          </Field>
          <Field id="p-feedback" label={t("admin.problemFeedback")} error={fe("feedback")} hint={t("admin.feedbackHint")}>
            <select id="p-feedback" value={f.feedback} onChange={set("feedback")} aria-describedby="p-feedback-hint">
              <FeedbackOptions closed={false} />
            </select>
          </Field>
          <Field id="p-languages" label={t("admin.languages")} value={f.languages} onInput={set("languages")} error={fe("languages")} />
          <Field id="p-input-file" label={t("admin.inputFile")} placeholder="input.txt" value={f.input_file} onInput={set("input_file")} error={fe("input_file")} disabled={f.output_only} />
          <Field id="p-output-file" label={t("admin.outputFile")} placeholder="output.txt" value={f.output_file} onInput={set("output_file")} error={fe("output_file")} disabled={f.output_only} />
          <CheckField id="p-output-only" label={t("admin.outputOnly")} checked={f.output_only} onChange={(v) => setF({ ...f, output_only: v })} error={fe("output_only")} />
          <ErrorBox error={formError(save.error, FIELDS)} />
          {save.result !== null && <Notice kind="ok">{t("admin.saved")}</Notice>}
          <button type="submit" class="btn btn-primary" disabled={save.busy}>
            {editing ? t("common.save") : t("common.create")}
          </button>
        </form>
      </Section>
      {editing && <TestdataUpload slug={editing} />}
      {editing && <SolutionsPanel slug={editing} />}
      <ProblemImport onImported={existing.reload} />
    </>
  );
}

function TestdataUpload({ slug }: { slug: string }) {
  const [file, setFile] = useState<File | null>(null);
  const up = useSubmit<{ hash: string; case_count: number }>();
  return (
    <Section title={t("admin.testdata")}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) up.run(() => api.uploadTestdata(slug, file));
        }}
      >
        <Field id="td-file" label={t("admin.testdata")} type="file" accept=".zip,application/zip" required error={fieldError(up.error, "file")} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <ErrorBox error={formError(up.error, ["file"])} />
        {up.result && <Notice kind="ok">{t("admin.uploaded", { cases: up.result.case_count, hash: up.result.hash.slice(0, 12) })}</Notice>}
        <button type="submit" class="btn btn-primary" disabled={up.busy || !file}>
          {t("admin.upload")}
        </button>
      </form>
    </Section>
  );
}
