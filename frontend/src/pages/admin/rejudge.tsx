// Admin: rejudge a submission, a problem or a contest.

import { useState } from "preact/hooks";
import { api } from "../../api";
import { t } from "../../i18n";
import { ErrorBox, Field, fieldError, formError, Notice } from "../../ui";
import { Section, useSubmit } from "./form";
import { RejudgeProgress } from "../../components/rejudgeprogress";

export function RejudgeAdmin() {
  const [what, setWhat] = useState<"submission" | "problem" | "contest">("submission");
  const [value, setValue] = useState("");
  const rj = useSubmit<{ queued: number; job?: string }>();
  return (
    <Section title={t("admin.rejudge")}>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          const v = value.trim();
          rj.run(() => api.rejudge(what === "submission" ? { submission: Number(v) } : { [what]: v }));
        }}
      >
        <fieldset>
          <legend>{t("admin.rejudgeWhat")}</legend>
          {(["submission", "problem", "contest"] as const).map((w) => (
            <label key={w} class="radio">
              <input type="radio" name="rj-what" value={w} checked={what === w} onChange={() => setWhat(w)} />{" "}
              {t(w === "submission" ? "admin.rejudgeSubmission" : w === "problem" ? "admin.rejudgeProblem" : "admin.rejudgeContest")}
            </label>
          ))}
        </fieldset>
        <Field
          id="rj-value"
          label={t(what === "submission" ? "admin.rejudgeSubmission" : what === "problem" ? "admin.rejudgeProblem" : "admin.rejudgeContest")}
          required
          type={what === "submission" ? "number" : "text"}
          min={what === "submission" ? 1 : undefined}
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
          error={fieldError(rj.error, what)}
        />
        <ErrorBox error={formError(rj.error, [what])} />
        {rj.result && <Notice kind="ok">{t("admin.rejudged", { n: rj.result.queued ?? 0 })}</Notice>}
        {rj.result?.job && <RejudgeProgress key={rj.result.job} job={rj.result.job} total={rj.result.queued ?? 0} />}
        <button type="submit" class="btn btn-primary" disabled={rj.busy}>
          {t("admin.rejudgeGo")}
        </button>
      </form>
    </Section>
  );
}
