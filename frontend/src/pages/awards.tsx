// The awards page, /contests/:slug/awards: the final standings and the
// awards, printable (a print stylesheet hides everything else; the Print
// button is window.print()). The public see them once the contest is over
// and the scoreboard no longer frozen. Staff also edit single awards on
// top of the computed ones (teams added and removed, a citation, awards
// of their own), set the medal counts, and an admin finalizes the
// contest, which publishes the awards (docs/icpc.md, "Awards and medals",
// "Finalizing"). Everything goes through the REST API: GET /awards,
// PUT/DELETE /awards/{award}, GET/PUT /award-settings, GET/POST
// /finalize.

import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api";
import type { ResponseOf } from "../api/openapi.gen";
import { t } from "../i18n";
import type { ScoreRow } from "../scoreboard";
import { isStaff, session, useStore } from "../state";
import { ErrorBox, Loading, Notice, useFocusHeading, useTitle } from "../ui";

type AwardsDoc = ResponseOf<"contestAwards">;
type Award = AwardsDoc["awards"][number];
type Finalization = ResponseOf<"contestFinalization">;
type Settings = ResponseOf<"contestAwardSettings">;

/** teamName names a CLICS team id from the awards document. */
export function teamName(doc: AwardsDoc, id: string): string {
  return doc.teams.find((x) => x.id === id)?.name ?? id;
}

/** awardOf is the award a team has among the medals and honourable
 * mentions (for the standings' award column), or "". */
export function awardOf(awards: readonly Award[], team: string): string {
  for (const id of ["gold-medal", "silver-medal", "bronze-medal", "honorable-mention"]) {
    const a = awards.find((x) => x.id === id);
    if (a?.team_ids.includes(team)) return a.citation;
  }
  return "";
}

/** rowTeam is a scoreboard row's CLICS team id (a team's id, else the user's). */
function rowTeam(r: ScoreRow & { team_id?: string; user_id?: number }): string {
  return r.team_id || String(r.user_id ?? r.user);
}

