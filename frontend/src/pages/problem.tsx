// A problem: its statement (Markdown + KaTeX, sanitised), the editor with a
// language picker (the last choice is remembered), submit, and the live
// verdict of the last submission right below, without leaving the page;
// under it, "run on my input" (customrun.tsx).

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, newIdempotencyKey, type Language } from "../api";
import { t } from "../i18n";
import { limitSeconds, memory } from "../format";
import { renderMarkdown } from "../markdown";
import { session, useStore } from "../state";
import { RetryNotice, useAutoRetry } from "../components/retrying";
import { retryableStatus } from "../retry";
import { ErrorBox, Loading, useAsync, useFocusHeading, useTitle } from "../ui";
import { LiveSubmission } from "./submission";
import { CustomRunPanel } from "./customrun";
import type { Editor } from "../editor";

const LANG_KEY = "verdict.editor.language";
const draftKey = (slug: string, lang: string) => `verdict.draft.${slug}.${lang}`;

function load(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function save(key: string, v: string): void {
  try {
    localStorage.setItem(key, v);
  } catch {
    /* quota or disabled storage */
  }
}

export function ProblemPage({ slug, contest }: { slug: string; contest?: string }) {
  const p = useAsync(() => api.problem(slug), [slug]);
  const h = useFocusHeading();
  useTitle(p.data?.title ?? slug);
  const html = useMemo(() => (p.data ? renderMarkdown(p.data.statement) : ""), [p.data]);
  return (
    <div class="page problem-page">
      <ErrorBox error={p.error} onRetry={p.reload} />
      {p.loading && !p.data && <Loading />}
      {p.data && (
        <>
          <header class="problem-head">
            {contest && (
              <p class="crumb">
                <a href={`/contests/${encodeURIComponent(contest)}`}>{contest}</a>
              </p>
            )}
            <h1 ref={h} tabIndex={-1}>
              {p.data.title}
            </h1>
            <dl class="limits">
              <div>
                <dt>{t("problem.timeLimit")}</dt>
                <dd>{limitSeconds(p.data.time_limit_ms)}</dd>
              </div>
              <div>
                <dt>{t("problem.memoryLimit")}</dt>
                <dd>{memory(p.data.memory_limit_kb)}</dd>
              </div>
              <div>
                <dt>{t("problem.mode")}</dt>
                <dd>{p.data.mode === "ioi" ? t("problem.mode.ioi") : t("problem.mode.icpc")}</dd>
              </div>
            </dl>
          </header>
          <article class="statement markdown" aria-label={t("problem.statement")} dangerouslySetInnerHTML={{ __html: html }} />
          <SubmitPanel slug={slug} contest={contest} allowed={p.data.languages ?? []} caseCount={p.data.case_count ?? null} />
        </>
      )}
    </div>
  );
}

function SubmitPanel({ slug, contest, allowed, caseCount }: { slug: string; contest?: string; allowed: string[]; caseCount: number | null }) {
  const user = useStore(session).user;
  const langs = useAsync(() => api.languages(), []);
  const options: Language[] = useMemo(() => {
    const all = langs.data?.items ?? [];
    return allowed.length ? all.filter((l) => allowed.includes(l.id)) : all;
  }, [langs.data, allowed]);
  const [language, setLanguage] = useState<string>(() => load(LANG_KEY) ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [submitted, setSubmitted] = useState<number | null>(null);
  const [gaveUp, setGaveUp] = useState(0);
  const retry = useAutoRetry();
  const editorHost = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  // One idempotency key per click; a retry of the same click reuses it.
  const pendingKey = useRef<{ key: string; body: string } | null>(null);

  // Pick a valid language once the list is known.
  useEffect(() => {
    if (options.length && !options.some((o) => o.id === language)) setLanguage(options[0]!.id);
  }, [options]);

  // The editor, loaded lazily (CodeMirror is the biggest chunk).
  useEffect(() => {
    let cancelled = false;
    import("../editor").then(({ createEditor }) => {
      if (cancelled || !editorHost.current) return;
      editor.current = createEditor(editorHost.current, {
        doc: load(draftKey(slug, language)) ?? "",
        language,
        label: t("editor.code"),
        describedBy: "editor-keys",
        onChange: (s) => save(draftKey(slug, currentLang.current), s),
        onSubmit: () => submitRef.current(),
      });
    });
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = null;
    };
  }, [slug]);

  const currentLang = useRef(language);
  useEffect(() => {
    const prev = currentLang.current;
    currentLang.current = language;
    if (!language) return;
    save(LANG_KEY, language);
    const ed = editor.current;
    if (!ed) return;
    ed.setLanguage(language);
    if (prev !== language) {
      // Each language keeps its own draft; an empty editor takes the other's.
      const draft = load(draftKey(slug, language));
      if (draft !== null && draft !== ed.getValue()) ed.setValue(draft);
    }
  }, [language]);

  const submit = async () => {
    if (busy) return;
    const source = editor.current?.getValue() ?? "";
    if (!source.trim()) {
      setError(new ApiError(400, "empty", t("editor.empty"), "source"));
      return;
    }
    const body = JSON.stringify([slug, contest, language, source]);
    if (!pendingKey.current || pendingKey.current.body !== body) pendingKey.current = { key: newIdempotencyKey(), body };
    const key = pendingKey.current.key;
    setBusy(true);
    setError(null);
    setGaveUp(0);
    // "Busy, try later" (429/503), no answer and 502/504 are retried after
    // Retry-After with the same key, so the server judges it once however
    // many tries reach it.
    const r = await retry.run(() => api.submit({ problem: slug, contest, language, source }, key));
    setBusy(false);
    if (r.ok) {
      if (pendingKey.current?.key === key) pendingKey.current = null;
      setSubmitted(r.value.id);
      return;
    }
    // Cancelled or given up: the key is kept, so clicking again (same code)
    // is the same submission, never a second one. Any other answer (4xx,
    // 500) was not a submission: the next click gets a new key.
    if (r.cancelled) return;
    if (!(r.error instanceof ApiError && retryableStatus(r.error.status))) pendingKey.current = null;
    if (r.exhausted) setGaveUp(r.tries);
    else setError(r.error);
  };
  const submitRef = useRef(submit);
  submitRef.current = submit;

  const loadFile = (f: File | undefined) => {
    if (!f || f.size > 256 << 10) return;
    f.text().then((s) => editor.current?.setValue(s));
  };

  return (
    <section class="submit-panel" aria-labelledby="submit-h">
      <h2 id="submit-h">{t("problem.submitTitle")}</h2>
      {!user && (
        <p class="alert alert-info">
          <a href={`/login?next=${encodeURIComponent(location.pathname)}`}>{t("nav.login")}</a> — {t("common.loginRequired")}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div class="toolbar">
          <label for="language">{t("editor.language")}</label>
          <select id="language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)} disabled={!options.length}>
            {options.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
                {l.version ? ` (${l.version})` : ""}
              </option>
            ))}
          </select>
          <label class="btn btn-ghost file-btn">
            {t("editor.loadFile")}
            <input type="file" class="sr-only" onChange={(e) => loadFile(e.currentTarget.files?.[0])} />
          </label>
        </div>
        {langs.data && options.length === 0 && <p class="alert alert-warn">{t("editor.noLanguages")}</p>}
        <ErrorBox error={langs.error} onRetry={langs.reload} />
        <div class="editor" ref={editorHost} />
        <p id="editor-keys" class="muted hint">
          {t("editor.keys")}
        </p>
        <ErrorBox error={error} />
        <RetryNotice retry={retry} id="submit-retry" texts={{ waiting: "editor.busy.waiting", trying: "editor.busy.trying" }} />
        {gaveUp > 0 && (
          <p class="alert alert-error" role="alert" data-testid="submit-gave-up">
            {t("editor.busy.gaveUp", { tries: gaveUp })}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="btn btn-primary" disabled={busy || !user || !language} aria-keyshortcuts="Control+Enter">
            {!busy ? t("editor.submit") : retry.wait ? t("editor.queued") : t("editor.submitting")}
          </button>
        </div>
      </form>
      {submitted !== null && <LiveSubmission key={submitted} id={submitted} caseCount={caseCount} />}
      <CustomRunPanel slug={slug} contest={contest} language={language} source={() => editor.current?.getValue() ?? ""} />
    </section>
  );
}
