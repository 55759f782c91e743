// The teams page (staff; admins change): a contest's team mode, the
// import of teams, organisations and groups in the ICPC formats or CSV
// (every bad line named, nothing imported then), the export in each
// format, and the groups, organisations and teams with their members.

import { useEffect, useState } from "preact/hooks";
import { api, importErrors, TEAM_FORMATS, type TeamFormat, type TeamImportResult, type TeamsDoc } from "../api";
import { t } from "../i18n";
import { isStaff, session, useStore } from "../state";
import { ErrorBox, Loading, Notice, useFocusHeading, useTitle } from "../ui";

/** groupNames names a team's groups, hidden ones marked. */
export function groupNames(doc: TeamsDoc, ids: readonly string[] | undefined): string {
  const byId = new Map(doc.groups.map((g) => [g.id, g]));
  return (ids ?? [])
    .map((id) => {
      const g = byId.get(id);
      if (!g) return id;
      return g.hidden ? `${g.name} (${t("teams.hidden")})` : g.name;
    })
    .join(", ");
}

export function TeamsPage({ slug }: { slug: string }) {
  useTitle(t("teams.title"));
  const h = useFocusHeading();
  const user = useStore(session).user;
  const admin = user?.role === "admin";
  const [doc, setDoc] = useState<TeamsDoc | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [format, setFormat] = useState<TeamFormat>(TEAM_FORMATS[0]!);
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<TeamImportResult | null>(null);
  const [busy, setBusy] = useState(false);

  const read = async () => {
    try {
      setDoc(await api.teams(slug));
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (isStaff(user)) read();
  }, [slug, user?.id]);

  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await read();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const onImport = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setResult(null);
    void act(async () => setResult(await api.importTeams(slug, format, file)));
  };

  if (!isStaff(user)) return <div class="page"><Notice>{t("common.notFound")}</Notice></div>;
  const lines = importErrors(error);
  return (
    <div class="page teams-page">
      <h1 ref={h} tabIndex={-1}>
        {t("teams.title")}
      </h1>
      {lines.length > 0 ? (
        <div class="notice notice-error" role="alert" id="teams-errors">
          <p>{t("teams.errors")}</p>
          <ul>
            {lines.map((l) => (
              <li key={`${l.line}/${l.field}`}>
                {t("teams.line", { line: l.line })}
                {l.field ? ` (${l.field})` : ""}: {l.message}
              </li>
            ))}
          </ul>
        </div>
      ) : error ? (
        <ErrorBox error={error} />
      ) : null}
      {doc === null ? (
        <Loading />
      ) : (
        <>
          <label class="check">
            <input
              type="checkbox"
              id="team-mode"
              checked={doc.team_mode}
              disabled={!admin || busy}
              onChange={(e) => act(() => api.setTeamMode(slug, e.currentTarget.checked))}
            />{" "}
            {t("teams.mode")}
          </label>
          {admin ? (
            <form class="teams-import" onSubmit={onImport}>
              <h2>{t("teams.import")}</h2>
              <label>
                {t("teams.format")}{" "}
                <select id="teams-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as TeamFormat)}>
                  {TEAM_FORMATS.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </label>{" "}
              <label>
                {t("teams.file")}{" "}
                <input type="file" id="teams-file" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
              </label>{" "}
              <button type="submit" disabled={!file || busy}>
                {t("teams.import")}
              </button>
              {result ? (
                <p id="teams-imported" role="status">
                  {t("teams.imported", { teams: result.teams, organizations: result.organizations, groups: result.groups, members: result.members })}
                </p>
              ) : null}
            </form>
          ) : null}
          <p class="teams-export">
            {t("teams.export")}:{" "}
            {TEAM_FORMATS.map((f) => (
              <span key={f}>
                <a href={api.teamsExportURL(slug, f)} download>
                  {f}
                </a>{" "}
              </span>
            ))}
          </p>
          <h2>{t("teams.title")}</h2>
          {doc.teams.length === 0 ? (
            <p id="teams-none">{t("teams.none")}</p>
          ) : (
            <table class="teams" id="teams-table">
              <thead>
                <tr>
                  <th>{t("teams.col.id")}</th>
                  <th>{t("teams.col.name")}</th>
                  <th>{t("teams.col.organization")}</th>
                  <th>{t("teams.col.groups")}</th>
                  <th>{t("teams.col.members")}</th>
                  {admin ? <th /> : null}
                </tr>
              </thead>
              <tbody>
                {doc.teams.map((tm) => (
                  <tr key={tm.id} data-team={tm.id} class={tm.hidden ? "hidden-team" : ""}>
                    <td>{tm.id}</td>
                    <td>{tm.display_name || tm.name}</td>
                    <td>{tm.organization ?? ""}</td>
                    <td>{groupNames(doc, tm.group_ids)}</td>
                    <td>{tm.members.map((m) => m.username).join(", ")}</td>
                    {admin ? (
                      <td>
                        <button type="button" disabled={busy} onClick={() => act(() => api.deleteTeamObject(slug, "teams", tm.id))}>
                          {t("teams.delete")}
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h2>{t("teams.groups")}</h2>
          <ul id="teams-groups">
            {doc.groups.map((g) => (
              <li key={g.id}>
                {g.id}: {g.name}
                {g.hidden ? ` (${t("teams.hidden")})` : ""}
              </li>
            ))}
          </ul>
          <h2>{t("teams.organizations")}</h2>
          <ul id="teams-organizations">
            {doc.organizations.map((o) => (
              <li key={o.id}>
                {o.id}: {o.name}
                {o.formal_name ? ` — ${o.formal_name}` : ""}
                {o.country ? ` (${o.country})` : ""}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
