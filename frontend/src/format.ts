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

/** dateTime formats an ISO time in the user's zone for the given language. */
export function dateTime(iso: string | null | undefined, lang: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/** hoursMinutes formats a length in ms as "5 h" or "2 h 30 min". */
export function length(ms: number): string {
  const m = Math.round(ms / 60000);
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : h > 0 ? `${h} h ${m % 60} min` : `${m} min`;
}

/** toLocalInput turns an ISO time into a datetime-local input value. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** fromLocalInput turns a datetime-local value (local zone) into ISO 8601 UTC. */
export function fromLocalInput(v: string): string {
  if (!v) return "";
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}
