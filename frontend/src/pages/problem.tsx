// A problem: its statement (Markdown + KaTeX, sanitised), the editor with a
// language picker (the last choice is remembered), submit, and the live
// verdict of the last submission right below, without leaving the page;
// under it, "run on my input" (customrun.tsx).

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ApiError, newIdempotencyKey, type Language } from "../api";
import { t } from "../i18n";
import { limitSeconds, memory } from "../format";
import { useMarkdown } from "../markdown";
import { session, useStore } from "../state";
import { RetryNotice, useAutoRetry } from "../components/retrying";
import { retryableStatus } from "../retry";
import { ErrorBox, Loading, useAsync, useFocusHeading, useTitle } from "../ui";
import { LiveSubmission } from "./submission";
import { defaultLanguage, languageLabel } from "../language";
import { CustomRunPanel } from "./customrun";
import { IOFiles, OutputsPanel } from "./problemtypes";
import type { Editor } from "../editor";

const LANG_KEY = "verdict.editor.language";
/** The language a user last chose or submitted in, per user (this browser). */
const userLangKey = (userId: number) => `${LANG_KEY}.${userId}`;
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
  const html = useMarkdown(p.data?.statement ?? "");
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
              <IOFiles p={p.data} />
            </dl>
          </header>
          <article class="statement markdown" aria-label={t("problem.statement")} dangerouslySetInnerHTML={{ __html: html }} />
          {/* The problem document carries no case count (docs/openapi.json): the panels learn it from a submission. */}
          {p.data.output_only ? (
            <OutputsPanel slug={slug} contest={contest} caseCount={null} />
          ) : (
            <SubmitPanel slug={slug} contest={contest} allowed={p.data.languages ?? []} caseCount={null} />
          )}
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
  const [language, setLanguage] = useState<string>("");
  // The user's last submission's language, read once when this browser
  // remembers no choice of theirs (another browser, a new device).
  const remembered = user ? load(userLangKey(user.id)) : null;
  const lastSubmitted = useAsync(
    () => (user && !remembered ? api.submissions({ mine: true }).then((p) => p.items[0]?.language ?? null, () => null) : Promise.resolve(null)),
    [user?.id],
  );
  const liveRef = useRef<HTMLDivElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [submitted, setSubmitted] = useState<number | null>(null);
  const [gaveUp, setGaveUp] = useState(0);
  const retry = useAutoRetry();
  const editorHost = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  // One idempotency key per click; a retry of the same click reuses it.
  const pendingKey = useRef<{ key: string; body: string } | null>(null);

  // Pick the starting language once the list is known: the user's last
  // choice or last submission's language, else the problem's first C++.
  useEffect(() => {
    if (!options.length || options.some((o) => o.id === language)) return;
    if (user && !remembered && lastSubmitted.loading) return; // wait for it
    setLanguage(defaultLanguage(options, [remembered, lastSubmitted.data, user ? null : load(LANG_KEY)]));
  }, [options, lastSubmitted.loading, user?.id]);
  const choose = (id: string) => {
    setLanguage(id);
    if (user) save(userLangKey(user.id), id);
    save(LANG_KEY, id);
  };

  // The live verdict of a new submission scrolls into view.
  useEffect(() => {
    if (submitted === null) return;
    const reduce = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
    liveRef.current?.scrollIntoView?.({ behavior: reduce ? "auto" : "smooth", block: "start" });
  }, [submitted]);

  // The editor, loaded lazily (CodeMirror is the biggest chunk).
  useEffect(() => {
    let cancelled = false;
    import("../editor").then(({ createEditor }) => {
      if (cancelled || !editorHost.current) return;
      // The language may have been picked while the editor loaded.
      const lang = currentLang.current;
      editor.current = createEditor(editorHost.current, {
        doc: (lang && load(draftKey(slug, lang))) || "",
        language: lang,
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
      if (user) save(userLangKey(user.id), language); // their last language
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
          <select id="language" value={language} onChange={(e) => choose(e.currentTarget.value)} disabled={!options.length}>
            {options.map((l) => (
              <option key={l.id} value={l.id}>
                {languageLabel(l)}
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
      {submitted !== null && (
        <div ref={liveRef} class="live-anchor" data-testid="live-result">
          <LiveSubmission key={submitted} id={submitted} caseCount={caseCount} />
        </div>
      )}
      <CustomRunPanel slug={slug} contest={contest} language={language} source={() => editor.current?.getValue() ?? ""} />
    </section>
  );
}
