// Admin: a contest's participants — the list with registration times,
// add by pasted usernames (a 422 naming unknown users adds nothing), remove.

import { useState } from "preact/hooks";
import { api, unknownUsernames } from "../../api";
import { getLang, t } from "../../i18n";
import { dateTime } from "../../format";
import { parseUsernames } from "../../registration";
import { ErrorBox, Field, fieldError, formError, Loading, Notice, useAsync } from "../../ui";
import { Section, useSubmit } from "./form";

/** ParticipantsEditor lists a contest's participants and adds or removes
 *  them by username (the list of a by-list contest; in an open contest,
 *  who registered). */
export function ParticipantsEditor({ slug, registration }: { slug: string; registration: string }) {
  const list = useAsync(() => api.participants(slug), [slug]);
  const [text, setText] = useState("");
  const [localBad, setLocalBad] = useState<string[]>([]);
  const add = useSubmit<{ added: number; already: number }>();
  const [removeError, setRemoveError] = useState<unknown>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const lang = getLang();
  const unknown = unknownUsernames(add.error);
  // A name that cannot be a username (checked here), or the server's word
  // on the field when it is not the "unknown users" answer.
  const addErr = localBad.length
    ? t("admin.participants.invalid", { names: localBad.join(", ") })
    : unknown.length
      ? undefined
      : fieldError(add.error, "usernames");

  const doAdd = (e: Event) => {
    e.preventDefault();
    const { usernames, invalid } = parseUsernames(text);
    setLocalBad(invalid);
    setRemoved(null);
    if (invalid.length || usernames.length === 0) return;
    add.run(async () => {
      const r = await api.addParticipants(slug, usernames);
      setText("");
      list.reload();
      return r;
    });
  };
  const remove = async (username: string) => {
    setRemoveError(null);
    setRemoved(null);
    try {
      await api.removeParticipant(slug, username);
      setRemoved(username);
      list.setData((d) => (d ? { ...d, items: d.items.filter((p) => p.username !== username) } : d));
      // The row (and its focused button) is gone: keep keyboard users in the editor.
      document.getElementById("pt-add")?.focus();
    } catch (e) {
      setRemoveError(e);
    }
  };
  const items = list.data?.items ?? [];
  return (
    <Section title={t("admin.participants")}>
      <p class="muted">{registration === "list" ? t("admin.participants.listHint") : t("admin.participants.openHint")}</p>
      <form class="form" onSubmit={doAdd}>
        <Field id="pt-add" label={t("admin.participants.add")} error={addErr} hint={t("admin.participants.addHint")}>
          <textarea
            id="pt-add"
            rows={3}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby={`pt-add-hint${addErr ? " pt-add-err" : ""}`}
            aria-invalid={addErr || unknown.length ? "true" : undefined}
          />
        </Field>
        {unknown.length > 0 && (
          <div class="alert alert-error" role="alert" data-testid="pt-unknown">
            {t("admin.participants.unknown", { names: unknown.join(", ") })}
          </div>
        )}
        <ErrorBox error={unknown.length ? null : formError(add.error, ["usernames"])} />
        {add.result && (
          <Notice kind="ok">
            {t("admin.participants.added", { added: add.result.added, already: add.result.already })}
          </Notice>
        )}
        <button type="submit" class="btn btn-primary" disabled={add.busy || !text.trim()}>
          {t("admin.participants.addButton")}
        </button>
      </form>
      {removed && <Notice kind="ok">{t("admin.participants.removed", { name: removed })}</Notice>}
      <ErrorBox error={removeError} />
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.data && <Loading />}
      {list.data && items.length === 0 && <p class="muted">{t("admin.participants.none")}</p>}
      {items.length > 0 && (
        <div class="table-wrap">
          <table class="list participants">
            <caption class="sr-only">{t("admin.participants")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("login.username")}</th>
                <th scope="col" class="hide-narrow">{t("admin.participants.since")}</th>
                <th scope="col">
                  <span class="sr-only">{t("admin.participants.remove")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((p) => (
                <tr key={p.username} data-username={p.username}>
                  <th scope="row">{p.username}</th>
                  <td class="hide-narrow nowrap">{dateTime(p.registered_at, lang)}</td>
                  <td>
                    <button type="button" class="btn btn-small btn-danger" aria-label={t("admin.participants.removeName", { name: p.username })} onClick={() => remove(p.username)}>
                      {t("admin.participants.remove")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">{t("admin.participants.count", { n: items.length })}</p>
        </div>
      )}
    </Section>
  );
}
