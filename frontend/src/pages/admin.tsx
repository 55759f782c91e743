// Admin pages (admin and setter roles): problems and their test data,
// ICPC problem package import, contests, users (the account list for
// admins, CSV import), judge tokens with their live load, rejudge.
// Plain forms on the API; a field error from the server is shown next to
// its field.

import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import {
  api,
  ApiError,
  importErrors,
  request,
  unknownUsernames,
  unwrapList,
  type AdminUser,
  type Contest,
  type ImportResult,
  type JudgeInfo,
  type ProblemImportResult,
  type User,
  type UserPatch,
} from "../api";
import { getLang, roleLabel, t, type Key } from "../i18n";
import { dateTime, fromZoneInput, offsetLabel, timeZones, toZoneInput, validZone, viewerZone, zoneOffset } from "../format";
import { renderMarkdown } from "../markdown";
import { parseUsernames } from "../registration";
import { RegistrationSettingsAdmin } from "./settings";
import { AdminList } from "./staff";
import { SolutionsPanel } from "./problemtypes";
import { isStaff, session, useStore } from "../state";
import { ErrorBox, errorText, Field, fieldError, formError, Loading, Notice, useAsync, useFocusHeading, useTitle } from "../ui";

const SECTIONS: { id: string; key: Key }[] = [
  { id: "problems", key: "admin.problems" },
  { id: "contests", key: "admin.contests" },
  { id: "users", key: "admin.users" },
  { id: "judges", key: "admin.judges" },
  { id: "rejudge", key: "admin.rejudge" },
  { id: "settings", key: "admin.settings" },
];

export function AdminPage({ section }: { section?: string }) {
  useTitle(t("admin.title"));
  const h = useFocusHeading();
  const s = useStore(session);
  const current = SECTIONS.some((x) => x.id === section) ? section! : "problems";
  if (!s.loaded) return <Loading />;
  if (!isStaff(s.user)) {
    return (
      <div class="page">
        <h1>{t("admin.title")}</h1>
        <Notice kind="error">{t("admin.denied")}</Notice>
      </div>
    );
  }
  return (
    <div class="page admin">
      <h1 ref={h} tabIndex={-1}>
        {t("admin.title")}
      </h1>
      <nav class="tabs" aria-label={t("admin.title")}>
        {SECTIONS.map((x) => (
          <a key={x.id} href={`/admin/${x.id}`} aria-current={x.id === current ? "page" : undefined} class={x.id === current ? "active" : ""}>
            {t(x.key)}
          </a>
        ))}
      </nav>
      {current === "problems" && <ProblemAdmin />}
      {current === "contests" && <ContestAdmin />}
      {current === "users" && <UsersAdmin />}
      {current === "judges" && <JudgesAdmin />}
      {current === "rejudge" && <RejudgeAdmin />}
      {current === "settings" && <RegistrationSettingsAdmin />}
    </div>
  );
}

/** useSubmit runs an API call for a form and keeps busy/error/ok state. */
function useSubmit<T>() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<T | null>(null);
  const run = async (fn: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await fn());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, result, run, setError };
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="admin-section">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

// ---- problems ---------------------------------------------------------------

const emptyProblem = {
  slug: "",
  title: "",
  statement: "",
  time_limit_ms: "1000",
  memory_limit_kb: "262144",
  checker: "default",
  float_tolerance: "0",
  mode: "icpc",
  visibility: "private",
  feedback: "full",
  languages: "",
  input_file: "",
  output_file: "",
  output_only: false as boolean,
};

/** The feedback policies, in the order the forms offer them. */
export const FEEDBACK_POLICIES = ["full", "first_failure", "score_only", "closed"] as const;
type ProblemForm = typeof emptyProblem;

