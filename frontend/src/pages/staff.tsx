// Staff tools outside the status page: the jury panel of a submission
// (rejudge, a hand-set verdict with its reason, the audit). The admin
// lists of problems and contests are in admin/list.tsx.

import { useEffect, useState } from "preact/hooks";
import { api, type Override, type SubmissionDetail } from "../api";
import type { BodyOf } from "../api/openapi.gen";
import { getLang, t } from "../i18n";
import { FINAL_VERDICTS } from "../live/protocol";
import { dateTime } from "../format";
import { ErrorBox, Field, fieldError, Notice, VerdictBadge } from "../ui";

/** JuryPanel is what staff do with one submission: rejudge it, set its
 * verdict by hand (with a reason, audited), and read who did what. */
export function JuryPanel({ id }: { id: number }) {
  const [doc, setDoc] = useState<SubmissionDetail | null>(null);
  const [verdict, setVerdict] = useState<BodyOf<"overrideVerdict">["verdict"]>("AC");
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
      const b: BodyOf<"overrideVerdict"> = { verdict, reason };
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
          <select id="ov-verdict" value={verdict} onChange={(e) => setVerdict(e.currentTarget.value as typeof verdict)}>
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
