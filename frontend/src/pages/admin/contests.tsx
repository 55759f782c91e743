// Admin: contests — the list, load one by slug, the contest form (rule,
// window in the contest's zone, freeze, registration, feedback,
// visibility, the problem list as "A slug points" lines) and, for a saved
// contest, its participants (./participants).

import { useMemo, useState } from "preact/hooks";
import { api, ApiError, type Contest } from "../../api";
import type { BodyOf } from "../../api/openapi.gen";
import { t, type Key } from "../../i18n";
import { fromZoneInput, offsetLabel, timeZones, toZoneInput, validZone, viewerZone, zoneOffset } from "../../format";
import { ErrorBox, Field, fieldError, formError, Notice, useAsync } from "../../ui";
import { CheckField, FeedbackOptions, type FieldErr, Section, type Setter, SLUG_PATTERN, SlugLookup, useForm, useSubmit } from "./form";
import { AdminList } from "./list";
import { ParticipantsEditor } from "./participants";

type Req = BodyOf<"createContest">;

// The fields as the inputs hold them; a select's value is one of the
// options it offers, which are the spec's values.
const emptyContest = {
  slug: "",
  title: "",
  description: "",
  rule: "icpc" as NonNullable<Req["rule"]>,
  start_at: "",
  end_at: "",
  /** The contest's IANA zone: start_at and end_at are wall times in it
   * (a new contest starts in the admin's own). */
  time_zone: viewerZone(),
  freeze_minutes: "0",
  registration: "open" as NonNullable<Req["registration"]>,
  feedback: "full" as NonNullable<Req["feedback"]>,
  feedback_after: "full" as NonNullable<Req["feedback_after"]>,
  status_visibility: "own" as NonNullable<Req["status_visibility"]>,
  visible: true as boolean,
  problems: "",
};
type ContestForm = typeof emptyContest;

/** parseContestProblems reads "A sum 100" lines. */
export function parseContestProblems(text: string): { problems: { label: string; slug: string; points: number }[]; bad: number[] } {
  const problems: { label: string; slug: string; points: number }[] = [];
  const bad: number[] = [];
  text.split("\n").forEach((line, i) => {
    const parts = line.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return;
    const points = parts[2] === undefined ? 100 : Number(parts[2]);
    if (parts.length < 2 || parts.length > 3 || !Number.isInteger(points) || points < 0) bad.push(i + 1);
    else problems.push({ label: parts[0]!, slug: parts[1]!, points });
  });
  return { problems, bad };
}

/** contestBody is the JSON of POST/PUT /api/contests for the form. */
export function contestBody(f: ContestForm, problems: { label: string; slug: string; points: number }[]): Req {
  return {
    slug: f.slug.trim(),
    title: f.title,
    description: f.description,
    rule: f.rule,
    start_at: fromZoneInput(f.start_at, f.time_zone),
    end_at: fromZoneInput(f.end_at, f.time_zone),
    time_zone: f.time_zone,
    freeze_minutes: Number(f.freeze_minutes),
    registration: f.registration,
    feedback: f.feedback,
    feedback_after: f.feedback_after,
    status_visibility: f.status_visibility,
    visible: f.visible,
    problems,
  };
}

/** contestForm fills the form from GET /api/contests/{slug} (as staff see it). */
export function contestForm(c: Contest): ContestForm {
  return {
    slug: c.slug,
    title: c.title,
    description: c.description ?? "",
    rule: c.rule,
    start_at: toZoneInput(c.start_at, c.time_zone ?? "UTC"),
    end_at: toZoneInput(c.end_at, c.time_zone ?? "UTC"),
    time_zone: c.time_zone ?? "UTC",
    freeze_minutes: String(c.freeze_minutes ?? 0),
    registration: c.registration === "list" ? "list" : "open",
    feedback: c.feedback ?? "full",
    feedback_after: c.feedback_after ?? "full",
    status_visibility: c.status_visibility === "all" ? "all" : "own",
    visible: c.visible !== false,
    problems: (c.problems ?? []).map((p) => `${p.label} ${p.slug} ${p.points}`).join("\n"),
  };
}

