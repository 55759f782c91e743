import { useMemo, useState } from "preact/hooks";
import { api } from "../api";
import { t } from "../i18n";
import { limitSeconds, memory } from "../format";
import { ErrorBox, Loading, useAsync, useFocusHeading, useTitle } from "../ui";

export function ProblemsPage() {
  useTitle(t("problems.title"));
  const h = useFocusHeading();
  const list = useAsync(() => api.problems(), []);
  const [q, setQ] = useState("");
  const items = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const all = list.data?.items ?? [];
    return needle ? all.filter((p) => p.title.toLowerCase().includes(needle) || p.slug.includes(needle)) : all;
  }, [list.data, q]);
  return (
    <div class="page">
      <h1 ref={h} tabIndex={-1}>
        {t("problems.title")}
      </h1>
      <div class="toolbar">
        <label for="problem-filter" class="sr-only">
          {t("problems.filter")}
        </label>
        <input id="problem-filter" type="search" placeholder={t("problems.filter")} value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      </div>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && items.length === 0 && <p class="muted">{t("common.none")}</p>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">{t("problems.col.title")}</th>
                <th scope="col">{t("problems.col.limits")}</th>
                <th scope="col" class="hide-narrow">{t("problems.col.mode")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.slug}>
                  <td>
                    <a href={`/problems/${encodeURIComponent(p.slug)}`}>{p.title}</a>
                  </td>
                  <td class="nowrap">
                    {limitSeconds(p.time_limit_ms)} · {memory(p.memory_limit_kb)}
                  </td>
                  <td class="hide-narrow">{p.mode === "ioi" ? "IOI" : "ICPC"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
