// Admin: judges — issue a token (shown once), the list with its live load
// (read again every 3 s while the page is visible), revoke, and how warm
// the judges are for upcoming contests.

import { useEffect, useState } from "preact/hooks";
import { api, unwrapList, type JudgeInfo, type JudgeWarmth } from "../../api";
import { getLang, t } from "../../i18n";
import { dateTime } from "../../format";
import { ErrorBox, fieldError, formError, Loading } from "../../ui";
import { Section, useSubmit } from "./form";

const JUDGE_REFRESH_S = 3;

/** loadJudges reads GET /api/judges: the judges and their warmth per contest. */
export async function loadJudges(): Promise<{ judges: JudgeInfo[]; warm: JudgeWarmth[] }> {
  const doc = await api.judgesDoc();
  const warm: unknown = doc?.warm;
  return { judges: unwrapList<JudgeInfo>(doc, "judges").items, warm: Array.isArray(warm) ? (warm as JudgeWarmth[]) : [] };
}

export function JudgesAdmin() {
  const [judges, setJudges] = useState<JudgeInfo[] | null>(null);
  const [warm, setWarm] = useState<JudgeWarmth[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState("");
  const issue = useSubmit<{ name: string; token: string }>();
  const [tick, setTick] = useState(0);
  const lang = getLang();

  // Live load: the heartbeat is every 3 s, so poll at that rate while visible.
  useEffect(() => {
    let stop = false;
    const load = () =>
      loadJudges().then(
        (p) => !stop && (setJudges(p.judges), setWarm(p.warm), setError(null)),
        (e) => !stop && setError(e),
      );
    load();
    const h = setInterval(() => document.visibilityState === "visible" && load(), JUDGE_REFRESH_S * 1000);
    return () => {
      stop = true;
      clearInterval(h);
    };
  }, [tick]);

  const revoke = async (n: string) => {
    if (!confirm(t("admin.confirmRevoke", { name: n }))) return;
    try {
      await api.deleteJudge(n);
      setTick((x) => x + 1);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <Section title={t("admin.issueToken")}>
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            issue.run(async () => {
              const r = await api.createJudge(name.trim());
              setName("");
              setTick((x) => x + 1);
              return r;
            });
          }}
        >
          <label for="j-name">{t("admin.judgeName")}</label>
          <input id="j-name" required pattern="[A-Za-z0-9][A-Za-z0-9._-]*" value={name} onInput={(e) => setName(e.currentTarget.value)} aria-invalid={fieldError(issue.error, "name") ? "true" : undefined} aria-describedby={fieldError(issue.error, "name") ? "j-name-err" : undefined} />
          <button type="submit" class="btn btn-primary" disabled={issue.busy}>
            {t("admin.issueToken")}
          </button>
        </form>
        {fieldError(issue.error, "name") && (
          <small id="j-name-err" class="field-error">
            {fieldError(issue.error, "name")}
          </small>
        )}
        <ErrorBox error={formError(issue.error, ["name"])} />
        {issue.result && (
          <div class="alert alert-ok" role="status">
            <p>{t("admin.tokenOnce", { name: issue.result.name })}</p>
            <input class="token" readOnly value={issue.result.token} aria-label={t("admin.tokenOnce", { name: issue.result.name })} onFocus={(e) => e.currentTarget.select()} />
          </div>
        )}
      </Section>
      <Section title={t("admin.judges")}>
        <p class="muted">{t("admin.judge.refresh", { seconds: JUDGE_REFRESH_S })}</p>
        <ErrorBox error={error} />
        {judges === null && !error && <Loading />}
        {judges && judges.length === 0 && <p class="muted">{t("common.none")}</p>}
        {judges && judges.length > 0 && (
          <div class="table-wrap">
            <table class="list judges">
              <thead>
                <tr>
                  <th scope="col">{t("admin.judge.name")}</th>
                  <th scope="col">{t("admin.judge.state")}</th>
                  <th scope="col" class="num">{t("admin.judge.running")}</th>
                  <th scope="col" class="num">{t("admin.judge.load")}</th>
                  <th scope="col" class="num hide-narrow">{t("admin.judge.memory")}</th>
                  <th scope="col" class="hide-narrow">{t("admin.judge.seen")}</th>
                  <th scope="col">
                    <span class="sr-only">{t("admin.revoke")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {judges.map((j) => (
                  <tr key={j.name}>
                    <th scope="row">{j.name}</th>
                    <td>{j.connected ? t("admin.judge.online") : t("admin.judge.offline")}</td>
                    <td class="num">{j.running != null ? `${j.running}/${j.cores ?? "?"}` : ""}</td>
                    <td class="num">{j.load1 != null ? j.load1.toFixed(2) : ""}</td>
                    <td class="num hide-narrow">{j.mem_used_ratio != null ? `${Math.round(j.mem_used_ratio * 100)}%` : ""}</td>
                    <td class="hide-narrow nowrap">{dateTime(j.last_seen_at, lang)}</td>
                    <td>
                      {!j.revoked_at && (
                        <button type="button" class="btn btn-small btn-danger" onClick={() => revoke(j.name)}>
                          {t("admin.revoke")}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      {warm.length > 0 && (
        <Section title={t("admin.warm")}>
          <p class="muted">{t("admin.warm.help")}</p>
          <div class="table-wrap">
            <table class="list warm">
              <thead>
                <tr>
                  <th scope="col">{t("admin.warm.contest")}</th>
                  <th scope="col">{t("admin.warm.starts")}</th>
                  <th scope="col" class="num">{t("admin.warm.judges")}</th>
                  <th scope="col">{t("admin.warm.state")}</th>
                </tr>
              </thead>
              <tbody>
                {warm.map((w) => (
                  <tr key={w.contest_id} data-contest={w.contest}>
                    <th scope="row">{w.contest}</th>
                    <td class="nowrap">{dateTime(w.starts_at, lang)}</td>
                    <td class="num">{t("admin.warm.count", { warm: w.warm, judges: w.judges })}</td>
                    <td>{w.warming ? t("admin.warm.warming") : t("admin.warm.waiting")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      )}
    </>
  );
}
