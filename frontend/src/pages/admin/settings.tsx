// The admin settings section: the self-registration mode (open, closed,
// or open to listed e-mail domains), which every web node applies within
// seconds (docs/admin.md, "Registration").

import { useEffect, useState } from "preact/hooks";
import { api, type RegistrationSettings } from "../../api";
import { t, type Key } from "../../i18n";
import { session, useStore } from "../../state";
import { ErrorBox, Field, fieldError, formError, Loading, Notice } from "../../ui";

const MODES: RegistrationSettings["mode"][] = ["open", "closed", "domains"];

/** parseDomains reads the domains textarea: one per line, or separated by commas or spaces. */
export function parseDomains(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((d) => d.trim())
    .filter(Boolean);
}

/** modeText is the mode as the settings page and the register page say it. */
export function modeText(s: RegistrationSettings): string {
  return s.mode === "domains" ? `${t("settings.registration.domains")}: ${s.domains.join(", ")}` : t(`settings.registration.${s.mode}` as Key);
}

export function RegistrationSettingsAdmin() {
  const me = useStore(session);
  const [current, setCurrent] = useState<RegistrationSettings | null>(null);
  const [mode, setMode] = useState<RegistrationSettings["mode"]>("open");
  const [domains, setDomains] = useState("");
  const [loadError, setLoadError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const show = (s: RegistrationSettings) => {
    setCurrent(s);
    setMode(s.mode);
    setDomains(s.domains.join("\n"));
  };
  useEffect(() => {
    api.registrationSettings().then(show, setLoadError);
  }, []);
  if (me.user?.role !== "admin") return <Notice kind="info">{t("settings.registration.adminsOnly")}</Notice>;
  if (loadError) return <ErrorBox error={loadError} />;
  if (!current) return <Loading />;
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      show(await api.setRegistrationSettings({ mode, domains: parseDomains(domains) }));
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="admin-section" aria-labelledby="reg-settings-h">
      <h2 id="reg-settings-h">{t("settings.registration.title")}</h2>
      <p data-testid="registration-current">{t("settings.registration.current", { mode: modeText(current) })}</p>
      <form class="form" onSubmit={save}>
        <fieldset>
          <legend>{t("settings.registration.mode")}</legend>
          {MODES.map((m) => (
            <label key={m} class="radio">
              <input type="radio" name="reg-mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {t(`settings.registration.${m}` as Key)}
            </label>
          ))}
          {fieldError(error, "mode") && <small class="field-error">{fieldError(error, "mode")}</small>}
        </fieldset>
        <Field id="reg-domains" label={t("settings.registration.domainsField")} error={fieldError(error, "domains")}>
          <textarea id="reg-domains" rows={4} value={domains} onInput={(e) => setDomains(e.currentTarget.value)} placeholder="uni.edu" />
        </Field>
        <p class="muted">{t("settings.registration.hint")}</p>
        <ErrorBox error={formError(error, ["mode", "domains"])} />
        {saved && (
          <Notice kind="ok">
            {t("admin.saved")}
          </Notice>
        )}
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {t("common.save")}
        </button>
      </form>
    </section>
  );
}
