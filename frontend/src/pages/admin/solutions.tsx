// Admin: a problem's reference solutions, run on demand, each with whether
// it got its expected verdict.

import { useState } from "preact/hooks";
import { api, type SolutionsDoc } from "../../api";
import { t, type Key } from "../../i18n";
import { ErrorBox, useAsync } from "../../ui";

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