export function AwardsPage({ slug }: { slug: string }) {
  useTitle(t("awards.title"));
  const h = useFocusHeading();
  const user = useStore(session).user;
  const staff = isStaff(user);
  const admin = user?.role === "admin";
  const [doc, setDoc] = useState<AwardsDoc | null>(null);
  const [rows, setRows] = useState<ScoreRow[]>([]);
  const [fin, setFin] = useState<Finalization | null>(null);
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  const load = async () => {
    try {
      const d = await call("GET /api/contests/{slug}/awards", { path: { slug } });
      setDoc(d);
      if (d.awards.length > 0 || staff) {
        const sb = (await api.scoreboard(slug)) as { rows?: ScoreRow[] };
        setRows(sb.rows ?? []);
      }
      if (staff) {
        setFin(await call("GET /api/contests/{slug}/finalize", { path: { slug } }));
        setSettings(await call("GET /api/contests/{slug}/award-settings", { path: { slug } }));
      }
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    load();
  }, [slug, user?.id]);

  const act = async (fn: () => Promise<unknown>) => {
    setSaved(false);
    try {
      await fn();
      await load();
      setSaved(true);
    } catch (e) {
      setError(e);
    }
  };
  const edit = (a: Award, body: { citation?: string | null; add?: string[]; remove?: string[] }) =>
    act(() => call("PUT /api/contests/{slug}/awards/{award}", { path: { slug, award: a.id }, body }));
  const editOf = (id: string) => doc?.edits?.find((e) => e.award_id === id);
  const editable = staff && doc?.editable === true;

  if (!doc) return <div class="page">{error ? <ErrorBox error={error} /> : <Loading />}</div>;
  return (
    <div class="page awards-page">
      <h1 ref={h} tabIndex={-1}>
        {t("awards.title")}
      </h1>
      <p class="no-print toolbar">
        <button type="button" class="btn btn-small" onClick={() => window.print()} data-testid="awards-print">
          {t("awards.print")}
        </button>
      </p>
      <ErrorBox error={error} />
      {saved && <Notice kind="ok">{t("awards.saved")}</Notice>}
      {doc.awards.length === 0 && !staff ? (
        <Notice>{t("awards.notYet")}</Notice>
      ) : (
        <>
          <p id="awards-final">{doc.final && doc.finalized_at ? t("awards.final", { at: doc.finalized_at }) : t("awards.notFinal")}</p>
          <table class="awards" data-testid="awards-table">
            <thead>
              <tr>
                <th>{t("awards.col.award")}</th>
                <th>{t("awards.col.teams")}</th>
              </tr>
            </thead>
            <tbody>
              {doc.awards.map((a) => (
                <AwardRow key={a.id} doc={doc} award={a} edited={!!editOf(a.id)} editable={editable}
                  onEdit={(body) => edit(a, { citation: editOf(a.id)?.citation ?? null, add: editOf(a.id)?.add ?? [], remove: editOf(a.id)?.remove ?? [], ...body })}
                  onReset={() => act(() => call("DELETE /api/contests/{slug}/awards/{award}", { path: { slug, award: a.id } }))} />
              ))}
            </tbody>
          </table>
          {editable && <OwnAward doc={doc} onCreate={(id, citation, team) =>
            act(() => call("PUT /api/contests/{slug}/awards/{award}", { path: { slug, award: id }, body: { citation, add: team ? [team] : [] } }))} />}
          {staff && doc.editable === false && <Notice>{t("awards.locked")}</Notice>}
          <h2>{t("awards.standings")}</h2>
          <table class="standings" data-testid="final-standings">
            <thead>
              <tr>
                <th>{t("awards.col.rank")}</th>
                <th>{t("awards.col.team")}</th>
                <th>{t("awards.col.solved")}</th>
                <th>{t("awards.col.time")}</th>
                <th>{t("awards.col.award")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={String(r.user)}>
                  <td>{r.rank}</td>
                  <td>{r.display_name || String(r.user)}</td>
                  <td>{r.solved}</td>
                  <td>{r.penalty}</td>
                  <td>{awardOf(doc.awards, rowTeam(r))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {staff && settings && <MedalSettings slug={slug} settings={settings} disabled={!editable} onSaved={load} onError={setError} />}
      {staff && fin && (
        <section class="no-print finalize" aria-labelledby="fin-h">
          <h2 id="fin-h">{t("awards.finalize")}</h2>
          {fin.finalized ? (
            <p data-testid="finalized">{t("awards.finalizedBy", { at: fin.finalized_at ?? "", by: fin.finalized_by ?? "", comment: fin.comment ?? "" })}</p>
          ) : (
            <Finalize fin={fin} admin={admin} onFinalize={(comment) => {
              if (!confirm(t("awards.confirmFinalize"))) return;
              act(() => call("POST /api/contests/{slug}/finalize", { path: { slug }, body: { comment } }));
            }} />
          )}
        </section>
      )}
    </div>
  );
}

function AwardRow({ doc, award, edited, editable, onEdit, onReset }: {
  doc: AwardsDoc; award: Award; edited: boolean; editable: boolean;
  onEdit: (b: { citation?: string | null; add?: string[]; remove?: string[] }) => void; onReset: () => void;
}) {
  const [citation, setCitation] = useState(award.citation);
  const [add, setAdd] = useState("");
  useEffect(() => setCitation(award.citation), [award.citation]);
  const others = doc.teams.filter((x) => !award.team_ids.includes(x.id));
  return (
    <tr data-award={award.id}>
      <td>
        {editable ? (
          <input type="text" value={citation} aria-label={t("awards.citation")} maxLength={255}
            onInput={(e) => setCitation(e.currentTarget.value)} />
        ) : (
          award.citation
        )}
        {edited && <span class="badge">{t("awards.edited")}</span>}
      </td>
      <td>
        {award.team_ids.length === 0 ? <span class="muted">{t("awards.none")}</span> : null}
        {award.team_ids.map((id) => (
          <span key={id} class="team-chip">
            {teamName(doc, id)}
            {editable && (
              <button type="button" class="btn-link no-print" aria-label={t("awards.remove", { team: teamName(doc, id) })}
                onClick={(() => {
                  const e = doc.edits?.find((x) => x.award_id === award.id);
                  const added = e?.add ?? [];
                  return () => onEdit(added.includes(id) ? { add: added.filter((x) => x !== id) } : { remove: [...(e?.remove ?? []), id] });
                })()}>
                ×
              </button>
            )}{" "}
          </span>
        ))}
        {editable && (
          <span class="no-print">
            <select aria-label={t("awards.add")} value={add} onChange={(e) => setAdd(e.currentTarget.value)}>
              <option value="">{t("awards.add")}</option>
              {others.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}
            </select>{" "}
            <button type="button" class="btn btn-small" onClick={() => {
              const e = doc.edits?.find((x) => x.award_id === award.id);
              const body: { citation?: string | null; add?: string[]; remove?: string[] } = { citation: citation === award.citation && !e?.citation ? null : citation };
              if (add) {
                body.add = [...(e?.add ?? []), add];
                body.remove = (e?.remove ?? []).filter((x) => x !== add);
              }
              setAdd("");
              onEdit(body);
            }}>
              {t("awards.save")}
            </button>{" "}
            {edited && <button type="button" class="btn btn-small" onClick={onReset}>{t("awards.reset")}</button>}
          </span>
        )}
      </td>
    </tr>
  );
}

function OwnAward({ doc, onCreate }: { doc: AwardsDoc; onCreate: (id: string, citation: string, team: string) => void }) {
  const [id, setID] = useState("");
  const [citation, setCitation] = useState("");
  const [team, setTeam] = useState("");
  return (
    <form class="no-print own-award" onSubmit={(e) => { e.preventDefault(); if (id) onCreate(id, citation, team); }}>
      <fieldset>
        <legend>{t("awards.own")}</legend>
        <input type="text" value={id} placeholder={t("awards.ownID")} aria-label={t("awards.ownID")} pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]{0,35}"
          onInput={(e) => setID(e.currentTarget.value)} />{" "}
        <input type="text" value={citation} placeholder={t("awards.citation")} aria-label={t("awards.citation")} maxLength={255}
          onInput={(e) => setCitation(e.currentTarget.value)} />{" "}
        <select aria-label={t("awards.add")} value={team} onChange={(e) => setTeam(e.currentTarget.value)}>
          <option value="">{t("awards.add")}</option>
          {doc.teams.map((x) => <option key={x.id} value={x.id}>{x.name}</option>)}
        </select>{" "}
        <button type="submit" class="btn btn-small">{t("awards.create")}</button>
      </fieldset>
    </form>
  );
}

function MedalSettings({ slug, settings, disabled, onSaved, onError }: {
  slug: string; settings: Settings; disabled: boolean; onSaved: () => void; onError: (e: unknown) => void;
}) {
  const [s, setS] = useState(settings);
  useEffect(() => setS(settings), [settings]);
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await call("PUT /api/contests/{slug}/award-settings", { path: { slug }, body: s });
      onSaved();
    } catch (err) {
      onError(err);
    }
  };
  const num = (k: "gold" | "silver" | "bronze", label: string) => (
    <label>
      {label}{" "}
      <input type="number" min={0} max={1000} value={s[k]} disabled={disabled} onInput={(e) => setS({ ...s, [k]: Number(e.currentTarget.value) })} />
    </label>
  );
  return (
    <form class="no-print medal-settings" onSubmit={save}>
      <fieldset disabled={disabled}>
        <legend>{t("awards.settings")}</legend>
        {num("gold", t("awards.gold"))} {num("silver", t("awards.silver"))} {num("bronze", t("awards.bronze"))}{" "}
        <label>
          <input type="checkbox" checked={s.honorable_below_median} onChange={(e) => setS({ ...s, honorable_below_median: e.currentTarget.checked })} />{" "}
          {t("awards.median")}
        </label>{" "}
        <button type="submit" class="btn btn-small">{t("awards.save")}</button>
      </fieldset>
    </form>
  );
}

function Finalize({ fin, admin, onFinalize }: { fin: Finalization; admin: boolean; onFinalize: (comment: string) => void }) {
  const [comment, setComment] = useState("");
  return (
    <>
      <p class="muted">{t("awards.finalizeHint")}</p>
      {fin.blockers.length > 0 && (
        <div data-testid="finalize-blockers">
          {t("awards.blockers")}
          <ul>{fin.blockers.map((b) => <li key={b}>{b}</li>)}</ul>
        </div>
      )}
      {admin && (
        <form onSubmit={(e) => { e.preventDefault(); onFinalize(comment); }}>
          <input type="text" value={comment} aria-label={t("awards.comment")} placeholder={t("awards.comment")} maxLength={255}
            onInput={(e) => setComment(e.currentTarget.value)} />{" "}
          <button type="submit" class="btn" disabled={!fin.can_finalize} data-testid="finalize">
            {t("awards.finalize")}
          </button>
        </form>
      )}
    </>
  );
}
