// Contest registration: what the contest page offers the viewer, and the
// username lists staff paste into the participants editor. Pure.

import type { Contest, User } from "./api";

export type RegistrationState =
  /** Not logged in (and not ended): log in to take part. */
  | "anonymous"
  /** Staff run the contest; they are not offered registration. */
  | "staff"
  /** On the participants list. */
  | "registered"
  /** Open registration, not registered yet, not ended: show the button. */
  | "can-register"
  /** Registration by list and not on it: ask the organisers. */
  | "by-list"
  /** Ended and not registered (or not logged in): nothing to do. */
  | "ended";

export function registrationState(c: Contest, user: User | null, now: number = Date.now()): RegistrationState {
  const ended = c.phase === "ended" || (Number.isFinite(Date.parse(c.end_at)) && now >= Date.parse(c.end_at));
  if (!user) return ended ? "ended" : "anonymous";
  if (user.role === "admin" || user.role === "setter") return "staff";
  if (c.registered) return "registered";
  if (ended) return "ended";
  return c.registration === "list" ? "by-list" : "can-register";
}

/** The username rule of the web node (docs/api.md, POST /api/users). */
export const USERNAME_RE = /^[a-z0-9_.-]{3,32}$/;

/**
 * parseUsernames reads a pasted list: names separated by spaces, commas,
 * semicolons or new lines (a column copied from a spreadsheet works).
 * Names are lower-cased (usernames are lower case), duplicates dropped,
 * order kept; what cannot be a username is returned in `invalid`.
 */
export function parseUsernames(text: string): { usernames: string[]; invalid: string[] } {
  const usernames: string[] = [];
  const invalid: string[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(/[\s,;]+/)) {
    const u = raw.trim().toLowerCase();
    if (!u || seen.has(u)) continue;
    seen.add(u);
    if (USERNAME_RE.test(u)) usernames.push(u);
    else invalid.push(raw.trim());
  }
  return { usernames, invalid };
}
