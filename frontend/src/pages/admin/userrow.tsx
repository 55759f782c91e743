// Admin: one row of the accounts list — role, enable/disable, edit name
// and e-mail, reset password — with the server's word on a field next to
// its control.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type AdminUser, type UserPatch } from "../../api";
import { roleLabel, t } from "../../i18n";
import { dateTime } from "../../format";
import { ErrorBox, errorText, Field, fieldError, formError } from "../../ui";

export const ROLES = ["admin", "setter", "student"] as const;

const COLS = 7;

/** UserRow: one account and what an admin can do to it. The server's word
 *  on a field (say, "you cannot change your own role") is shown next to the
 *  control it is about. */
export function UserRow({
  u,
  self,
  lang,
  onUpdated,
  onBusy,
  onReset,
}: {
  u: AdminUser;
  self: boolean;
  lang: string;
  onUpdated: (u: AdminUser) => void;
  onBusy: () => void;
  onReset: (r: { username: string; password: string }) => void;
}) {
  const [busy, setBusy] = useState<"role" | "disabled" | "reset" | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The role chosen while its PUT is on the way; on an error the select
  // goes back to the stored role.
  const [pendingRole, setPendingRole] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const name = u.username;
  const roleErr = fieldError(error, "role");
  const disabledErr = fieldError(error, "disabled");
  const rowErr = formError(error, ["role", "disabled"]);

  const put = async (what: "role" | "disabled", patch: UserPatch) => {
    setBusy(what);
    setError(null);
    onBusy();
    try {
      onUpdated(await api.updateUser(name, patch));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      setPendingRole(null);
    }
  };
  // Controls stay enabled while a change is on the way (disabling the
  // focused one would drop keyboard focus); a second action waits instead.
  const changeRole = (sel: HTMLSelectElement) => {
    if (busy) {
      sel.value = pendingRole ?? u.role;
      return;
    }
    if (sel.value === u.role) return;
    setPendingRole(sel.value);
    // The select offers ROLES (and the stored role).
    void put("role", { role: sel.value as AdminUser["role"] });
  };
  const toggle = () => {
    if (busy) return;
    if (!u.disabled && !confirm(t("admin.users.confirmDisable", { name }))) return;
    void put("disabled", { disabled: !u.disabled });
  };
  const resetPassword = async () => {
    if (busy) return;
    if (!confirm(t("admin.users.confirmReset", { name }))) return;
    setBusy("reset");
    setError(null);
    onBusy();
    try {
      onReset(await api.resetPassword(name));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <tr data-username={name} class={u.disabled ? "user-disabled" : undefined}>
        <th scope="row" class="nowrap">
          {name}
          {self && <span class="tag">{t("admin.users.you")}</span>}
        </th>
        <td class="u-name">{u.display_name}</td>
        <td class="u-email">{u.email}</td>
        <td>
          <select
            id={`u-role-${u.id}`}
            value={pendingRole ?? u.role}
            aria-busy={busy === "role" ? "true" : undefined}
            aria-label={t("admin.users.roleOf", { name })}
            aria-invalid={roleErr ? "true" : undefined}
            aria-describedby={roleErr ? `u-role-${u.id}-err` : undefined}
            onChange={(e) => changeRole(e.currentTarget)}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
            {!(ROLES as readonly string[]).includes(u.role) && <option value={u.role}>{u.role}</option>}
          </select>
          {roleErr && (
            <small id={`u-role-${u.id}-err`} class="field-error cell-error" role="alert">
              {roleErr}
            </small>
          )}
        </td>
        <td>
          <div class="u-status">
            <span class={u.disabled ? "tag tag-bad" : "tag tag-active"}>{u.disabled ? t("admin.users.disabled") : t("admin.users.active")}</span>
            <button
              type="button"
              id={`u-toggle-${u.id}`}
              class={u.disabled ? "btn btn-small" : "btn btn-small btn-danger"}
              aria-busy={busy === "disabled" ? "true" : undefined}
              aria-label={t(u.disabled ? "admin.users.enableName" : "admin.users.disableName", { name })}
              aria-invalid={disabledErr ? "true" : undefined}
              aria-describedby={disabledErr ? `u-toggle-${u.id}-err` : undefined}
              onClick={toggle}
            >
              {u.disabled ? t("admin.users.enable") : t("admin.users.disable")}
            </button>
          </div>
          {disabledErr && (
            <small id={`u-toggle-${u.id}-err`} class="field-error cell-error" role="alert">
              {disabledErr}
            </small>
          )}
        </td>
        <td class="nowrap">{dateTime(u.created_at, lang)}</td>
        <td>
          <div class="row-actions">
            <button
              type="button"
              id={`u-edit-${u.id}`}
              class="btn btn-small"
              aria-expanded={editing}
              aria-controls={editing ? `u-editrow-${u.id}` : undefined}
              aria-label={t("admin.users.editName", { name })}
              onClick={() => setEditing(!editing)}
            >
              {t("admin.users.edit")}
            </button>
            {self ? (
              // The server refuses to reset one's own password (a stolen
              // session must not pick a password without the current one).
              <a id={`u-reset-${u.id}`} class="btn btn-small" href="/account">
                {t("account.changePassword")}
              </a>
            ) : (
              <button
                type="button"
                id={`u-reset-${u.id}`}
                class="btn btn-small"
                aria-busy={busy === "reset" ? "true" : undefined}
                aria-label={t("admin.users.resetName", { name })}
                onClick={resetPassword}
              >
                {t("admin.users.reset")}
              </button>
            )}
          </div>
          {rowErr && (
            <small class="field-error cell-error" role="alert">
              {errorText(rowErr)}
            </small>
          )}
        </td>
      </tr>
      {editing && (
        <tr id={`u-editrow-${u.id}`} class="user-edit">
          <td colSpan={COLS}>
            <UserEditForm
              u={u}
              onCancel={() => {
                setEditing(false);
                document.getElementById(`u-edit-${u.id}`)?.focus();
              }}
              onSaved={(nu) => {
                setEditing(false);
                if (nu) onUpdated(nu);
                document.getElementById(`u-edit-${u.id}`)?.focus();
              }}
            />
          </td>
        </tr>
      )}
    </>
  );
}

const EDIT_FIELDS = ["display_name", "email"];

/** UserEditForm edits a display name and e-mail; it sends only what changed. */
function UserEditForm({ u, onCancel, onSaved }: { u: AdminUser; onCancel: () => void; onSaved: (u: AdminUser | null) => void }) {
  const [displayName, setDisplayName] = useState(u.display_name);
  const [email, setEmail] = useState(u.email);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const first = useRef<HTMLDivElement>(null);
  useEffect(() => {
    first.current?.querySelector("input")?.focus();
  }, []);
  const fe = (k: string) => fieldError(error, k);
  const id = (k: string) => `u-${u.id}-${k}`;
  return (
    <form
      class="form user-edit-form"
      aria-label={t("admin.users.editName", { name: u.username })}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        const patch: UserPatch = {};
        if (displayName !== u.display_name) patch.display_name = displayName;
        if (email.trim() !== u.email) patch.email = email.trim();
        if (Object.keys(patch).length === 0) {
          onSaved(null);
          return;
        }
        setBusy(true);
        setError(null);
        let saved: AdminUser;
        try {
          saved = await api.updateUser(u.username, patch);
        } catch (err) {
          setError(err);
          setBusy(false);
          if (err instanceof ApiError && err.field && EDIT_FIELDS.includes(err.field)) document.getElementById(id(err.field))?.focus();
          return;
        }
        onSaved(saved); // closes this form
      }}
    >
      <div class="grid-2" ref={first}>
        <Field id={id("display_name")} label={t("register.displayName")} autoComplete="off" value={displayName} error={fe("display_name")} onInput={(e) => setDisplayName(e.currentTarget.value)} />
        <Field id={id("email")} label={t("admin.users.col.email")} type="email" autoComplete="off" value={email} error={fe("email")} onInput={(e) => setEmail(e.currentTarget.value)} />
      </div>
      <ErrorBox error={formError(error, EDIT_FIELDS)} />
      <div class="toolbar">
        <button type="submit" class="btn btn-primary btn-small" disabled={busy} aria-busy={busy ? "true" : undefined}>
          {t("common.save")}
        </button>
        <button type="button" class="btn btn-small btn-ghost" onClick={onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