export function ContestAdmin() {
  const { f, setF, set } = useForm<ContestForm>(emptyContest);
  const [editing, setEditing] = useState<string | null>(null);
  const [savedReg, setSavedReg] = useState<string>("open");
  const [lookup, setLookup] = useState("");
  const save = useSubmit<unknown>();
  const load = useSubmit<unknown>();
  const existing = useAsync(() => api.contests(), []);
  const fe = (k: string) => fieldError(save.error, k);

  const loadSlug = (slug: string) => {
    setLookup(slug);
    load.run(async () => {
      const c = await api.contest(slug);
      setF(contestForm(c));
      setEditing(c.slug);
      setSavedReg(c.registration ?? "open");
      return c;
    });
  };

  const doSave = (e: Event) => {
    e.preventDefault();
    const parsed = parseContestProblems(f.problems);
    if (parsed.bad.length) {
      save.setError(new ApiError(400, "invalid", `line ${parsed.bad.join(", ")}`, "problems"));
      return;
    }
    const body = contestBody(f, parsed.problems);
    save.run(async () => {
      const r = editing ? await api.updateContest(editing, body) : await api.createContest(body);
      setEditing(body.slug ?? null);
      setSavedReg(body.registration ?? "open");
      existing.reload();
      return r;
    });
  };

  const newContest = () => {
    setF(emptyContest);
    setEditing(null);
    setLookup("");
  };

  return (
    <>
      <AdminList kind="contests" onEdit={loadSlug} />
      <Section title={t("admin.editContest")}>
        <SlugLookup id="c" value={lookup} onInput={setLookup} onLoad={loadSlug} items={existing.data?.items ?? []} busy={load.busy} error={load.error}>
          {editing && (
            <button type="button" class="btn btn-ghost" onClick={newContest}>
              {t("admin.newContest")}
            </button>
          )}
        </SlugLookup>
      </Section>
      <Section title={editing ? `${t("admin.contests")}: ${editing}` : `${t("common.create")}: ${t("admin.contests")}`}>
        <form class="form grid" onSubmit={doSave}>
          <Field id="c-slug" label={t("admin.slug")} required pattern={SLUG_PATTERN} value={f.slug} onInput={set("slug")} error={fe("slug")} />
          <Field id="c-title" label={t("admin.titleField")} required value={f.title} onInput={set("title")} error={fe("title")} />
          <Field id="c-desc" label={t("admin.description")} error={fe("description")}>
            <textarea id="c-desc" rows={5} value={f.description} onInput={set("description")} />
          </Field>
          <Field id="c-rule" label={t("admin.rule")} error={fe("rule")}>
            <select id="c-rule" value={f.rule} onChange={set("rule")}>
              <option value="icpc">ICPC</option>
              <option value="ioi">IOI</option>
            </select>
          </Field>
          <ContestZoneFields f={f} set={set} fe={fe} />
          <Field id="c-freeze" label={t("admin.freeze")} type="number" min={0} value={f.freeze_minutes} onInput={set("freeze_minutes")} error={fe("freeze_minutes")} />
          <Field id="c-registration" label={t("admin.registration")} error={fe("registration")} hint={f.registration === "list" ? t("admin.registration.listHint") : t("admin.registration.openHint")}>
            <select id="c-registration" value={f.registration} onChange={set("registration")} aria-describedby="c-registration-hint">
              <option value="open">{t("admin.registration.open")}</option>
              <option value="list">{t("admin.registration.list")}</option>
            </select>
          </Field>
          <Field id="c-feedback" label={t("admin.feedback")} error={fe("feedback")} hint={t("admin.feedbackHint")}>
            <select id="c-feedback" value={f.feedback} onChange={set("feedback")} aria-describedby="c-feedback-hint">
              <FeedbackOptions closed={true} />
            </select>
          </Field>
          {f.feedback === "closed" && (
            <Field id="c-feedback-after" label={t("admin.feedbackAfter")} error={fe("feedback_after")}>
              <select id="c-feedback-after" value={f.feedback_after} onChange={set("feedback_after")}>
                <FeedbackOptions closed={false} />
              </select>
            </Field>
          )}
          <Field id="c-status" label={t("admin.statusVisibility")} error={fe("status_visibility")}>
            <select id="c-status" value={f.status_visibility} onChange={set("status_visibility")}>
              <option value="own">{t("admin.statusVisibility.own")}</option>
              <option value="all">{t("admin.statusVisibility.all")}</option>
            </select>
          </Field>
          <CheckField id="c-visible" label={t("admin.visible")} checked={f.visible} onChange={(v) => setF({ ...f, visible: v })} error={fe("visible")} hint={t("admin.visibleHint")} />
          <Field id="c-problems" label={t("admin.contestProblems")} error={fe("problems")}>
            <textarea
              id="c-problems"
              rows={6}
              value={f.problems}
              onInput={set("problems")}
              placeholder={"A sum 100\nB graph 100"}
              aria-invalid={fe("problems") ? "true" : undefined}
              aria-describedby={fe("problems") ? "c-problems-err" : undefined}
            />
          </Field>
          <ErrorBox error={formError(save.error, Object.keys(emptyContest))} />
          {save.result !== null && <Notice kind="ok">{t("admin.saved")}</Notice>}
          <button type="submit" class="btn btn-primary" disabled={save.busy}>
            {editing ? t("common.save") : t("common.create")}
          </button>
        </form>
      </Section>
      {editing && <ParticipantsEditor key={editing} slug={editing} registration={savedReg} />}
      {editing && (
        <p>
          <a href={`/contests/${encodeURIComponent(editing)}/teams`} id="contest-teams-link">
            {t("teams.title")}
          </a>
        </p>
      )}
    </>
  );
}

