// Admin pages (admin and setter roles): problems and their test data,
// ICPC problem package import, contests, users CSV import, judge tokens
// with their live load, rejudge.
// Plain forms on the API; a field error from the server is shown next to
// its field.

import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { api, ApiError, importErrors, unknownUsernames, type Contest, type ImportResult, type JudgeInfo, type ProblemImportResult } from "../api";
import { getLang, t, type Key } from "../i18n";
import { dateTime, fromLocalInput, toLocalInput } from "../format";
import { renderMarkdown } from "../markdown";
import { parseUsernames } from "../registration";
import { isStaff, session, useStore } from "../state";
import { ErrorBox, Field, fieldError, formError, Loading, Notice, useAsync, useFocusHeading, useTitle } from "../ui";

const SECTIONS: { id: string; key: Key }[] = [
  { id: "problems", key: "admin.problems" },
  { id: "contests", key: "admin.contests" },
  { id: "users", key: "admin.users" },
  { id: "judges", key: "admin.judges" },
  { id: "rejudge", key: "admin.rejudge" },
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
  languages: "",
};
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
    load.run(async () => {
      const p = await api.problem(lookup.trim());
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
        languages: (p.languages ?? []).join(", "),
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
      languages: f.languages.split(/[\s,]+/).filter(Boolean),
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
          <Field id="p-languages" label={t("admin.languages")} value={f.languages} onInput={set("languages")} error={fe("languages")} />
          <ErrorBox error={formError(save.error, fields)} />
          {save.result !== null && <Notice kind="ok">{t("admin.saved")}</Notice>}
          <button type="submit" class="btn btn-primary" disabled={save.busy}>
            {editing ? t("common.save") : t("common.create")}
          </button>
        </form>
      </Section>
      {editing && <TestdataUpload slug={editing} />}
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
  freeze_minutes: "0",
  registration: "open",
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
    start_at: fromLocalInput(f.start_at),
    end_at: fromLocalInput(f.end_at),
    freeze_minutes: Number(f.freeze_minutes),
    registration: f.registration,
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
    start_at: toLocalInput(c.start_at),
    end_at: toLocalInput(c.end_at),
    freeze_minutes: String(c.freeze_minutes ?? 0),
    registration: c.registration === "list" ? "list" : "open",
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
    load.run(async () => {
      const c = await api.contest(lookup.trim());
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
          <Field id="c-start" label={t("admin.startAt")} type="datetime-local" required value={f.start_at} onInput={set("start_at")} error={fe("start_at")} />
          <Field id="c-end" label={t("admin.endAt")} type="datetime-local" required value={f.end_at} onInput={set("end_at")} error={fe("end_at")} />
          <Field id="c-freeze" label={t("admin.freeze")} type="number" min={0} value={f.freeze_minutes} onInput={set("freeze_minutes")} error={fe("freeze_minutes")} />
          <Field id="c-registration" label={t("admin.registration")} error={fe("registration")} hint={f.registration === "list" ? t("admin.registration.listHint") : t("admin.registration.openHint")}>
            <select id="c-registration" value={f.registration} onChange={set("registration")} aria-describedby="c-registration-hint">
              <option value="open">{t("admin.registration.open")}</option>
              <option value="list">{t("admin.registration.list")}</option>
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

function UsersAdmin() {
  const [file, setFile] = useState<File | null>(null);
  const imp = useSubmit<ImportResult>();
  return (
    <Section title={t("admin.users")}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) imp.run(() => api.importUsers(file));
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

function JudgesAdmin() {
  const [judges, setJudges] = useState<JudgeInfo[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState("");
  const issue = useSubmit<{ name: string; token: string }>();
  const [tick, setTick] = useState(0);
  const lang = getLang();

  // Live load: the heartbeat is every 3 s, so poll at that rate while visible.
  useEffect(() => {
    let stop = false;
    const load = () =>
      api.judges().then(
        (p) => !stop && (setJudges(p.items), setError(null)),
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
