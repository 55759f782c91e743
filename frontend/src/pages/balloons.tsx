// The balloon page (staff): every team's first accepted submission on
// each problem, in the order they were submitted, with the problem's
// balloon colour, the first solve of the contest and of each problem
// flagged, and a "delivered" mark staff toggle. It stays current over the
// contest's balloon channel (staff only): each change there (a new AC, a
// mark set on another screen) makes the page read the list again through
// the REST API; so does every snapshot (the subscription's, a reconnect's).

import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Balloon } from "../api";
import { t } from "../i18n";
import type { Channel } from "../live/protocol";
import { isStaff, live, session, useStore } from "../state";
import { ErrorBox, Loading, Notice, useFocusHeading, useTitle } from "../ui";

/** pendingCount is the number of balloons not delivered yet. */
export function pendingCount(items: readonly Balloon[]): number {
  return items.filter((b) => !b.delivered).length;
}

export function BalloonsPage({ slug }: { slug: string }) {
  useTitle(t("balloons.title"));
  const h = useFocusHeading();
  const user = useStore(session).user;
  const [items, setItems] = useState<Balloon[] | null>(null);
  const [channel, setChannel] = useState<Channel | null>(null);
  const [error, setError] = useState<unknown>(null);
  // One read at a time; a change during a read asks for one more.
  const reading = useRef(false);
  const again = useRef(false);

  const read = async () => {
    if (reading.current) {
      again.current = true;
      return;
    }
    reading.current = true;
    try {
      do {
        again.current = false;
        const l = await api.balloons(slug);
        setItems(l.items);
        setChannel((old) => (old && old.kind === l.channel.kind && old.id === l.channel.id ? old : l.channel));
        setError(null);
      } while (again.current);
    } catch (e) {
      setError(e);
    } finally {
      reading.current = false;
    }
  };

  useEffect(() => {
    if (isStaff(user)) read();
  }, [slug, user?.id]);

  useEffect(() => {
    if (!channel) return;
    return live().subscribe(channel, {
      // Every snapshot: what changed between the first read and the
      // subscription, or while a reconnect was under way.
      snapshot: () => read(),
      event: () => read(),
    });
  }, [channel?.kind, channel?.id]);

  const toggle = async (b: Balloon) => {
    try {
      const nb = await api.setBalloon(slug, b.team, b.label, !b.delivered);
      setItems((old) => (old ?? []).map((x) => (x.team === nb.team && x.label === nb.label ? nb : x)));
    } catch (e) {
      setError(e);
    }
  };

  if (!isStaff(user)) return <div class="page"><Notice>{t("common.notFound")}</Notice></div>;
  return (
    <div class="page">
      <h1 ref={h} tabIndex={-1}>
        {t("balloons.title")}
      </h1>
      {error ? <ErrorBox error={error} /> : null}
      {items === null ? (
        <Loading />
      ) : items.length === 0 ? (
        <p id="balloons-empty">{t("balloons.empty")}</p>
      ) : (
        <>
          <p id="balloons-pending">{t("balloons.pending", { n: pendingCount(items) })}</p>
          <table class="balloons">
            <thead>
              <tr>
                <th>{t("balloons.col.time")}</th>
                <th>{t("balloons.col.team")}</th>
                <th>{t("balloons.col.problem")}</th>
                <th>{t("balloons.col.color")}</th>
                <th>{t("balloons.col.flags")}</th>
                <th>{t("balloons.col.delivered")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((b) => (
                <tr key={`${b.team}/${b.label}`} data-team={b.team} data-label={b.label} class={b.delivered ? "delivered" : ""}>
                  <td>{b.contest_time}</td>
                  <td>{b.team_name}</td>
                  <td>{b.label}</td>
                  <td>
                    {b.rgb ? <span class="swatch" style={{ background: b.rgb }} aria-hidden="true" /> : null} {b.color}
                  </td>
                  <td>
                    {b.first_in_contest ? <span class="badge first-contest">{t("balloons.firstInContest")}</span> : null}{" "}
                    {b.first_for_problem ? <span class="badge first-problem">{t("balloons.firstForProblem")}</span> : null}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      checked={b.delivered}
                      aria-label={t("balloons.deliver", { label: b.label, team: b.team_name })}
                      onChange={() => toggle(b)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
