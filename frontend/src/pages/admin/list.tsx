// Admin: the searchable, paged list of every problem or contest, with
// edit, status and source export links.

import { useEffect, useState } from "preact/hooks";
import { api, exportURL } from "../../api";
import { t } from "../../i18n";
import { ErrorBox } from "../../ui";

interface Row {
  id?: number;
  slug: string;
  title: string;
  visibility?: string;
  visible?: boolean;
  phase?: string;
}

/** AdminList is the searchable, paged list of every problem or contest,
 * each with an edit link (onEdit loads it into the form below). */
export function AdminList({ kind, onEdit }: { kind: "problems" | "contests"; onEdit: (slug: string) => void }) {
  const [q, setQ] = useState("");
  const [search, setSearch] = useState("");
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async (c: string | null, replace: boolean) => {
    setError(null);
    try {
      const page = kind === "problems" ? await api.adminProblems(search, c) : await api.adminContests(search, c);
      setRows((old) => (replace ? (page.items as Row[]) : [...old, ...(page.items as Row[])]));
      setCursor(page.next_cursor ?? null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    load(null, true);
  }, [search, kind]);
  const p = kind === "problems" ? "pl" : "cl";
  return (
    <section class="admin-section admin-list" aria-labelledby={`${p}-h`}>
      <h2 id={`${p}-h`}>{t(kind === "problems" ? "staff.allProblems" : "staff.allContests")}</h2>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch(q.trim());
        }}
      >
        <label for={`${p}-q`}>{t("staff.search")}</label>
        <input id={`${p}-q`} type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        <button type="submit" class="btn">
          {t("staff.searchGo")}
        </button>
      </form>
      <ErrorBox error={error} onRetry={() => load(null, true)} />
      {rows.length === 0 && !error && <p class="muted">{t("common.none")}</p>}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="list">
            <tbody>
              {rows.map((r) => (
                <tr key={r.slug} data-slug={r.slug}>
                  <td>{r.slug}</td>
                  <td>{r.title}</td>
                  <td class="muted">{kind === "problems" ? r.visibility : `${r.phase ?? ""}${r.visible === false ? ` · ${t("staff.hidden")}` : ""}`}</td>
                  <td class="nowrap">
                    <button type="button" class="btn btn-small" onClick={() => onEdit(r.slug)}>
                      {t("staff.edit")}
                    </button>{" "}
                    <a class="btn btn-small btn-ghost" href={`/status?${kind === "problems" ? "problem" : "contest"}=${encodeURIComponent(r.slug)}`}>
                      {t("status.title")}
                    </a>{" "}
                    <a class="btn btn-small btn-ghost export" download href={exportURL(kind === "problems" ? { problem: r.slug } : { contest: r.slug })}>
                      {t("staff.export")}
                    </a>{" "}
                    <a class="btn btn-small btn-ghost export-final" download href={exportURL(kind === "problems" ? { problem: r.slug } : { contest: r.slug }, true)}>
                      {t("staff.exportFinal")}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" class="btn" onClick={() => load(cursor, false)}>
          {t("common.more")}
        </button>
      )}
    </section>
  );
}