function ProblemAdmin() {
  const [f, setF] = useState<ProblemForm>(emptyProblem);
  const [editing, setEditing] = useState<string | null>(null);
  const [lookup, setLookup] = useState("");
  const [preview, setPreview] = useState(false);
  const existing = useAsync(() => api.problems(), []);
  const save = useSubmit<unknown>();
  const load = useSubmit<unknown>();
  const set = (k: keyof ProblemForm) => (e: { currentTarget: unknown }) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const fe = (k: string) => fieldError(save.error, k);
  const fields = Object.keys(emptyProblem);

  const doLoad = (e: Event) => {
    e.preventDefault();
    loadSlug(lookup.trim());
  };
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
    const body = {
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
      setEditing(body.slug);
      existing.reload();
      return r;
    });
  };

  const html = useMemo(() => (preview ? renderMarkdown(f.statement) : ""), [preview, f.statement]);

  return (
    <>
      <AdminList kind="problems" onEdit={loadSlug} />
      <Section title={t("admin.editExisting")}>
        <form class="toolbar" onSubmit={doLoad}>
          <label for="p-lookup">{t("admin.slug")}</label>
          <input id="p-lookup" list="p-existing" value={lookup} onInput={(e) => setLookup(e.currentTarget.value)} required />
          <datalist id="p-existing">
            {(existing.data?.items ?? []).map((p) => (
              <option key={p.slug} value={p.slug}>
                {p.title}
              </option>
            ))}
          </datalist>
          <button type="submit" class="btn" disabled={load.busy}>
            {t("admin.load")}
          </button>
        </form>
        <ErrorBox error={load.error} />
      </Section>
      <Section title={editing ? `${t("admin.problems")}: ${editing}` : `${t("common.create")}: ${t("admin.problems")}`}>
        <form class="form grid" onSubmit={doSave}>
          <Field id="p-slug" label={t("admin.slug")} required pattern="[a-z0-9][a-z0-9-]*" value={f.slug} onInput={set("slug")} error={fe("slug")} />
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
              {["default", "exact", "float", "special"].map((x) => (
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
              {["private", "public", "contest-only"].map((x) => (
                <option key={x}>{x}</option>
              ))}
            </select>
          </Field>
          <Field id="p-feedback" label={t("admin.problemFeedback")} error={fe("feedback")} hint={t("admin.feedbackHint")}>
            <select id="p-feedback" value={f.feedback} onChange={set("feedback")} aria-describedby="p-feedback-hint">
              {FEEDBACK_POLICIES.filter((x) => x !== "closed").map((x) => (
                <option key={x} value={x}>
                  {t(`admin.feedback.${x}` as Key)}
                </option>
              ))}
            </select>
          </Field>
          <Field id="p-languages" label={t("admin.languages")} value={f.languages} onInput={set("languages")} error={fe("languages")} />
          <Field id="p-input-file" label={t("admin.inputFile")} placeholder="input.txt" value={f.input_file} onInput={set("input_file")} error={fe("input_file")} disabled={f.output_only} />
          <Field id="p-output-file" label={t("admin.outputFile")} placeholder="output.txt" value={f.output_file} onInput={set("output_file")} error={fe("output_file")} disabled={f.output_only} />
          <div class={`field check${fe("output_only") ? " field-invalid" : ""}`}>
            <label for="p-output-only">
              <input id="p-output-only" type="checkbox" checked={f.output_only} onChange={(e) => setF({ ...f, output_only: e.currentTarget.checked })} />{" "}
              {t("admin.outputOnly")}
            </label>
            {fe("output_only") && <small class="field-error">{fe("output_only")}</small>}
          </div>
          <ErrorBox error={formError(save.error, fields)} />
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

const IMPORT_FIELDS = ["file", "slug", "visibility", "languages"];

/** ProblemImport creates a problem from an ICPC problem package (zip):
 *  the server converts it (POST /api/problems/import) and says what it
 *  did not import in notes, shown with a link to the new problem. */
function ProblemImport({ onImported }: { onImported: () => void }) {
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
            {["private", "public", "contest-only"].map((x) => (
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
        <button type="submit" class="btn btn-primary" disabled={imp.busy || !file} aria-busy={imp.busy ? "true" : undefined}>
          {imp.busy ? t("admin.icpc.busy") : t("admin.icpc.submit")}
        </button>
      </form>
    </Section>
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

// ---- contests ---------------------------------------------------------------

const emptyContest = {
  slug: "",
  title: "",
  description: "",
  rule: "icpc",
  start_at: "",
  end_at: "",
  /** The contest's IANA zone: start_at and end_at are wall times in it
   * (a new contest starts in the admin's own). */
  time_zone: viewerZone(),
  freeze_minutes: "0",
  registration: "open",
  feedback: "full",
  feedback_after: "full",
  status_visibility: "own",
  visible: true as boolean,
  problems: "",
};
type ContestForm = typeof emptyContest;

/** parseContestProblems reads "A sum 100" lines. */
export function parseContestProblems(text: string): { problems: { label: string; slug: string; points: number }[]; bad: number[] } {
  const problems: { label: string; slug: string; points: number }[] = [];
  const bad: number[] = [];
  text.split("\n").forEach((line, i) => {
    const parts = line.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return;
    const points = parts[2] === undefined ? 100 : Number(parts[2]);
    if (parts.length < 2 || parts.length > 3 || !Number.isInteger(points) || points < 0) bad.push(i + 1);
    else problems.push({ label: parts[0]!, slug: parts[1]!, points });
  });
  return { problems, bad };
}

/** contestBody is the JSON of POST/PUT /api/contests for the form. */
export function contestBody(f: ContestForm, problems: { label: string; slug: string; points: number }[]) {
  return {
    slug: f.slug.trim(),
    title: f.title,
    description: f.description,
    rule: f.rule,
    start_at: fromZoneInput(f.start_at, f.time_zone),
    end_at: fromZoneInput(f.end_at, f.time_zone),
    time_zone: f.time_zone,
    freeze_minutes: Number(f.freeze_minutes),
    registration: f.registration,
    feedback: f.feedback,
    feedback_after: f.feedback_after,
    status_visibility: f.status_visibility,
    visible: f.visible,
    problems,
  };
}

/** contestForm fills the form from GET /api/contests/{slug} (as staff see it). */
export function contestForm(c: Contest): ContestForm {
  return {
    slug: c.slug,
    title: c.title,
    description: c.description ?? "",
    rule: c.rule,
    start_at: toZoneInput(c.start_at, c.time_zone ?? "UTC"),
    end_at: toZoneInput(c.end_at, c.time_zone ?? "UTC"),
    time_zone: c.time_zone ?? "UTC",
    freeze_minutes: String(c.freeze_minutes ?? 0),
    registration: c.registration === "list" ? "list" : "open",
    feedback: c.feedback ?? "full",
    feedback_after: c.feedback_after ?? "full",
    status_visibility: c.status_visibility === "all" ? "all" : "own",
    visible: c.visible !== false,
    problems: (c.problems ?? []).map((p) => `${p.label} ${p.slug} ${p.points}`).join("\n"),
  };
}

function ContestAdmin() {
  const [f, setF] = useState<ContestForm>(emptyContest);
  const [editing, setEditing] = useState<string | null>(null);
  const [savedReg, setSavedReg] = useState<string>("open");
  const [lookup, setLookup] = useState("");
  const save = useSubmit<unknown>();
  const load = useSubmit<unknown>();
  const existing = useAsync(() => api.contests(), []);
  const set = (k: keyof ContestForm) => (e: { currentTarget: unknown }) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const fe = (k: string) => fieldError(save.error, k);

  const doLoad = (e: Event) => {
    e.preventDefault();
    loadSlug(lookup.trim());
  };
  const loadSlug = (slug: string) => {
    setLookup(slug);
    load.run(async () => {
      const c = await api.contest(slug);
      setF(contestForm(c));
      setEditing(c.slug);
      setSavedReg(c.registration ?? "open");
      return c;
    });
  };

  const doSave = (e: Event) => {
    e.preventDefault();
    const parsed = parseContestProblems(f.problems);
    if (parsed.bad.length) {
      save.setError(new ApiError(400, "invalid", `line ${parsed.bad.join(", ")}`, "problems"));
      return;
    }
    const body = contestBody(f, parsed.problems);
    save.run(async () => {
      const r = editing ? await api.updateContest(editing, body) : await api.createContest(body);
      setEditing(body.slug);
      setSavedReg(body.registration);
      existing.reload();
      return r;
    });
  };

  const newContest = () => {
    setF(emptyContest);
    setEditing(null);
    setLookup("");
  };

  return (
    <>
      <AdminList kind="contests" onEdit={loadSlug} />
      <Section title={t("admin.editContest")}>
        <form class="toolbar" onSubmit={doLoad}>
          <label for="c-lookup">{t("admin.slug")}</label>
          <input id="c-lookup" list="c-existing" value={lookup} onInput={(e) => setLookup(e.currentTarget.value)} required />
          <datalist id="c-existing">
            {(existing.data?.items ?? []).map((c) => (
              <option key={c.slug} value={c.slug}>
                {c.title}
              </option>
            ))}
          </datalist>
          <button type="submit" class="btn" disabled={load.busy}>
            {t("admin.load")}
          </button>
          {editing && (
            <button type="button" class="btn btn-ghost" onClick={newContest}>
              {t("admin.newContest")}
            </button>
          )}
        </form>
        <ErrorBox error={load.error} />
      </Section>
      <Section title={editing ? `${t("admin.contests")}: ${editing}` : `${t("common.create")}: ${t("admin.contests")}`}>
        <form class="form grid" onSubmit={doSave}>
          <Field id="c-slug" label={t("admin.slug")} required pattern="[a-z0-9][a-z0-9-]*" value={f.slug} onInput={set("slug")} error={fe("slug")} />
          <Field id="c-title" label={t("admin.titleField")} required value={f.title} onInput={set("title")} error={fe("title")} />
          <Field id="c-desc" label={t("admin.description")} error={fe("description")}>
            <textarea id="c-desc" rows={5} value={f.description} onInput={set("description")} />
          </Field>
          <Field id="c-rule" label={t("admin.rule")} error={fe("rule")}>
            <select id="c-rule" value={f.rule} onChange={set("rule")}>
              <option value="icpc">ICPC</option>
              <option value="ioi">IOI</option>
            </select>
          </Field>
          <ContestZoneFields f={f} set={set} fe={fe} />
          <Field id="c-freeze" label={t("admin.freeze")} type="number" min={0} value={f.freeze_minutes} onInput={set("freeze_minutes")} error={fe("freeze_minutes")} />
          <Field id="c-registration" label={t("admin.registration")} error={fe("registration")} hint={f.registration === "list" ? t("admin.registration.listHint") : t("admin.registration.openHint")}>
            <select id="c-registration" value={f.registration} onChange={set("registration")} aria-describedby="c-registration-hint">
              <option value="open">{t("admin.registration.open")}</option>
              <option value="list">{t("admin.registration.list")}</option>
            </select>
          </Field>
          <Field id="c-feedback" label={t("admin.feedback")} error={fe("feedback")} hint={t("admin.feedbackHint")}>
            <select id="c-feedback" value={f.feedback} onChange={set("feedback")} aria-describedby="c-feedback-hint">
              {FEEDBACK_POLICIES.map((x) => (
                <option key={x} value={x}>
                  {t(`admin.feedback.${x}` as Key)}
                </option>
              ))}
            </select>
          </Field>
          {f.feedback === "closed" && (
            <Field id="c-feedback-after" label={t("admin.feedbackAfter")} error={fe("feedback_after")}>
              <select id="c-feedback-after" value={f.feedback_after} onChange={set("feedback_after")}>
                {FEEDBACK_POLICIES.filter((x) => x !== "closed").map((x) => (
                  <option key={x} value={x}>
                    {t(`admin.feedback.${x}` as Key)}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <Field id="c-status" label={t("admin.statusVisibility")} error={fe("status_visibility")}>
            <select id="c-status" value={f.status_visibility} onChange={set("status_visibility")}>
              <option value="own">{t("admin.statusVisibility.own")}</option>
              <option value="all">{t("admin.statusVisibility.all")}</option>
            </select>
          </Field>
          <div class={`field check${fe("visible") ? " field-invalid" : ""}`}>
            <label for="c-visible">
              <input id="c-visible" type="checkbox" checked={f.visible} onChange={(e) => setF({ ...f, visible: e.currentTarget.checked })} aria-describedby="c-visible-hint" />{" "}
              {t("admin.visible")}
            </label>
            <small id="c-visible-hint" class="muted">
              {t("admin.visibleHint")}
            </small>
            {fe("visible") && <small class="field-error">{fe("visible")}</small>}
          </div>
          <Field id="c-problems" label={t("admin.contestProblems")} error={fe("problems")}>
            <textarea
              id="c-problems"
              rows={6}
              value={f.problems}
              onInput={set("problems")}
              placeholder={"A sum 100\nB graph 100"}
              aria-invalid={fe("problems") ? "true" : undefined}
              aria-describedby={fe("problems") ? "c-problems-err" : undefined}
            />
          </Field>
          <ErrorBox error={formError(save.error, Object.keys(emptyContest))} />
          {save.result !== null && <Notice kind="ok">{t("admin.saved")}</Notice>}
          <button type="submit" class="btn btn-primary" disabled={save.busy}>
            {editing ? t("common.save") : t("common.create")}
          </button>
        </form>
      </Section>
      {editing && <ParticipantsEditor key={editing} slug={editing} registration={savedReg} />}
      {editing && (
        <p>
          <a href={`/contests/${encodeURIComponent(editing)}/teams`} id="contest-teams-link">
            {t("teams.title")}
          </a>
        </p>
      )}
    </>
  );
}

/** ParticipantsEditor lists a contest's participants and adds or removes
 *  them by username (the list of a by-list contest; in an open contest,
 *  who registered). */
function ParticipantsEditor({ slug, registration }: { slug: string; registration: string }) {
  const list = useAsync(() => api.participants(slug), [slug]);
  const [text, setText] = useState("");
  const [localBad, setLocalBad] = useState<string[]>([]);
  const add = useSubmit<{ added: number; already: number }>();
  const [removeError, setRemoveError] = useState<unknown>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const lang = getLang();
  const unknown = unknownUsernames(add.error);
  // A name that cannot be a username (checked here), or the server's word
  // on the field when it is not the "unknown users" answer.
  const addErr = localBad.length
    ? t("admin.participants.invalid", { names: localBad.join(", ") })
    : unknown.length
      ? undefined
      : fieldError(add.error, "usernames");

  const doAdd = (e: Event) => {
    e.preventDefault();
    const { usernames, invalid } = parseUsernames(text);
    setLocalBad(invalid);
    setRemoved(null);
    if (invalid.length || usernames.length === 0) return;
    add.run(async () => {
      const r = await api.addParticipants(slug, usernames);
      setText("");
      list.reload();
      return r;
    });
  };
  const remove = async (username: string) => {
    setRemoveError(null);
    setRemoved(null);
    try {
      await api.removeParticipant(slug, username);
      setRemoved(username);
      list.setData((d) => (d ? { ...d, items: d.items.filter((p) => p.username !== username) } : d));
      // The row (and its focused button) is gone: keep keyboard users in the editor.
      document.getElementById("pt-add")?.focus();
    } catch (e) {
      setRemoveError(e);
    }
  };
  const items = list.data?.items ?? [];
  return (
    <Section title={t("admin.participants")}>
      <p class="muted">{registration === "list" ? t("admin.participants.listHint") : t("admin.participants.openHint")}</p>
      <form class="form" onSubmit={doAdd}>
        <Field id="pt-add" label={t("admin.participants.add")} error={addErr} hint={t("admin.participants.addHint")}>
          <textarea
            id="pt-add"
            rows={3}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby={`pt-add-hint${addErr ? " pt-add-err" : ""}`}
            aria-invalid={addErr || unknown.length ? "true" : undefined}
          />
        </Field>
        {unknown.length > 0 && (
          <div class="alert alert-error" role="alert" data-testid="pt-unknown">
            {t("admin.participants.unknown", { names: unknown.join(", ") })}
          </div>
        )}
        <ErrorBox error={unknown.length ? null : formError(add.error, ["usernames"])} />
        {add.result && (
          <Notice kind="ok">
            {t("admin.participants.added", { added: add.result.added, already: add.result.already })}
          </Notice>
        )}
        <button type="submit" class="btn btn-primary" disabled={add.busy || !text.trim()}>
          {t("admin.participants.addButton")}
        </button>
      </form>
      {removed && <Notice kind="ok">{t("admin.participants.removed", { name: removed })}</Notice>}
      <ErrorBox error={removeError} />
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && items.length === 0 && <p class="muted">{t("admin.participants.none")}</p>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="list participants">
            <caption class="sr-only">{t("admin.participants")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("login.username")}</th>
                <th scope="col" class="hide-narrow">{t("admin.participants.since")}</th>
                <th scope="col">
                  <span class="sr-only">{t("admin.participants.remove")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.username} data-username={p.username}>
                  <th scope="row">{p.username}</th>
                  <td class="hide-narrow nowrap">{dateTime(p.registered_at, lang)}</td>
                  <td>
                    <button type="button" class="btn btn-small btn-danger" aria-label={t("admin.participants.removeName", { name: p.username })} onClick={() => remove(p.username)}>
                      {t("admin.participants.remove")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">{t("admin.participants.count", { n: items.length })}</p>
        </div>
      )}
    </Section>
  );
}

// ---- users ------------------------------------------------------------------

/** How long the search box waits after the last key before it asks. */
export const USER_SEARCH_DEBOUNCE_MS = 300;

const ROLES = ["admin", "setter", "student"] as const;

interface UserQuery {
  q: string;
  role: string;
  disabledOnly: boolean;
}

/** The users section: admins get the account list; the CSV import is there
 *  for every staff member, as before. */
function UsersAdmin() {
  const me = useStore(session).user;
  // Bumped after an import, so the list shows the new accounts.
  const [imports, setImports] = useState(0);
  return (
    <>
      {me?.role === "admin" && <UsersList me={me} refresh={imports} />}
      <UsersImport onImported={() => setImports((n) => n + 1)} />
    </>
  );
}

/** UsersList: search, filters, the table with per-row actions, "Load more"
 *  on next_cursor. Rows already shown stay while a new query loads, so the
 *  page does not jump to "Loading…" and back on every key. */
function UsersList({ me, refresh }: { me: User; refresh: number }) {
  const lang = getLang();
  const [qText, setQText] = useState("");
  const [query, setQuery] = useState<UserQuery>({ q: "", role: "", disabledOnly: false });
  const [rows, setRows] = useState<AdminUser[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [reset, setReset] = useState<{ id: number; username: string; password: string } | null>(null);
  const [updated, setUpdated] = useState<string | null>(null);
  const inflight = useRef<AbortController | null>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);

  const load = (q: UserQuery, cursor: string | null) => {
    inflight.current?.abort();
    const ac = new AbortController();
    inflight.current = ac;
    setLoading(true);
    setError(null);
    const hadFocus = cursor !== null && document.activeElement === moreRef.current;
    api.users({ q: q.q, role: q.role || undefined, disabled: q.disabledOnly ? true : undefined, cursor }, ac.signal).then(
      (page) => {
        if (ac.signal.aborted) return;
        setRows((old) => {
          if (!cursor || !old) return page.items;
          const seen = new Set(old.map((u) => u.id));
          return [...old, ...page.items.filter((u) => !seen.has(u.id))];
        });
        setNext(page.next_cursor ?? null);
        setLoading(false);
        // The last page: "Load more" goes away; keep keyboard focus nearby.
        if (hadFocus && !page.next_cursor) setTimeout(() => statusRef.current?.focus(), 0);
      },
      (e) => {
        if (ac.signal.aborted) return;
        setError(e);
        setLoading(false);
      },
    );
  };

  useEffect(() => {
    load(query, null);
    return () => inflight.current?.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query, refresh]);

  // The search box asks once typing pauses; Enter asks at once.
  useEffect(() => {
    const q = qText.trim();
    if (q === query.q) return;
    const h = setTimeout(() => setQuery((x) => (x.q === q ? x : { ...x, q })), USER_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(h);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [qText]);

  const replace = (u: AdminUser) => {
    setRows((old) => old?.map((x) => (x.id === u.id ? u : x)) ?? old);
    setUpdated(u.username);
  };

  const doneWithPassword = () => {
    const id = reset?.id;
    setReset(null);
    if (id !== undefined) document.getElementById(`u-reset-${id}`)?.focus();
  };

  const count = rows?.length ?? 0;
  return (
    <Section title={t("admin.users.list")}>
      <form
        class="toolbar user-filters"
        role="search"
        aria-label={t("admin.users.filters")}
        onSubmit={(e) => {
          e.preventDefault();
          const q = qText.trim();
          // Enter on an unchanged query asks again (e.g. after an error).
          if (q === query.q) load(query, null);
          else setQuery({ ...query, q });
        }}
      >
        <label for="u-q">{t("admin.users.search")}</label>
        <input id="u-q" type="search" value={qText} onInput={(e) => setQText(e.currentTarget.value)} aria-describedby="u-q-hint" autoComplete="off" spellcheck={false} />
        <label for="u-role">{t("account.role")}</label>
        <select id="u-role" value={query.role} onChange={(e) => setQuery({ ...query, q: qText.trim(), role: e.currentTarget.value })}>
          <option value="">{t("admin.users.anyRole")}</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {roleLabel(r)}
            </option>
          ))}
        </select>
        <label class="check-inline">
          <input id="u-disabled" type="checkbox" checked={query.disabledOnly} onChange={(e) => setQuery({ ...query, q: qText.trim(), disabledOnly: e.currentTarget.checked })} />{" "}
          {t("admin.users.disabledOnly")}
        </label>
        <button type="submit" class="btn">
          {t("admin.users.searchGo")}
        </button>
      </form>
      <p id="u-q-hint" class="muted hint">
        {t("admin.users.searchHint")}
      </p>
      <ErrorBox error={error} onRetry={() => load(query, null)} />
      {reset && <OncePassword key={`${reset.id}:${reset.password}`} username={reset.username} password={reset.password} onDone={doneWithPassword} />}
      {/* One line that always takes its place: what is shown, what just
          changed. Messages come and go here without moving the table. */}
      <p class="muted status-line" role="status" aria-live="polite" tabIndex={-1} ref={statusRef} data-testid="users-status">
        {updated && <span class="ok-text">{t("admin.users.updated", { name: updated })} </span>}
        {loading ? t("common.loading") : rows === null ? "" : next ? t("admin.users.shownMore", { n: count }) : t("admin.users.shown", { n: count })}
      </p>
      {rows && rows.length === 0 && !loading && <p class="muted">{t("admin.users.none")}</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap" aria-busy={loading ? "true" : undefined}>
          <table class="list users-table">
            <caption class="sr-only">{t("admin.users.list")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("login.username")}</th>
                <th scope="col">{t("register.displayName")}</th>
                <th scope="col">{t("admin.users.col.email")}</th>
                <th scope="col">{t("account.role")}</th>
                <th scope="col">{t("admin.users.col.status")}</th>
                <th scope="col">{t("admin.users.col.created")}</th>
                <th scope="col">{t("admin.users.col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <UserRow
                  key={u.id}
                  u={u}
                  self={u.id === me.id}
                  lang={lang}
                  onUpdated={replace}
                  onBusy={() => setUpdated(null)}
                  onReset={(r) => setReset({ id: u.id, username: r.username || u.username, password: r.password })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div class="actions">
          {/* Not disabled while loading: that would drop keyboard focus. */}
          <button type="button" class="btn" ref={moreRef} aria-disabled={loading ? "true" : undefined} aria-busy={loading ? "true" : undefined} onClick={() => !loading && load(query, next)}>
            {t("common.more")}
          </button>
        </div>
      )}
    </Section>
  );
}

const COLS = 7;

/** UserRow: one account and what an admin can do to it. The server's word
 *  on a field (say, "you cannot change your own role") is shown next to the
 *  control it is about. */
function UserRow({
  u,
  self,
  lang,
  onUpdated,
  onBusy,
  onReset,
}: {
  u: AdminUser;
  self: boolean;
  lang: string;
  onUpdated: (u: AdminUser) => void;
  onBusy: () => void;
  onReset: (r: { username: string; password: string }) => void;
}) {
  const [busy, setBusy] = useState<"role" | "disabled" | "reset" | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The role chosen while its PUT is on the way; on an error the select
  // goes back to the stored role.
  const [pendingRole, setPendingRole] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const name = u.username;
  const roleErr = fieldError(error, "role");
  const disabledErr = fieldError(error, "disabled");
  const rowErr = formError(error, ["role", "disabled"]);

  const put = async (what: "role" | "disabled", patch: UserPatch) => {
    setBusy(what);
    setError(null);
    onBusy();
    try {
      onUpdated(await api.updateUser(name, patch));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      setPendingRole(null);
    }
  };
  // Controls stay enabled while a change is on the way (disabling the
  // focused one would drop keyboard focus); a second action waits instead.
  const changeRole = (sel: HTMLSelectElement) => {
    if (busy) {
      sel.value = pendingRole ?? u.role;
      return;
    }
    if (sel.value === u.role) return;
    setPendingRole(sel.value);
    void put("role", { role: sel.value });
  };
  const toggle = () => {
    if (busy) return;
    if (!u.disabled && !confirm(t("admin.users.confirmDisable", { name }))) return;
    void put("disabled", { disabled: !u.disabled });
  };
  const resetPassword = async () => {
    if (busy) return;
    if (!confirm(t("admin.users.confirmReset", { name }))) return;
    setBusy("reset");
    setError(null);
    onBusy();
    try {
      onReset(await api.resetPassword(name));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <tr data-username={name} class={u.disabled ? "user-disabled" : undefined}>
        <th scope="row" class="nowrap">
          {name}
          {self && <span class="tag">{t("admin.users.you")}</span>}
        </th>
        <td class="u-name">{u.display_name}</td>
        <td class="u-email">{u.email}</td>
        <td>
          <select
            id={`u-role-${u.id}`}
            value={pendingRole ?? u.role}
            aria-busy={busy === "role" ? "true" : undefined}
            aria-label={t("admin.users.roleOf", { name })}
            aria-invalid={roleErr ? "true" : undefined}
            aria-describedby={roleErr ? `u-role-${u.id}-err` : undefined}
            onChange={(e) => changeRole(e.currentTarget)}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
            {!(ROLES as readonly string[]).includes(u.role) && <option value={u.role}>{u.role}</option>}
          </select>
          {roleErr && (
            <small id={`u-role-${u.id}-err`} class="field-error cell-error" role="alert">
              {roleErr}
            </small>
          )}
        </td>
        <td>
          <div class="u-status">
            <span class={u.disabled ? "tag tag-bad" : "tag tag-active"}>{u.disabled ? t("admin.users.disabled") : t("admin.users.active")}</span>
            <button
              type="button"
              id={`u-toggle-${u.id}`}
              class={u.disabled ? "btn btn-small" : "btn btn-small btn-danger"}
              aria-busy={busy === "disabled" ? "true" : undefined}
              aria-label={t(u.disabled ? "admin.users.enableName" : "admin.users.disableName", { name })}
              aria-invalid={disabledErr ? "true" : undefined}
              aria-describedby={disabledErr ? `u-toggle-${u.id}-err` : undefined}
              onClick={toggle}
            >
              {u.disabled ? t("admin.users.enable") : t("admin.users.disable")}
            </button>
          </div>
          {disabledErr && (
            <small id={`u-toggle-${u.id}-err`} class="field-error cell-error" role="alert">
              {disabledErr}
            </small>
          )}
        </td>
        <td class="nowrap">{dateTime(u.created_at, lang)}</td>
        <td>
          <div class="row-actions">
            <button
              type="button"
              id={`u-edit-${u.id}`}
              class="btn btn-small"
              aria-expanded={editing}
              aria-controls={editing ? `u-editrow-${u.id}` : undefined}
              aria-label={t("admin.users.editName", { name })}
              onClick={() => setEditing(!editing)}
            >
              {t("admin.users.edit")}
            </button>
            {self ? (
              // The server refuses to reset one's own password (a stolen
              // session must not pick a password without the current one).
              <a id={`u-reset-${u.id}`} class="btn btn-small" href="/account">
                {t("account.changePassword")}
              </a>
            ) : (
              <button
                type="button"
                id={`u-reset-${u.id}`}
                class="btn btn-small"
                aria-busy={busy === "reset" ? "true" : undefined}
                aria-label={t("admin.users.resetName", { name })}
                onClick={resetPassword}
              >
                {t("admin.users.reset")}
              </button>
            )}
          </div>
          {rowErr && (
            <small class="field-error cell-error" role="alert">
              {errorText(rowErr)}
            </small>
          )}
        </td>
      </tr>
      {editing && (
        <tr id={`u-editrow-${u.id}`} class="user-edit">
          <td colSpan={COLS}>
            <UserEditForm
              u={u}
              onCancel={() => {
                setEditing(false);
                document.getElementById(`u-edit-${u.id}`)?.focus();
              }}
              onSaved={(nu) => {
                setEditing(false);
                if (nu) onUpdated(nu);
                document.getElementById(`u-edit-${u.id}`)?.focus();
              }}
            />
          </td>
        </tr>
      )}
    </>
  );
}

const EDIT_FIELDS = ["display_name", "email"];

/** UserEditForm edits a display name and e-mail; it sends only what changed. */
function UserEditForm({ u, onCancel, onSaved }: { u: AdminUser; onCancel: () => void; onSaved: (u: AdminUser | null) => void }) {
  const [displayName, setDisplayName] = useState(u.display_name);
  const [email, setEmail] = useState(u.email);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLDivElement>(null);
  useEffect(() => {
    first.current?.querySelector("input")?.focus();
  }, []);
  const fe = (k: string) => fieldError(error, k);
  const id = (k: string) => `u-${u.id}-${k}`;
  return (
    <form
      class="form user-edit-form"
      aria-label={t("admin.users.editName", { name: u.username })}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        const patch: UserPatch = {};
        if (displayName !== u.display_name) patch.display_name = displayName;
        if (email.trim() !== u.email) patch.email = email.trim();
        if (Object.keys(patch).length === 0) {
          onSaved(null);
          return;
        }
        setBusy(true);
        setError(null);
        let saved: AdminUser;
        try {
          saved = await api.updateUser(u.username, patch);
        } catch (err) {
          setError(err);
          setBusy(false);
          if (err instanceof ApiError && err.field && EDIT_FIELDS.includes(err.field)) document.getElementById(id(err.field))?.focus();
          return;
        }
        onSaved(saved); // closes this form
      }}
    >
      <div class="grid-2" ref={first}>
        <Field id={id("display_name")} label={t("register.displayName")} autoComplete="off" value={displayName} error={fe("display_name")} onInput={(e) => setDisplayName(e.currentTarget.value)} />
        <Field id={id("email")} label={t("admin.users.col.email")} type="email" autoComplete="off" value={email} error={fe("email")} onInput={(e) => setEmail(e.currentTarget.value)} />
      </div>
      <ErrorBox error={formError(error, EDIT_FIELDS)} />
      <div class="toolbar">
        <button type="submit" class="btn btn-primary btn-small" disabled={busy} aria-busy={busy ? "true" : undefined}>
          {t("common.save")}
        </button>
        <button type="button" class="btn btn-small btn-ghost" onClick={onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}

/** OncePassword shows a generated password the only time it exists in
 *  clear: the server keeps only its hash. Hiding it drops it for good. */
function OncePassword({ username, password, onDone }: { username: string; password: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"ok" | "failed" | null>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(password);
      setCopied("ok");
    } catch {
      // No clipboard API (plain http, old browser): select it for the user
      // and try the old way.
      input.current?.select();
      let ok = false;
      try {
        ok = typeof document.execCommand === "function" && document.execCommand("copy");
      } catch {
        ok = false;
      }
      setCopied(ok ? "ok" : "failed");
    }
  };
  return (
    <div class="alert alert-warn once-password" data-testid="reset-password">
      <p id="reset-pw-note">{t("admin.users.passwordOnce", { name: username })}</p>
      <label for="reset-pw">{t("admin.users.newPassword", { name: username })}</label>
      <div class="copy-row">
        <input id="reset-pw" ref={input} class="token" readOnly value={password} aria-describedby="reset-pw-note" autoComplete="off" spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" class="btn btn-small" onClick={copy}>
          {t("admin.users.copy")}
        </button>
      </div>
      <span class="copy-status" role="status">
        {copied === "ok" ? t("admin.users.copied") : copied === "failed" ? t("admin.users.copyFailed") : ""}
      </span>
      <button type="button" class="btn btn-small" onClick={onDone}>
        {t("admin.users.done")}
      </button>
    </div>
  );
}

function UsersImport({ onImported }: { onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const imp = useSubmit<ImportResult>();
  return (
    <Section title={t("admin.users.importTitle")}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (file)
            void imp.run(async () => {
              const r = await api.importUsers(file);
              onImported();
              return r;
            });
        }}
      >
        <Field id="u-file" label={t("admin.csv")} type="file" accept=".csv,text/csv" required error={importErrors(imp.error).length ? undefined : fieldError(imp.error, "file")} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <ErrorBox error={formError(imp.error, ["file"])} />
        {importErrors(imp.error).length > 0 && (
          <div class="alert alert-error" role="alert">
            <p>{t("admin.importRefused")}</p>
            <ul>
              {importErrors(imp.error).map((x) => (
                <li key={`${x.line}-${x.field ?? ""}`}>
                  {t("admin.importLine", { line: x.line })}: {x.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {imp.result && <Notice kind="ok">{t("admin.imported", { created: imp.result.created, updated: imp.result.updated ?? 0 })}</Notice>}
        {imp.result?.passwords && Object.keys(imp.result.passwords).length > 0 && (
          <div class="alert alert-warn" role="alert">
            <p>{t("admin.generatedPasswords")}</p>
            <div class="table-wrap">
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">{t("login.username")}</th>
                  <th scope="col">{t("login.password")}</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(imp.result.passwords).map(([u, pw]) => (
                  <tr key={u}>
                    <td>{u}</td>
                    <td>
                      <code>{pw}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            </div>
          </div>
        )}
        {imp.result?.errors && imp.result.errors.length > 0 && (
          <div class="alert alert-warn" role="alert">
            <p>{t("admin.importErrors")}</p>
            <ul>
              {imp.result.errors.map((x) => (
                <li key={x.line}>
                  {x.line}: {x.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        <button type="submit" class="btn btn-primary" disabled={imp.busy || !file}>
          {t("admin.import")}
        </button>
      </form>
    </Section>
  );
}

// ---- judges -----------------------------------------------------------------

const JUDGE_REFRESH_S = 3;

/** How warm the judges are for one upcoming or running contest (GET /api/judges "warm"). */
export interface JudgeWarmth {
  contest: string;
  contest_id: number;
  starts_at: string;
  ends_at: string;
  warming: boolean;
  warm: number;
  judges: number;
}

/** loadJudges reads GET /api/judges: the judges and their warmth per contest. */
export async function loadJudges(): Promise<{ judges: JudgeInfo[]; warm: JudgeWarmth[] }> {
  const doc = await request<unknown>("/api/judges");
  const warm = (doc as { warm?: unknown } | null)?.warm;
  return { judges: unwrapList<JudgeInfo>(doc, "judges").items, warm: Array.isArray(warm) ? (warm as JudgeWarmth[]) : [] };
}

function JudgesAdmin() {
  const [judges, setJudges] = useState<JudgeInfo[] | null>(null);
  const [warm, setWarm] = useState<JudgeWarmth[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState("");
  const issue = useSubmit<{ name: string; token: string }>();
  const [tick, setTick] = useState(0);
  const lang = getLang();

  // Live load: the heartbeat is every 3 s, so poll at that rate while visible.
  useEffect(() => {
    let stop = false;
    const load = () =>
      loadJudges().then(
        (p) => !stop && (setJudges(p.judges), setWarm(p.warm), setError(null)),
        (e) => !stop && setError(e),
      );
    load();
    const h = setInterval(() => document.visibilityState === "visible" && load(), JUDGE_REFRESH_S * 1000);
    return () => {
      stop = true;
      clearInterval(h);
    };
  }, [tick]);

  const revoke = async (n: string) => {
    if (!confirm(t("admin.confirmRevoke", { name: n }))) return;
    try {
      await api.deleteJudge(n);
      setTick((x) => x + 1);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <Section title={t("admin.issueToken")}>
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            issue.run(async () => {
              const r = await api.createJudge(name.trim());
              setName("");
              setTick((x) => x + 1);
              return r;
            });
          }}
        >
          <label for="j-name">{t("admin.judgeName")}</label>
          <input id="j-name" required pattern="[A-Za-z0-9][A-Za-z0-9._-]*" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-invalid={fieldError(issue.error, "name") ? "true" : undefined} aria-describedby={fieldError(issue.error, "name") ? "j-name-err" : undefined} />
          <button type="submit" class="btn btn-primary" disabled={issue.busy}>
            {t("admin.issueToken")}
          </button>
        </form>
        {fieldError(issue.error, "name") && (
          <small id="j-name-err" class="field-error">
            {fieldError(issue.error, "name")}
          </small>
        )}
        <ErrorBox error={formError(issue.error, ["name"])} />
        {issue.result && (
          <div class="alert alert-ok" role="status">
            <p>{t("admin.tokenOnce", { name: issue.result.name })}</p>
            <input class="token" readOnly value={issue.result.token} aria-label={t("admin.tokenOnce", { name: issue.result.name })} onFocus={(e) => e.currentTarget.select()} />
          </div>
        )}
      </Section>
      <Section title={t("admin.judges")}>
        <p class="muted">{t("admin.judge.refresh", { seconds: JUDGE_REFRESH_S })}</p>
        <ErrorBox error={error} />
        {judges === null && !error && <Loading />}
        {judges && judges.length === 0 && <p class="muted">{t("common.none")}</p>}
        {judges && judges.length > 0 && (
          <div class="table-wrap">
            <table class="list judges">
              <thead>
                <tr>
                  <th scope="col">{t("admin.judge.name")}</th>
                  <th scope="col">{t("admin.judge.state")}</th>
                  <th scope="col" class="num">{t("admin.judge.running")}</th>
                  <th scope="col" class="num">{t("admin.judge.load")}</th>
                  <th scope="col" class="num hide-narrow">{t("admin.judge.memory")}</th>
                  <th scope="col" class="hide-narrow">{t("admin.judge.seen")}</th>
                  <th scope="col">
                    <span class="sr-only">{t("admin.revoke")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {judges.map((j) => (
                  <tr key={j.name}>
                    <th scope="row">{j.name}</th>
                    <td>{j.connected ? t("admin.judge.online") : t("admin.judge.offline")}</td>
                    <td class="num">{j.running != null ? `${j.running}/${j.cores ?? "?"}` : ""}</td>
                    <td class="num">{j.load1 != null ? j.load1.toFixed(2) : ""}</td>
                    <td class="num hide-narrow">{j.mem_used_ratio != null ? `${Math.round(j.mem_used_ratio * 100)}%` : ""}</td>
                    <td class="hide-narrow nowrap">{dateTime(j.last_seen_at, lang)}</td>
                    <td>
                      {!j.revoked_at && (
                        <button type="button" class="btn btn-small btn-danger" onClick={() => revoke(j.name)}>
                          {t("admin.revoke")}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {warm.length > 0 && (
        <Section title={t("admin.warm")}>
          <p class="muted">{t("admin.warm.help")}</p>
          <div class="table-wrap">
            <table class="list warm">
              <thead>
                <tr>
                  <th scope="col">{t("admin.warm.contest")}</th>
                  <th scope="col">{t("admin.warm.starts")}</th>
                  <th scope="col" class="num">{t("admin.warm.judges")}</th>
                  <th scope="col">{t("admin.warm.state")}</th>
                </tr>
              </thead>
              <tbody>
                {warm.map((w) => (
                  <tr key={w.contest_id} data-contest={w.contest}>
                    <th scope="row">{w.contest}</th>
                    <td class="nowrap">{dateTime(w.starts_at, lang)}</td>
                    <td class="num">{t("admin.warm.count", { warm: w.warm, judges: w.judges })}</td>
                    <td>{w.warming ? t("admin.warm.warming") : t("admin.warm.waiting")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      )}
    </>
  );
}

// ---- rejudge ----------------------------------------------------------------

function RejudgeAdmin() {
  const [what, setWhat] = useState<"submission" | "problem" | "contest">("submission");
  const [value, setValue] = useState("");
  const rj = useSubmit<{ queued: number }>();
  return (
    <Section title={t("admin.rejudge")}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          const v = value.trim();
          rj.run(() => api.rejudge(what === "submission" ? { submission: Number(v) } : { [what]: v }));
        }}
      >
        <fieldset>
          <legend>{t("admin.rejudgeWhat")}</legend>
          {(["submission", "problem", "contest"] as const).map((w) => (
            <label key={w} class="radio">
              <input type="radio" name="rj-what" value={w} checked={what === w} onChange={() => setWhat(w)} />{" "}
              {t(w === "submission" ? "admin.rejudgeSubmission" : w === "problem" ? "admin.rejudgeProblem" : "admin.rejudgeContest")}
            </label>
          ))}
        </fieldset>
        <Field
          id="rj-value"
          label={t(what === "submission" ? "admin.rejudgeSubmission" : what === "problem" ? "admin.rejudgeProblem" : "admin.rejudgeContest")}
          required
          type={what === "submission" ? "number" : "text"}
          min={what === "submission" ? 1 : undefined}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          error={fieldError(rj.error, what)}
        />
        <ErrorBox error={formError(rj.error, [what])} />
        {rj.result && <Notice kind="ok">{t("admin.rejudged", { n: rj.result.queued ?? 0 })}</Notice>}
        <button type="submit" class="btn btn-primary" disabled={rj.busy}>
          {t("admin.rejudgeGo")}
        </button>
      </form>
    </Section>
  );
}

/**
 * ContestZoneFields: the contest's zone and its start and end, typed in
 * ISO order (2026-03-01 10:00, 24 h) as wall times in that zone, which
 * every label names with its offset. The browser's own date picker is not
 * used: it shows the browser's locale order (03/01/2026 in the US) and no
 * zone.
 */
function ContestZoneFields({ f, set, fe }: { f: ContestForm; set: (k: keyof ContestForm) => (e: { currentTarget: unknown }) => void; fe: (k: string) => string | undefined }) {
  const zones = useMemo(() => timeZones(), []);
  const zone = validZone(f.time_zone) ? f.time_zone : "UTC";
  const label = (key: Key, v: string) => {
    const iso = fromZoneInput(v, zone);
    const at = iso ? Date.parse(iso) : Date.now();
    return `${t(key)} (${zone}, ${offsetLabel(zoneOffset(at, zone))})`;
  };
  const mine = viewerZone();
  return (
    <>
      <Field id="c-zone" label={t("admin.timeZone")} error={fe("time_zone")} hint={t("admin.timeZoneHint", { zone: mine })}>
        <input id="c-zone" list="c-zone-list" required value={f.time_zone} onInput={set("time_zone")} aria-describedby="c-zone-hint" autoComplete="off" />
        <datalist id="c-zone-list">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </Field>
      <Field id="c-start" label={label("admin.startAt", f.start_at)} required placeholder="2026-03-01 10:00" pattern={ZONE_PATTERN} value={f.start_at} onInput={set("start_at")} error={fe("start_at")} hint={t("admin.timeFormat")} />
      <Field id="c-end" label={label("admin.endAt", f.end_at)} required placeholder="2026-03-01 15:00" pattern={ZONE_PATTERN} value={f.end_at} onInput={set("end_at")} error={fe("end_at")} hint={t("admin.timeFormat")} />
    </>
  );
}

const ZONE_PATTERN = "\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2})?";
