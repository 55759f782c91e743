// The live connection's state, shown only when something is wrong.

import { CLOSE_SESSION_EXPIRED, closeName } from "../live/protocol";
import { t } from "../i18n";
import { live, liveState, useStore } from "../state";

export function LiveStatus() {
  const s = useStore(liveState);
  switch (s.kind) {
    case "waiting":
      return (
        <div class="alert alert-warn live-status" role="status">
          <span>{t("live.reconnecting", { seconds: Math.ceil(s.delayMs / 1000) })}</span>
          <button type="button" class="btn btn-small" onClick={() => live().nudge()}>
            {t("live.reconnectNow")}
          </button>
        </div>
      );
    case "stopped":
      return (
        <div class="alert alert-error live-status" role="alert">
          {s.code === CLOSE_SESSION_EXPIRED ? (
            <span>
              {t("live.sessionExpired")} <a href="/login">{t("nav.login")}</a>
            </span>
          ) : (
            <span>{t("live.stopped", { reason: s.reason || closeName(s.code) })}</span>
          )}
        </div>
      );
    default:
      return null;
  }
}
