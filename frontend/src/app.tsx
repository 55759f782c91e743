// The app shell: header, navigation, language switch, the routed page.

import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { getLang, LANGS, onLang, setLang, t, type Lang } from "./i18n";
import { matchPath, navigate, onNavigate, type Route } from "./router";
import { isStaff, live, session, setSession, useStore } from "./state";
import { ProblemsPage } from "./pages/problems";
import { ProblemPage } from "./pages/problem";
import { SubmissionPage } from "./pages/submission";
import { SubmissionsPage } from "./pages/submissions";
import { StatusPage } from "./pages/status";
import { ContestPage, ContestsPage } from "./pages/contests";
import { LoginPage, RegisterPage } from "./pages/auth";
import { AccountPage } from "./pages/account";
import { lazyPage } from "./lazy";

// Staff-only pages: chunks of their own, fetched when first shown.
const AdminPage = lazyPage(() => import("./pages/admin").then((m) => m.AdminPage));
const SimilarityPage = lazyPage(() => import("./pages/similarity").then((m) => m.SimilarityPage));
const BalloonsPage = lazyPage(() => import("./pages/balloons").then((m) => m.BalloonsPage));
const TeamsPage = lazyPage(() => import("./pages/teams").then((m) => m.TeamsPage));
const AwardsPage = lazyPage(() => import("./pages/awards").then((m) => m.AwardsPage));

export const ROUTES: readonly Route[] = [
  { name: "problems", pattern: "/" },
  { name: "problems", pattern: "/problems" },
  { name: "problem", pattern: "/problems/:slug" },
  { name: "submissions", pattern: "/submissions" },
  { name: "status", pattern: "/status" },
  { name: "submission", pattern: "/submissions/:id" },
  { name: "contests", pattern: "/contests" },
  { name: "contest", pattern: "/contests/:slug" },
  { name: "balloons", pattern: "/contests/:slug/balloons" },
  { name: "teams", pattern: "/contests/:slug/teams" },
  { name: "awards", pattern: "/contests/:slug/awards" },
  { name: "contestProblem", pattern: "/contests/:contest/problems/:slug" },
  { name: "login", pattern: "/login" },
  { name: "register", pattern: "/register" },
  { name: "account", pattern: "/account" },
  { name: "admin", pattern: "/admin" },
  { name: "admin", pattern: "/admin/:section" },
  { name: "similarity", pattern: "/similarity" },
];

function useLocation(): { path: string; search: string } {
  const [loc, setLoc] = useState({ path: location.pathname, search: location.search });
  useEffect(() => onNavigate(() => setLoc({ path: location.pathname, search: location.search })), []);
  return loc;
}

function Page({ path, search }: { path: string; search: string }) {
  const m = matchPath(ROUTES, path, search);
  if (!m) return <div class="page"><h1>{t("common.notFound")}</h1></div>;
  const p = m.params;
  switch (m.name) {
    case "problems":
      return <ProblemsPage />;
    case "problem":
      return <ProblemPage key={p.slug} slug={p.slug!} />;
    case "contestProblem":
      return <ProblemPage key={`${p.contest}/${p.slug}`} slug={p.slug!} contest={p.contest} />;
    case "submissions":
      return <SubmissionsPage query={m.query} />;
    case "status":
      return <StatusPage query={m.query} />;
    case "submission":
      return <SubmissionPage key={p.id} id={p.id!} />;
    case "contests":
      return <ContestsPage />;
    case "contest":
      return <ContestPage key={p.slug} slug={p.slug!} query={m.query} />;
    case "login":
      return <LoginPage query={m.query} />;
    case "register":
      return <RegisterPage query={m.query} />;
    case "account":
      return <AccountPage />;
    case "admin":
      return <AdminPage section={p.section} />;
    case "balloons":
      return <BalloonsPage key={p.slug} slug={p.slug!} />;
    case "teams":
      return <TeamsPage key={p.slug} slug={p.slug!} />;
    case "awards":
      return <AwardsPage key={p.slug} slug={p.slug!} />;
    case "similarity":
      return <SimilarityPage query={m.query} />;
  }
  return null;
}

function LangSwitch() {
  return (
    <label class="lang-switch">
      <span class="sr-only">{t("nav.language")}</span>
      <select value={getLang()} onChange={(e) => setLang(e.currentTarget.value as Lang)} aria-label={t("nav.language")}>
        {LANGS.map((l) => (
          <option key={l.id} value={l.id} lang={l.htmlLang}>
            {l.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function Header({ path }: { path: string }) {
  const s = useStore(session);
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  const logout = async () => {
    try {
      await api.logout();
    } catch {
      /* the session may already be gone */
    }
    setSession(null, "");
    live().close();
    navigate("/");
  };
  const link = (href: string, label: string) => {
    const current = href === "/" ? path === "/" || path.startsWith("/problems") : path.startsWith(href);
    return (
      <li>
        <a href={href} aria-current={current ? "page" : undefined}>
          {label}
        </a>
      </li>
    );
  };
  return (
    <header class="site-header">
      <a class="skip" href="#main">
        {t("app.skip")}
      </a>
      <a class="brand" href="/">
        {t("app.name")}
      </a>
      <button type="button" class="menu-btn" aria-expanded={open} aria-controls="main-nav" onClick={() => setOpen(!open)}>
        <span aria-hidden="true">☰</span>
        <span class="sr-only">{t("nav.main")}</span>
      </button>
      <nav id="main-nav" class={open ? "open" : ""} aria-label={t("nav.main")}>
        <ul>
          {link("/", t("nav.problems"))}
          {link("/contests", t("nav.contests"))}
          {s.user && link("/submissions", t("nav.submissions"))}
          {link("/status", t("nav.status"))}
          {isStaff(s.user) && link("/admin", t("nav.admin"))}
          {isStaff(s.user) && link("/similarity", t("nav.similarity"))}
        </ul>
        <div class="nav-right">
          <LangSwitch />
          {s.loaded && !s.user && (
            <>
              <a class="btn btn-small" href={`/login?next=${encodeURIComponent(path)}`}>
                {t("nav.login")}
              </a>
              <a class="btn btn-small btn-ghost" href="/register">
                {t("nav.register")}
              </a>
            </>
          )}
          {s.user && (
            <>
              <a class="whoami" href="/account" title={t("nav.signedInAs", { name: s.user.username })} aria-current={path === "/account" ? "page" : undefined}>
                {s.user.display_name || s.user.username}
                <span class="sr-only"> ({t("nav.account")})</span>
              </a>
              <button type="button" class="btn btn-small btn-ghost" onClick={logout}>
                {t("nav.logout")}
              </button>
            </>
          )}
        </div>
      </nav>
    </header>
  );
}

export function App() {
  const loc = useLocation();
  const [, setLangTick] = useState(0);
  useEffect(() => onLang(() => setLangTick((n) => n + 1)), []);
  return (
    <>
      <Header path={loc.path} />
      <main id="main" tabIndex={-1}>
        <Page path={loc.path} search={loc.search} />
      </main>
    </>
  );
}