/**
 * ContestZoneFields: the contest's zone and its start and end, typed in
 * ISO order (2026-03-01 10:00, 24 h) as wall times in that zone, which
 * every label names with its offset. The browser's own date picker is not
 * used: it shows the browser's locale order (03/01/2026 in the US) and no
 * zone.
 */
function ContestZoneFields({ f, set, fe }: { f: ContestForm; set: Setter<ContestForm>; fe: FieldErr }) {
  const zones = useMemo(() => timeZones(), []);
  const zone = validZone(f.time_zone) ? f.time_zone : "UTC";
  const label = (key: Key, v: string) => {
    const iso = fromZoneInput(v, zone);
    const at = iso ? Date.parse(iso) : Date.now();
    return `${t(key)} (${zone}, ${offsetLabel(zoneOffset(at, zone))})`;
  };
  const mine = viewerZone();
  return (
    <>
      <Field id="c-zone" label={t("admin.timeZone")} error={fe("time_zone")} hint={t("admin.timeZoneHint", { zone: mine })}>
        <input id="c-zone" list="c-zone-list" required value={f.time_zone} onInput={set("time_zone")} aria-describedby="c-zone-hint" autoComplete="off" />
        <datalist id="c-zone-list">
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </Field>
      <Field id="c-start" label={label("admin.startAt", f.start_at)} required placeholder="2026-03-01 10:00" pattern={ZONE_PATTERN} value={f.start_at} onInput={set("start_at")} error={fe("start_at")} hint={t("admin.timeFormat")} />
      <Field id="c-end" label={label("admin.endAt", f.end_at)} required placeholder="2026-03-01 15:00" pattern={ZONE_PATTERN} value={f.end_at} onInput={set("end_at")} error={fe("end_at")} hint={t("admin.timeFormat")} />
    </>
  );
}

const ZONE_PATTERN = "\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2})?";
