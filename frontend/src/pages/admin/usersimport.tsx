// Admin: a generated password shown once, and the CSV user import (the
// generated passwords shown once, a refused file's bad lines listed).

import { useEffect, useRef, useState } from "preact/hooks";
import { api, importErrors, type ImportResult } from "../../api";
import { t } from "../../i18n";
import { ErrorBox, Field, fieldError, formError, Notice } from "../../ui";
import { Section, useSubmit } from "./form";

/** OncePassword shows a generated password the only time it exists in
 *  clear: the server keeps only its hash. Hiding it drops it for good. */
export function OncePassword({ username, password, onDone }: { username: string; password: string; onDone: () => void }) {
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

export function UsersImport({ onImported }: { onImported: () => void }) {
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
