import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type RegistrationSettings } from "../api";
import { RetryNotice, useAutoRetry } from "../components/retrying";
import { t } from "../i18n";
import { navigate } from "../router";
import { live, setSession } from "../state";
import { ErrorBox, Field, fieldError, formError, Loading, Notice, useFocusHeading, useTitle } from "../ui";

function nextPath(query: URLSearchParams): string {
  const n = query.get("next") ?? "/";
  // Only local paths: never an open redirect.
  return n.startsWith("/") && !n.startsWith("//") ? n : "/";
}

export function LoginPage({ query }: { query: URLSearchParams }) {
  useTitle(t("login.title"));
  const h = useFocusHeading();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  /** How many tries the last login made before giving up (too busy). */
  const [gaveUp, setGaveUp] = useState(0);
  // At a contest start the whole room logs in at once: a 429/503 (or no
  // answer, 502/504) is retried after Retry-After with a countdown; the
  // form keeps what was typed. A 401 is never retried.
  const retry = useAutoRetry();
  const login = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    setGaveUp(0);
    const u = username;
    const p = password;
    const r = await retry.run(() => api.login(u, p));
    setBusy(false);
    if (r.ok) {
      setSession(r.value.user, r.value.csrf_token);
      live().restart();
      navigate(nextPath(query), true);
    } else if (r.cancelled) {
      // The Cancel button is gone: keep the focus in the form.
      document.getElementById("password")?.focus();
    } else if (r.exhausted) {
      setGaveUp(r.tries);
    } else {
      const err = r.error;
      setError(err instanceof ApiError && err.status === 401 ? new ApiError(401, err.code, t("login.failed")) : err);
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void login();
  };
  const fields = ["username", "password"];
  return (
    <div class="page narrow">
      <h1 ref={h} tabIndex={-1}>
        {t("login.title")}
      </h1>
      <form class="form" onSubmit={submit}>
        <Field id="username" label={t("login.username")} autoComplete="username" required value={username} error={fieldError(error, "username")} onInput={(e) => setUsername(e.currentTarget.value)} />
        <Field id="password" label={t("login.password")} type="password" autoComplete="current-password" required value={password} error={fieldError(error, "password")} onInput={(e) => setPassword(e.currentTarget.value)} />
        {error instanceof ApiError && error.status === 401 ? (
          <div class="alert alert-error" role="alert">
            {t("login.failed")}
          </div>
        ) : (
          <ErrorBox error={formError(error, fields)} />
        )}
        <RetryNotice retry={retry} id="login-retry" texts={{ waiting: "login.busy.waiting", trying: "login.busy.trying" }} />
        {gaveUp > 0 && (
          <div class="alert alert-error" role="alert" data-testid="login-gave-up">
            <span>{t("login.busy.gaveUp", { tries: gaveUp })}</span>
            <button type="button" class="btn btn-small" onClick={() => void login()}>
              {t("retry.tryAgain")}
            </button>
          </div>
        )}
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {t("login.submit")}
        </button>
      </form>
      <p>
        {t("login.noAccount")} <a href="/register">{t("nav.register")}</a>
      </p>
    </div>
  );
}

export function RegisterPage({ query }: { query: URLSearchParams }) {
  useTitle(t("register.title"));
  const h = useFocusHeading();
  const [f, setF] = useState({ username: "", display_name: "", email: "", password: "" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (k: keyof typeof f) => (e: { currentTarget: unknown }) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  // The registration mode: closed shows no form, domains says which.
  const [mode, setMode] = useState<RegistrationSettings | null>(null);
  useEffect(() => {
    api.registrationSettings().then(setMode, () => setMode({ mode: "open", domains: [] })); // the POST says the rest
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // The answer is {user}: registering does not log in (docs/openapi.json).
      await api.register({ ...f, email: f.email || undefined, display_name: f.display_name || undefined });
      const s = await api.login(f.username, f.password);
      setSession(s.user, s.csrf_token);
      live().restart();
      navigate(nextPath(query), true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="page narrow">
      <h1 ref={h} tabIndex={-1}>
        {t("register.title")}
      </h1>
      {!mode && <Loading />}
      {mode?.mode === "closed" && (
        <Notice kind="info">
          <span data-testid="registration-closed">{t("register.closed")}</span>
        </Notice>
      )}
      {mode?.mode === "domains" && (
        <Notice kind="info">
          <span data-testid="registration-domains">{t("register.domains", { domains: mode.domains.join(", ") })}</span>
        </Notice>
      )}
      {mode && mode.mode !== "closed" && (
      <form class="form" onSubmit={submit}>
        <Field id="username" label={t("login.username")} autoComplete="username" required value={f.username} error={fieldError(error, "username")} onInput={set("username")} />
        <Field id="display_name" label={t("register.displayName")} autoComplete="nickname" value={f.display_name} error={fieldError(error, "display_name")} onInput={set("display_name")} />
        <Field
          id="email"
          label={mode.mode === "domains" ? t("register.emailRequired", { domains: mode.domains.join(", ") }) : t("register.email")}
          type="email"
          autoComplete="email"
          required={mode.mode === "domains"}
          value={f.email}
          error={fieldError(error, "email")}
          onInput={set("email")}
        />
        <Field id="password" label={t("login.password")} type="password" autoComplete="new-password" required value={f.password} error={fieldError(error, "password")} onInput={set("password")} />
        <ErrorBox error={formError(error, ["username", "display_name", "email", "password"])} />
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {t("register.submit")}
        </button>
      </form>
      )}
      <p>
        {t("register.haveAccount")} <a href="/login">{t("nav.login")}</a>
      </p>
    </div>
  );
}
