// Admin pages (admin and setter roles), one module per area: problems and
// their test data, ICPC problem package import, contests and their
// participants, users (the account list for admins, CSV import), judge
// tokens with their live load, rejudge, settings. Plain forms on the API
// (./form); a field error from the server is shown next to its field.
//
// The app loads this folder with a dynamic import() (app.tsx, lazyPage):
// a student's first load does not carry it.

import { t, type Key } from "../../i18n";
import { isStaff, session, useStore } from "../../state";
import { Loading, Notice, useFocusHeading, useTitle } from "../../ui";
import { ContestAdmin } from "./contests";
import { JudgesAdmin } from "./judges";
import { ProblemAdmin } from "./problems";
import { RejudgeAdmin } from "./rejudge";
import { RegistrationSettingsAdmin } from "./settings";
import { UsersAdmin } from "./users";

export { contestBody, contestForm, parseContestProblems } from "./contests";
export { FEEDBACK_POLICIES } from "./form";
export { loadJudges } from "./judges";
export { USER_SEARCH_DEBOUNCE_MS } from "./users";

const SECTIONS: { id: string; key: Key }[] = [
  { id: "problems", key: "admin.problems" },
  { id: "contests", key: "admin.contests" },
  { id: "users", key: "admin.users" },
  { id: "judges", key: "admin.judges" },
  { id: "rejudge", key: "admin.rejudge" },
  { id: "settings", key: "admin.settings" },
];

export function AdminPage({ section }: { section?: string }) {
  useTitle(t("admin.title"));
  const h = useFocusHeading();
  const s = useStore(session);
  const current = SECTIONS.some((x) => x.id === section) ? section! : "problems";
  if (!s.loaded) return <Loading />;
  if (!isStaff(s.user)) {
    return (
      <div class="page">
        <h1>{t("admin.title")}</h1>
        <Notice kind="error">{t("admin.denied")}</Notice>
      </div>
    );
  }
  return (
    <div class="page admin">
      <h1 ref={h} tabIndex={-1}>
        {t("admin.title")}
      </h1>
      <nav class="tabs" aria-label={t("admin.title")}>
        {SECTIONS.map((x) => (
          <a key={x.id} href={`/admin/${x.id}`} aria-current={x.id === current ? "page" : undefined} class={x.id === current ? "active" : ""}>
            {t(x.key)}
          </a>
        ))}
      </nav>
      {current === "problems" && <ProblemAdmin />}
      {current === "contests" && <ContestAdmin />}
      {current === "users" && <UsersAdmin />}
      {current === "judges" && <JudgesAdmin />}
      {current === "rejudge" && <RejudgeAdmin />}
      {current === "settings" && <RegistrationSettingsAdmin />}
    </div>
  );
}
