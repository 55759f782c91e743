// What the admin forms share: the busy/error/result state of one API call
// (useSubmit), a form's fields as strings with one change handler per
// field (useForm), the section frame, the "load an existing one by slug"
// toolbar, a checkbox field and the feedback policy options.

import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { t, type Key } from "../../i18n";
import { ErrorBox } from "../../ui";

/** useSubmit runs an API call for a form and keeps busy/error/ok state. */
export function useSubmit<T>() {
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

/** A form's values; set(k) is the input/change handler of field k. */
export function useForm<F extends object>(empty: F) {
  const [f, setF] = useState<F>(empty);
  const set = (k: keyof F) => (e: { currentTarget: unknown }) => {
    const v = (e.currentTarget as HTMLInputElement).value;
    setF((old) => ({ ...old, [k]: v }));
  };
  return { f, setF, set };
}

export type Setter<F> = (k: keyof F) => (e: { currentTarget: unknown }) => void;
export type FieldErr = (k: string) => string | undefined;

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="admin-section">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** SlugLookup is the "edit an existing one" toolbar: a slug with the
 *  existing ones offered (id-lookup, id-existing) and Load. */
export function SlugLookup({
  id,
  value,
  onInput,
  onLoad,
  items,
  busy,
  error,
  children,
}: {
  id: string;
  value: string;
  onInput: (v: string) => void;
  onLoad: (slug: string) => void;
  items: { slug: string; title: string }[];
  busy: boolean;
  error: unknown;
  children?: ComponentChildren;
}) {
  return (
    <>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          onLoad(value.trim());
        }}
      >
        <label for={`${id}-lookup`}>{t("admin.slug")}</label>
        <input id={`${id}-lookup`} list={`${id}-existing`} value={value} onInput={(e) => onInput(e.currentTarget.value)} required />
        <datalist id={`${id}-existing`}>
          {items.map((x) => (
            <option key={x.slug} value={x.slug}>
              {x.title}
            </option>
          ))}
        </datalist>
        <button type="submit" class="btn" disabled={busy}>
          {t("admin.load")}
        </button>
        {children}
      </form>
      <ErrorBox error={error} />
    </>
  );
}

/** CheckField is a checkbox with its label, an optional hint and the server's error. */
export function CheckField({
  id,
  label,
  checked,
  onChange,
  error,
  hint,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string;
  hint?: string;
}) {
  return (
    <div class={`field check${error ? " field-invalid" : ""}`}>
      <label for={id}>
        <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />{" "}
        {label}
      </label>
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {error && <small class="field-error">{error}</small>}
    </div>
  );
}

/** The feedback policies, in the order the forms offer them. */
export const FEEDBACK_POLICIES = ["full", "first_failure", "score_only", "closed"] as const;

/** FeedbackOptions: the <option>s of a feedback policy select ("closed" only where a contest may use it). */
export function FeedbackOptions({ closed }: { closed: boolean }) {
  return (
    <>
      {FEEDBACK_POLICIES.filter((x) => closed || x !== "closed").map((x) => (
        <option key={x} value={x}>
          {t(`admin.feedback.${x}` as Key)}
        </option>
      ))}
    </>
  );
}

/** The problem visibilities, in the order the forms offer them. */
export const VISIBILITIES = ["private", "public", "contest-only"] as const;

/** The slug pattern of problems and contests. */
export const SLUG_PATTERN = "[a-z0-9][a-z0-9-]*";
