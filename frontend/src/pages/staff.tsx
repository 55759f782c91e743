// Staff tools outside the status page: the admin lists of problems and
// contests (search, paging, edit links, source export), and the jury panel
// of a submission (rejudge, a hand-set verdict with its reason, the audit).

import { useEffect, useState } from "preact/hooks";
import { api, exportURL, type Override, type SubmissionDetail } from "../api";
import { getLang, t } from "../i18n";
import { FINAL_VERDICTS } from "../live/protocol";
import { dateTime } from "../format";
import { ErrorBox, Field, fieldError, Notice, VerdictBadge } from "../ui";

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

/** JuryPanel is what staff do with one submission: rejudge it, set its
 * verdict by hand (with a reason, audited), and read who did what. */
export function JuryPanel({ id }: { id: number }) {
  const [doc, setDoc] = useState<SubmissionDetail | null>(null);
  const [verdict, setVerdict] = useState("AC");
  const [score, setScore] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const reload = () => api.submission(id).then(setDoc, setError);
  useEffect(() => {
    reload();
  }, [id]);
  const rejudge = async () => {
    setError(null);
    setDone(null);
    try {
      await api.rejudge({ submission: id });
      setDone(t("staff.rejudged"));
    } catch (e) {
      setError(e);
    }
  };
  const override = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const b: { verdict: string; reason: string; score?: number } = { verdict, reason };
      if (score.trim() !== "") b.score = Number(score);
      await api.override(id, b);
      setDone(t("staff.overridden", { verdict }));
      setReason("");
      reload();
    } catch (err) {
      setError(err);
    }
  };
  const lang = getLang();
  return (
    <section class="jury" aria-labelledby="jury-h">
      <h2 id="jury-h">{t("staff.jury")}</h2>
      <p class="toolbar">
        <button type="button" class="btn" id="jury-rejudge" onClick={rejudge}>
          {t("staff.rejudge")}
        </button>
      </p>
      <form class="form grid" onSubmit={override}>
        <Field id="ov-verdict" label={t("staff.overrideVerdict")} error={fieldError(error, "verdict")}>
          <select id="ov-verdict" value={verdict} onChange={(e) => setVerdict(e.currentTarget.value)}>
            {FINAL_VERDICTS.filter((v) => v !== "SK").map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </Field>
        <Field id="ov-score" label={t("staff.overrideScore")} type="number" min={0} max={100} step="any" value={score} onInput={(e) => setScore(e.currentTarget.value)} error={fieldError(error, "score")} />
        <Field id="ov-reason" label={t("staff.overrideReason")} error={fieldError(error, "reason")}>
          <textarea id="ov-reason" rows={2} maxLength={1000} required value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="btn btn-danger">
          {t("staff.override")}
        </button>
      </form>
      {done && <Notice kind="ok">{done}</Notice>}
      <ErrorBox error={fieldError(error, "verdict") || fieldError(error, "score") || fieldError(error, "reason") ? null : error} />
      <Overrides list={doc?.overrides ?? []} lang={lang} />
    </section>
  );
}

function Overrides({ list, lang }: { list: Override[]; lang: ReturnType<typeof getLang> }) {
  if (list.length === 0) return null;
  return (
    <div class="table-wrap">
      <table class="list overrides">
        <caption>{t("staff.overrides")}</caption>
        <tbody>
          {list.map((o, i) => (
            <tr key={i}>
              <td class="nowrap">{dateTime(o.at, lang)}</td>
              <td>{o.by ?? "—"}</td>
              <td class="nowrap">
                <VerdictBadge verdict={o.old_verdict} short /> → <VerdictBadge verdict={o.new_verdict} short />
              </td>
              <td>{o.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
