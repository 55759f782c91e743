// The calls the pages make, each on its route of docs/openapi.json
// (call(), typed by ./openapi.gen.ts): the spec's path, method, body and
// answer, so a page cannot use a field the API does not have.

import type { CustomRunState } from "../live/protocol";
import { call, newIdempotencyKey, qs } from "./http";
import type { BodyOf, Operations } from "./openapi.gen";
import type { Balloon, BalloonList, Contest, Page, StatusFilter, StatusPage, SubmissionDetail, TeamImportResult, TeamsDoc, UserFilter, UserPatch } from "./types";

// ---- shape tolerance -------------------------------------------------------
// The web node wraps documents by name ({"problem":{...}}, {"problems":[...]},
// {"contest":{...},"problems":[...]}); the first API sketch used {items}.
// These helpers accept both, so the app works with either; listOf and oneOf
// take their types from the spec's answer.

/** list returns a page from {items} or from the first array-valued field named in keys. */
export function unwrapList<T>(doc: unknown, ...keys: string[]): Page<T> {
  const d = (doc ?? {}) as Record<string, unknown>;
  const next = (d.next_cursor as string | null | undefined) ?? null;
  if (Array.isArray(d.items)) return { items: d.items as T[], next_cursor: next };
  for (const k of keys) if (Array.isArray(d[k])) return { items: d[k] as T[], next_cursor: next };
  if (Array.isArray(doc)) return { items: doc as T[], next_cursor: null };
  return { items: [], next_cursor: next };
}

/** one returns d[key] when the document is wrapped, else the document. */
export function unwrapOne<T>(doc: unknown, key: string): T {
  const d = (doc ?? {}) as Record<string, unknown>;
  const inner = d[key];
  return (inner && typeof inner === "object" && !Array.isArray(inner) ? inner : doc) as T;
}

/** contestDoc merges {"contest":{...},"problems":[...]} into one Contest. */
export function unwrapContest(doc: unknown): Contest {
  const d = (doc ?? {}) as Record<string, unknown>;
  const c = unwrapOne<Contest>(doc, "contest");
  const problems = Array.isArray(d.problems) ? (d.problems as Contest["problems"]) : c.problems;
  return { ...c, problems: problems ?? [] };
}

type Items<D, K extends keyof D> = NonNullable<D[K]> extends readonly (infer I)[] ? I : never;
/** listOf is unwrapList typed by the answer: the items of doc[key]. */
const listOf = <D, K extends keyof D & string>(doc: D, key: K) => unwrapList<Items<D, K>>(doc, key);
/** oneOf is unwrapOne typed by the answer: doc[key]. */
const oneOf = <D, K extends keyof D & string>(doc: D, key: K) => unwrapOne<NonNullable<D[K]>>(doc, key);

function form(file: File, fields: Record<string, string | undefined> = {}): FormData {
  const fd = new FormData();
  fd.append("file", file, file.name);
  for (const [k, v] of Object.entries(fields)) if (v) fd.append(k, v);
  return fd;
}

function dropEmpty<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== "")) as Partial<T>;
}

/** The status page's filters, as GET /api/submissions reads them. */
type StatusQuery = StatusFilter & { cursor?: string | null; limit?: number };

