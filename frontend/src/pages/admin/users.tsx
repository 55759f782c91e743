// Admin: users — for admins the accounts list (search by username, name or
// e-mail, role and disabled filters, "Load more" pages, per-row actions in
// ./userrow), and the CSV import (./usersimport) for every staff member.

import { useEffect, useRef, useState } from "preact/hooks";
import { api, type AdminUser, type User } from "../../api";
import { getLang, roleLabel, t } from "../../i18n";
import { session, useStore } from "../../state";
import { ErrorBox } from "../../ui";
import { Section } from "./form";
import { ROLES, UserRow } from "./userrow";
import { OncePassword, UsersImport } from "./usersimport";

/** How long the search box waits after the last key before it asks. */
export const USER_SEARCH_DEBOUNCE_MS = 300;


interface UserQuery {
  q: string;
  role: string;
  disabledOnly: boolean;
}

/** The users section: admins get the account list; the CSV import is there
 *  for every staff member, as before. */
export function UsersAdmin() {
  const me = useStore(session).user;
  // Bumped after an import, so the list shows the new accounts.
  const [imports, setImports] = useState(0);
  return (
    <>
      {me?.role === "admin" && <UsersList me={me} refresh={imports} />}
      <UsersImport onImported={() => setImports((n) => n + 1)} />
    </>
  );
}

/** UsersList: search, filters, the table with per-row actions, "Load more"
 *  on next_cursor. Rows already shown stay while a new query loads, so the
 *  page does not jump to "Loading…" and back on every key. */
function UsersList({ me, refresh }: { me: User; refresh: number }) {
  const lang = getLang();
  const [qText, setQText] = useState("");
  const [query, setQuery] = useState<UserQuery>({ q: "", role: "", disabledOnly: false });
  const [rows, setRows] = useState<AdminUser[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [reset, setReset] = useState<{ id: number; username: string; password: string } | null>(null);
  const [updated, setUpdated] = useState<string | null>(null);
  const inflight = useRef<AbortController | null>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);

  const load = (q: UserQuery, cursor: string | null) => {
    inflight.current?.abort();
    const ac = new AbortController();
    inflight.current = ac;
    setLoading(true);
    setError(null);
    const hadFocus = cursor !== null && document.activeElement === moreRef.current;
    api.users({ q: q.q, role: (q.role || undefined) as AdminUser["role"] | undefined, disabled: q.disabledOnly ? true : undefined, cursor }, ac.signal).then(
      (page) => {
        if (ac.signal.aborted) return;
        setRows((old) => {
          if (!cursor || !old) return page.items;
          const seen = new Set(old.map((u) => u.id));
          return [...old, ...page.items.filter((u) => !seen.has(u.id))];
        });
        setNext(page.next_cursor ?? null);
        setLoading(false);
        // The last page: "Load more" goes away; keep keyboard focus nearby.
        if (hadFocus && !page.next_cursor) setTimeout(() => statusRef.current?.focus(), 0);
      },
      (e) => {
        if (ac.signal.aborted) return;
        setError(e);
        setLoading(false);
      },
    );
  };

  useEffect(() => {
    load(query, null);
    return () => inflight.current?.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query, refresh]);

  // The search box asks once typing pauses; Enter asks at once.
  useEffect(() => {
    const q = qText.trim();
    if (q === query.q) return;
    const h = setTimeout(() => setQuery((x) => (x.q === q ? x : { ...x, q })), USER_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(h);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [qText]);

  const replace = (u: AdminUser) => {
    setRows((old) => old?.map((x) => (x.id === u.id ? u : x)) ?? old);
    setUpdated(u.username);
  };

  const doneWithPassword = () => {
    const id = reset?.id;
    setReset(null);
    if (id !== undefined) document.getElementById(`u-reset-${id}`)?.focus();
  };

  const count = rows?.length ?? 0;
  return (
    <Section title={t("admin.users.list")}>
      <form
        class="toolbar user-filters"
        role="search"
        aria-label={t("admin.users.filters")}
        onSubmit={(e) => {
          e.preventDefault();
          const q = qText.trim();
          // Enter on an unchanged query asks again (e.g. after an error).
          if (q === query.q) load(query, null);
          else setQuery({ ...query, q });
        }}
      >
        <label for="u-q">{t("admin.users.search")}</label>
        <input id="u-q" type="search" value={qText} onInput={(e) => setQText(e.currentTarget.value)} aria-describedby="u-q-hint" autoComplete="off" spellcheck={false} />
        <label for="u-role">{t("account.role")}</label>
        <select id="u-role" value={query.role} onChange={(e) => setQuery({ ...query, q: qText.trim(), role: e.currentTarget.value })}>
          <option value="">{t("admin.users.anyRole")}</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {roleLabel(r)}
            </option>
          ))}
        </select>
        <label class="check-inline">
          <input id="u-disabled" type="checkbox" checked={query.disabledOnly} onChange={(e) => setQuery({ ...query, q: qText.trim(), disabledOnly: e.currentTarget.checked })} />{" "}
          {t("admin.users.disabledOnly")}
        </label>
        <button type="submit" class="btn">
          {t("admin.users.searchGo")}
        </button>
      </form>
      <p id="u-q-hint" class="muted hint">
        {t("admin.users.searchHint")}
      </p>
      <ErrorBox error={error} onRetry={() => load(query, null)} />
      {reset && <OncePassword key={`${reset.id}:${reset.password}`} username={reset.username} password={reset.password} onDone={doneWithPassword} />}
      {/* One line that always takes its place: what is shown, what just
          changed. Messages come and go here without moving the table. */}
      <p class="muted status-line" role="status" aria-live="polite" tabIndex={-1} ref={statusRef} data-testid="users-status">
        {updated && <span class="ok-text">{t("admin.users.updated", { name: updated })} </span>}
        {loading ? t("common.loading") : rows === null ? "" : next ? t("admin.users.shownMore", { n: count }) : t("admin.users.shown", { n: count })}
      </p>
      {rows && rows.length === 0 && !loading && <p class="muted">{t("admin.users.none")}</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap" aria-busy={loading ? "true" : undefined}>
          <table class="list users-table">
            <caption class="sr-only">{t("admin.users.list")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("login.username")}</th>
                <th scope="col">{t("register.displayName")}</th>
                <th scope="col">{t("admin.users.col.email")}</th>
                <th scope="col">{t("account.role")}</th>
                <th scope="col">{t("admin.users.col.status")}</th>
                <th scope="col">{t("admin.users.col.created")}</th>
                <th scope="col">{t("admin.users.col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <UserRow
                  key={u.id}
                  u={u}
                  self={u.id === me.id}
                  lang={lang}
                  onUpdated={replace}
                  onBusy={() => setUpdated(null)}
                  onReset={(r) => setReset({ id: u.id, username: r.username || u.username, password: r.password })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div class="actions">
          {/* Not disabled while loading: that would drop keyboard focus. */}
          <button type="button" class="btn" ref={moreRef} aria-disabled={loading ? "true" : undefined} aria-busy={loading ? "true" : undefined} onClick={() => !loading && load(query, next)}>
            {t("common.more")}
          </button>
        </div>
      )}
    </Section>
  );
}
