// Number, size and time formatting. Pure.

/** pad2 pads to two digits. */
const pad2 = (n: number) => String(n).padStart(2, "0");

/** countdown formats a non-negative duration in ms as "3d 04:05:06" or "04:05:06". */
export function countdown(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const hms = `${pad2(Math.floor((s % 86400) / 3600))}:${pad2(Math.floor((s % 3600) / 60))}:${pad2(s % 60)}`;
  return d > 0 ? `${d}d ${hms}` : hms;
}

/** eta formats seconds as "45 s", "3 min", "1 h 5 min". */
export function eta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** memory formats KiB as "3.0 MB" (>= 1024 KiB) or "512 KB". */
export function memory(kb: number | null | undefined): string {
  if (kb == null) return "";
  if (kb >= 1024) return `${(kb / 1024).toFixed(1)} MB`;
  return `${kb} KB`;
}

export function millis(ms: number | null | undefined): string {
  return ms == null ? "" : `${ms} ms`;
}

/** seconds formats a time limit: 1000 -> "1 s", 1500 -> "1.5 s". */
export function limitSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

// ---- times and zones ------------------------------------------------------
// Every time is shown in ISO order (2026-03-01 10:00, never 03/01) with its
// zone; contest times in the contest's zone, and in the viewer's own too
// when that differs. The API takes and gives RFC 3339 with offsets.

/** viewerZone is the browser's IANA zone ("UTC" when unknown). */
export function viewerZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** validZone reports whether the browser knows the IANA zone name. */
export function validZone(zone: string): boolean {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** timeZones lists the zones for the contest form ("UTC" first). */
export function timeZones(): string[] {
  let list: string[] = [];
  try {
    list = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  } catch {
    list = [];
  }
  return ["UTC", ...list.filter((z) => z !== "UTC")];
}

interface Wall {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
}

/** wall is the wall-clock time of instant ms in zone. */
function wall(ms: number, zone: string): Wall {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? "0");
  return { y: get("year"), mo: get("month"), d: get("day"), h: get("hour") % 24, mi: get("minute"), s: get("second") };
}

/** zoneOffset is zone's offset from UTC at instant ms, in minutes. */
export function zoneOffset(ms: number, zone: string): number {
  const w = wall(ms, zone);
  const asUTC = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  return Math.round((asUTC - Math.floor(ms / 1000) * 1000) / 60000);
}

/** offsetLabel writes an offset in minutes as "UTC", "UTC+01:00", "UTC−05:30". */
export function offsetLabel(min: number): string {
  if (min === 0) return "UTC";
  const a = Math.abs(min);
  return `UTC${min > 0 ? "+" : "−"}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`;
}

function wallText(w: Wall): string {
  return `${w.y}-${pad2(w.mo)}-${pad2(w.d)} ${pad2(w.h)}:${pad2(w.mi)}`;
}

/**
 * dateTime formats an ISO time in ISO order with its offset, in zone
 * (default: the viewer's): "2026-03-01 10:00 UTC+01:00". lang is kept for
 * the callers; the order is the same in every language.
 */
export function dateTime(iso: string | null | undefined, _lang?: string, zone: string = viewerZone()): string {
  if (!iso) return "";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const z = validZone(zone) ? zone : "UTC";
  return `${wallText(wall(ms, z))} ${offsetLabel(zoneOffset(ms, z))}`;
}

/**
 * contestTime formats a contest's time in the contest's zone, named, and
 * in the viewer's own when its offset differs at that instant:
 * { contest: "2026-03-01 10:00 Europe/Berlin (UTC+01:00)",
 *   viewer: "2026-03-01 04:00 America/New_York (UTC−05:00)" }.
 */
export function contestTime(
  iso: string | null | undefined,
  contestZone: string | null | undefined,
  viewer: string = viewerZone(),
): { contest: string; viewer?: string } {
  if (!iso) return { contest: "" };
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return { contest: iso };
  const cz = contestZone && validZone(contestZone) ? contestZone : "UTC";
  const co = zoneOffset(ms, cz);
  const out: { contest: string; viewer?: string } = { contest: `${wallText(wall(ms, cz))} ${cz} (${offsetLabel(co)})` };
  const vz = validZone(viewer) ? viewer : "UTC";
  const vo = zoneOffset(ms, vz);
  if (vo !== co) out.viewer = `${wallText(wall(ms, vz))} ${vz} (${offsetLabel(vo)})`;
  return out;
}

/** toZoneInput turns an ISO time into the contest form's "YYYY-MM-DD HH:MM" in zone. */
export function toZoneInput(iso: string | null | undefined, zone: string): string {
  if (!iso) return "";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return "";
  return wallText(wall(ms, validZone(zone) ? zone : "UTC"));
}

/** ZONE_INPUT is what the contest form's time fields take: ISO order, 24 h. */
export const ZONE_INPUT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * fromZoneInput reads "YYYY-MM-DD HH:MM" (or with a "T", or seconds) as a
 * wall-clock time in zone and returns the instant as RFC 3339 UTC, or ""
 * when it is not such a time. A time skipped by a summer-time change is
 * read in the offset before the change (02:30 becomes 03:30 summer time).
 */
export function fromZoneInput(v: string, zone: string): string {
  const m = ZONE_INPUT.exec(v.trim());
  if (!m) return "";
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "0"].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return "";
  const naive = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(naive);
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return ""; // 2026-02-30
  const z = validZone(zone) ? zone : "UTC";
  // The offset at the guess, then at the corrected instant (they differ
  // only within a few hours of a summer-time change).
  const o1 = zoneOffset(naive, z);
  const o2 = zoneOffset(naive - o1 * 60000, z);
  const fits = (o: number) => {
    const w = wall(naive - o * 60000, z);
    return w.h === h && w.mi === mi && w.d === d;
  };
  // Neither fits: the wall time falls in a gap; read it with the offset
  // before the change (the smaller one), as a clock not yet moved would.
  const o = fits(o1) ? o1 : fits(o2) ? o2 : Math.min(o1, o2);
  return new Date(naive - o * 60000).toISOString();
}

/** hoursMinutes formats a length in ms as "5 h" or "2 h 30 min". */
export function length(ms: number): string {
  const m = Math.round(ms / 60000);
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : h > 0 ? `${h} h ${m % 60} min` : `${m} min`;
}
