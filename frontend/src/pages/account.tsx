// The logged-in user's account page: who they are, and a form to change
// the password (POST /api/me/password). A successful change starts a new
// session (new cookie, new CSRF token) and logs out every other one, so the
// answer's token replaces the stored one at once: the old token is dead.

import { useRef, useState } from "preact/hooks";
import { api, ApiError, type User } from "../api";
import { roleLabel, t } from "../i18n";
import { live, session, setSession, useStore } from "../state";
import { ErrorBox, Field, fieldError, formError, Loading, Notice, useFocusHeading, useTitle, waitTime } from "../ui";

const FIELDS = ["current_password", "new_password"];

export function AccountPage() {
  useTitle(t("account.title"));
  const h = useFocusHeading();
  const s = useStore(session);
  if (!s.loaded) return <Loading />;
  if (!s.user) {
    return (
      <div class="page narrow">
        <h1 ref={h} tabIndex={-1}>
          {t("account.title")}
        </h1>
        <Notice kind="info">
          {t("account.loginFirst")} <a href={`/login?next=${encodeURIComponent("/account")}`}>{t("nav.login")}</a>
        </Notice>
      </div>
    );
  }
  const u = s.user;
  return (
    <div class="page narrow account">
      <h1 ref={h} tabIndex={-1}>
        {t("account.title")}
      </h1>
      <dl class="summary">
        <div>
          <dt>{t("login.username")}</dt>
          <dd>{u.username}</dd>
        </div>
        {u.display_name && (
          <div>
            <dt>{t("register.displayName")}</dt>
            <dd>{u.display_name}</dd>
          </div>
        )}
        <div>
          <dt>{t("account.role")}</dt>
          <dd>{roleLabel(u.role)}</dd>
        </div>
      </dl>
      <PasswordForm user={u} />
    </div>
  );
}

function PasswordForm({ user }: { user: User }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  // Set once a submit found the two new passwords different; from then on
  // the mismatch is checked as the user types, so the message goes away as
  // soon as they match.
  const [checkMatch, setCheckMatch] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const focus = (id: string) => formRef.current?.querySelector<HTMLInputElement>(`#${id}`)?.focus();
  const limited = error instanceof ApiError && error.status === 429 ? error : null;
  const fe = (k: string) => (limited ? undefined : fieldError(error, k));
  const mismatch = checkMatch && confirm !== next ? t("account.mismatch") : undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setDone(false);
    if (next !== confirm) {
      setCheckMatch(true);
      setError(null);
      focus("confirm_password");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api.changePassword(current, next);
      // The old session (and its CSRF token) is gone: keep the new ones.
      setSession(r.user ?? user, r.csrf_token);
      // The live connection was opened with the old session cookie.
      live().restart();
      setCurrent("");
      setNext("");
      setConfirm("");
      setCheckMatch(false);
      setDone(true);
    } catch (err) {
      setError(err);
      if (err instanceof ApiError && err.status !== 429 && err.field && FIELDS.includes(err.field)) focus(err.field);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="pw-h">
      <h2 id="pw-h">{t("account.changePassword")}</h2>
      <form class="form" ref={formRef} onSubmit={submit} data-testid="password-form">
        {/* For password managers: which account this new password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={user.username} readOnly hidden aria-label={t("login.username")} />
        <Field
          id="current_password"
          label={t("account.currentPassword")}
          type="password"
          autoComplete="current-password"
          required
          value={current}
          error={fe("current_password")}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <Field
          id="new_password"
          label={t("account.newPassword")}
          type="password"
          autoComplete="new-password"
          required
          hint={t("account.newPasswordHint")}
          value={next}
          error={fe("new_password")}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <Field
          id="confirm_password"
          label={t("account.confirmPassword")}
          type="password"
          autoComplete="new-password"
          required
          value={confirm}
          error={mismatch}
          onInput={(e) => setConfirm(e.currentTarget.value)}
        />
        {limited ? (
          <div class="alert alert-error" role="alert" data-testid="rate-limited">
            {limited.retryAfter ? t("account.rateLimited", { time: waitTime(limited.retryAfter) }) : t("account.rateLimitedLater")}
          </div>
        ) : (
          <ErrorBox error={formError(error, FIELDS)} />
        )}
        {done && <Notice kind="ok">{t("account.changed")}</Notice>}
        <div>
          <button type="submit" class="btn btn-primary" disabled={busy} aria-busy={busy ? "true" : undefined}>
            {t("account.submit")}
          </button>
        </div>
      </form>
    </section>
  );
}