export const api = {
  login: (username: string, password: string) => call("POST /api/session", { body: { username, password } }),
  logout: () => call("DELETE /api/session"),
  me: () => call("GET /api/me"),
  /** Registers a student; the answer is {user} (it does not log in). */
  register: (b: BodyOf<"register">) => call("POST /api/users", { body: b }),
  /** The registration mode, for anyone (the register page). */
  registrationSettings: () => call("GET /api/settings/registration"),
  /** Admins: sets the registration mode (and the domains). */
  setRegistrationSettings: (b: BodyOf<"setRegistrationSettings">) => call("PUT /api/settings/registration", { body: b }),
  /** Changes the caller's password. The answer carries a new session: the
   * caller must keep its csrf_token (the old one is no longer valid). */
  changePassword: (current_password: string, new_password: string) => call("POST /api/me/password", { body: { current_password, new_password } }),

  problems: async () => listOf(await call("GET /api/problems"), "problems"),
  problem: async (slug: string) => oneOf(await call("GET /api/problems/{slug}", { path: { slug } }), "problem"),
  languages: async () => listOf(await call("GET /api/languages"), "languages"),

  submit: (b: BodyOf<"submit">, idemKey: string) => call("POST /api/submissions", { body: b, headers: { "Idempotency-Key": idemKey } }),
  /** A custom run ("run on my input"): 202 with its state (queued); the
   * rest comes on the user's live channel as custom_run events. */
  customRun: (b: BodyOf<"createCustomRun">) => call("POST /api/custom-runs", { body: b }) as Promise<CustomRunState>,
  getCustomRun: (id: number) => call("GET /api/custom-runs/{id}", { path: { id } }) as Promise<CustomRunState>,
  submissions: async (f: { mine?: boolean; problem?: string; verdict?: string; contest?: string; cursor?: string | null }) =>
    listOf(await call("GET /api/submissions", { query: { mine: f.mine ? "1" : undefined, problem: f.problem, verdict: f.verdict, contest: f.contest, cursor: f.cursor } }), "submissions"),
  /** (Its subtasks typed as the live protocol types them: types.ts checks the two agree.) */
  submission: async (id: number) => oneOf(await call("GET /api/submissions/{id}", { path: { id } }), "submission") as SubmissionDetail,

  /** Staff: a contest's balloons (first solves in order) and the live
   * channel that says when to read them again (pages/balloons.tsx). */
  balloons: (slug: string) => call("GET /api/contests/{slug}/balloons", { path: { slug } }) as Promise<BalloonList>,
  setBalloon: (slug: string, team: string, label: string, delivered: boolean) =>
    call("PUT /api/contests/{slug}/balloons/{team}/{label}", { path: { slug, team, label }, body: { delivered } }) as Promise<Balloon>,
  contests: async () => listOf(await call("GET /api/contests"), "contests"),
  contest: async (slug: string) => unwrapContest(await call("GET /api/contests/{slug}", { path: { slug } })),
  scoreboard: async (slug: string) => unwrapOne<unknown>(await call("GET /api/contests/{slug}/scoreboard", { path: { slug } }), "scoreboard"),
  clarifications: async (slug: string) => listOf(await call("GET /api/contests/{slug}/clarifications", { path: { slug } }), "clarifications"),
  /** idemKey: one per send click, the same on a retry (the server posts it once). */
  askClarification: async (slug: string, b: { problem?: string; question: string }, idemKey: string = newIdempotencyKey()) =>
    oneOf(await call("POST /api/contests/{slug}/clarifications", { path: { slug }, body: b, headers: { "Idempotency-Key": idemKey } }), "clarification"),
  /** Staff: an announcement (public at once); idemKey as for a question. */
  announce: (slug: string, b: { problem?: string; announcement: string }, idemKey: string = newIdempotencyKey()) =>
    call("POST /api/contests/{slug}/clarifications", { path: { slug }, body: b, headers: { "Idempotency-Key": idemKey } }),
  /** Staff: answer (or re-answer) a question; public: everyone sees it, else the asker only. */
  answerClarification: async (slug: string, id: number, b: BodyOf<"answer">) =>
    oneOf(await call("POST /api/contests/{slug}/clarifications/{id}/answer", { path: { slug, id }, body: b }), "clarification"),
  registerContest: (slug: string) => call("POST /api/contests/{slug}/register", { path: { slug } }),

  // admin
  createProblem: (b: BodyOf<"createProblem">) => call("POST /api/problems", { body: b }),
  updateProblem: (slug: string, b: BodyOf<"updateProblem">) => call("PUT /api/problems/{slug}", { path: { slug }, body: b }),
  uploadTestdata: (slug: string, file: File) => call("POST /api/problems/{slug}/testdata", { path: { slug }, body: form(file) }),
  /** An output-only submission: a zip of outputs (N.out …) and/or one
   * file per case (case number → file). */
  submitOutputs: (b: { problem: string; contest?: string; zip?: File | null; cases?: [number, File][] }, idemKey: string) => {
    const fd = new FormData();
    fd.append("problem", b.problem);
    if (b.contest) fd.append("contest", b.contest);
    if (b.zip) fd.append("file", b.zip, b.zip.name);
    for (const [n, f] of b.cases ?? []) fd.append(`case_${n}`, f, f.name);
    return call("POST /api/submissions/outputs", { body: fd, headers: { "Idempotency-Key": idemKey } });
  },
  /** Staff: a problem's reference solutions and their latest runs. */
  solutions: (slug: string) => call("GET /api/problems/{slug}/solutions", { path: { slug } }),
  /** Staff: runs every reference solution (202: they show as running). */
  runSolutions: (slug: string) => call("POST /api/problems/{slug}/solutions/run", { path: { slug } }),
  /** Staff: create a problem from an ICPC problem package (zip). An empty
   * slug lets the server take it from the package; empty languages mean all. */
  importProblem: (file: File, opts: { slug?: string; visibility?: string; languages?: string } = {}) =>
    call("POST /api/problems/import", { body: form(file, { slug: opts.slug?.trim(), visibility: opts.visibility, languages: opts.languages?.trim() }) }),
  /** Staff: a contest's teams; admins change them (pages/teams.tsx). */
  teams: (slug: string) => call("GET /api/contests/{slug}/teams", { path: { slug } }) as Promise<TeamsDoc>,
  setTeamMode: (slug: string, enabled: boolean) => call("PUT /api/contests/{slug}/team-mode", { path: { slug }, body: { enabled } }),
  importTeams: (slug: string, format: TeamFormat, file: File) =>
    call("POST /api/contests/{slug}/teams/import", { path: { slug }, query: { format }, body: form(file) }) as Promise<TeamImportResult>,
  teamsExportURL: (slug: string, format: string) => `/api/contests/${encodeURIComponent(slug)}/teams/export${qs({ format })}`,
  deleteTeamObject: (slug: string, kind: "teams" | "groups" | "organizations", id: string) =>
    kind === "teams"
      ? call("DELETE /api/contests/{slug}/teams/{id}", { path: { slug, id } })
      : kind === "groups"
        ? call("DELETE /api/contests/{slug}/groups/{id}", { path: { slug, id } })
        : call("DELETE /api/contests/{slug}/organizations/{id}", { path: { slug, id } }),
  createContest: (b: BodyOf<"createContest">) => call("POST /api/contests", { body: b }),
  updateContest: (slug: string, b: BodyOf<"updateContest">) => call("PUT /api/contests/{slug}", { path: { slug }, body: b }),
  participants: async (slug: string) => listOf(await call("GET /api/contests/{slug}/participants", { path: { slug } }), "participants"),
  addParticipants: (slug: string, usernames: string[]) => call("POST /api/contests/{slug}/participants", { path: { slug }, body: { usernames } }),
  removeParticipant: (slug: string, username: string) => call("DELETE /api/contests/{slug}/participants/{username}", { path: { slug, username } }),
  importUsers: (file: File) => call("POST /api/users/import", { body: form(file) }),
  /** Admins: one page of users, ordered by id. */
  users: async (f: UserFilter = {}, signal?: AbortSignal) =>
    listOf(await call("GET /api/users", { query: { q: f.q?.trim(), role: f.role, disabled: f.disabled, cursor: f.cursor, limit: f.limit }, signal }), "users"),
  updateUser: async (username: string, patch: UserPatch) => oneOf(await call("PUT /api/users/{username}", { path: { username }, body: patch }), "user"),
  /** Admins: resets a password. Without one the server generates it; the
   * answer is the only place it is ever shown. */
  resetPassword: (username: string, password?: string) =>
    call("POST /api/users/{username}/password", { path: { username }, body: password === undefined ? {} : { password } }),
  judges: async () => listOf(await call("GET /api/judges"), "judges"),
  /** GET /api/judges whole: the judges and their warmth per contest. */
  judgesDoc: () => call("GET /api/judges"),
  createJudge: (name: string) => call("POST /api/judges", { body: { name } }),
  deleteJudge: (name: string) => call("DELETE /api/judges/{name}", { path: { name } }),
  /** A rejudge with its own Idempotency-Key: a retry of the same click (pass its key) rejudges nothing twice. */
  rejudge: (b: { submission?: number } & StatusFilter, idemKey: string = newIdempotencyKey()) =>
    call("POST /api/rejudge", { body: dropEmpty(b), headers: { "Idempotency-Key": idemKey } }),
  /** How far a background rejudge (the job POST /api/rejudge answered) got. */
  rejudgeStatus: (job: string, signal?: AbortSignal) => call("GET /api/rejudge/{job}", { path: { job }, signal }),
  /** The status page: every submission staff may see (others: what the contest settings allow), newest first. */
  status: async (f: StatusQuery, signal?: AbortSignal): Promise<StatusPage> => {
    const d = await call("GET /api/submissions", { query: { ...f }, signal });
    return { items: d.submissions ?? [], next_cursor: d.next_cursor ?? null, live: d.live ?? null };
  },
  override: async (id: number, b: BodyOf<"overrideVerdict">) => oneOf(await call("POST /api/submissions/{id}/override", { path: { id }, body: b }), "submission"),
  adminProblems: async (q: string, cursor?: string | null) => listOf(await call("GET /api/admin/problems", { query: { q, cursor } }), "problems"),
  adminContests: async (q: string, cursor?: string | null) => listOf(await call("GET /api/admin/contests", { query: { q, cursor } }), "contests"),
};

/** exportURL is the staff zip of a contest's or a problem's sources. */
export function exportURL(what: { contest?: string; problem?: string }, finalOnly = false): string {
  return `/api/export${qs({ contest: what.contest, problem: what.problem, final: finalOnly ? 1 : undefined })}`;
}

/** scoreboardCsvURL is the staff CSV export of a contest's full standings. */
export function scoreboardCsvURL(slug: string): string {
  return `/api/contests/${encodeURIComponent(slug)}/scoreboard.csv`;
}

/** The team file formats (webapp/internal/teamfmt). */
export const TEAM_FORMATS: readonly TeamFormat[] = ["teams.json", "teams.tsv", "csv", "organizations.json", "institutions.tsv", "groups.json", "groups.tsv"];
export type TeamFormat = NonNullable<Operations["importContestTeams"]["params"]["query"]["format"]>;
