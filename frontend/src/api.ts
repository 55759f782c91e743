import type { Channel, CustomRunState, SubtaskScore } from "./live/protocol";

// The web node's HTTP API: one fetch wrapper that sends the CSRF token on
// cookie-authenticated writes, turns error bodies into ApiError, and the
// typed calls the pages use. docs/frontend.md lists the routes assumed.

export interface User {
  id: number;
  username: string;
  display_name: string;
  role: "admin" | "setter" | "student" | string;
  email?: string;
}

export interface SessionDoc {
  user: User;
  csrf_token: string;
}

/** An error answer: {"error":{"code","message","field"}} or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number, // 0: the request did not get an answer
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfter?: number,
    /** The whole parsed error body, for answers that carry more than
     * {code,message,field} (e.g. "unknown" usernames, per-line "errors"). */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

let csrfToken = "";
export function setCsrfToken(t: string): void {
  csrfToken = t;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
/** Writes that do not need the token (they create the session). */
const NO_CSRF = new Set(["POST /api/session", "POST /api/register", "POST /api/users"]);

export interface RequestOptions {
  method?: string;
  body?: unknown; // JSON-encoded unless FormData
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function parseError(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  let field: string | undefined;
  let body: unknown;
  try {
    const j = (await res.json()) as { error?: { code?: string; message?: string; field?: string } };
    body = j;
    if (j && j.error) {
      code = j.error.code || code;
      message = j.error.message || message;
      field = j.error.field || undefined;
    }
  } catch {
    /* not JSON: keep the status text */
  }
  return new ApiError(res.status, code, message, field, retryAfterSeconds(res.headers.get("Retry-After")), body);
}

/** retryAfterSeconds reads a Retry-After header: delay-seconds, or an
 *  HTTP date (RFC 9110 allows both), as whole seconds from now. */
export function retryAfterSeconds(v: string | null, now = Date.now()): number | undefined {
  if (!v) return undefined;
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) {
    const n = Math.ceil(Number(t));
    return n > 0 ? n : undefined;
  }
  // Only something that looks like a date ("Wed, 21 Oct 2015 07:28:00 GMT"):
  // Date.parse reads almost anything as some date.
  if (!/[a-z]/i.test(t)) return undefined;
  const at = Date.parse(t);
  if (Number.isNaN(at)) return undefined;
  const s = Math.ceil((at - now) / 1000);
  return s > 0 ? s : undefined;
}

/** unknownUsernames reads the "unknown" list of a participants 422. */
export function unknownUsernames(e: unknown): string[] {
  if (!(e instanceof ApiError)) return [];
  const b = e.body as { error?: { unknown?: unknown }; unknown?: unknown } | undefined;
  const u = b?.error?.unknown ?? b?.unknown;
  return Array.isArray(u) ? u.filter((x): x is string => typeof x === "string") : [];
}

/** importErrors reads the per-line errors of a refused CSV import. */
export function importErrors(e: unknown): { line: number; field?: string; message: string }[] {
  if (!(e instanceof ApiError)) return [];
  const list = (e.body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (x): x is { line: number; field?: string; message: string } =>
      !!x && typeof x === "object" && typeof (x as { line?: unknown }).line === "number" && typeof (x as { message?: unknown }).message === "string",
  );
}

export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const method = (opts.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) body = opts.body;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] = "application/json";
  }
  const route = `${method} ${path.split("?")[0]}`;
  if (!SAFE.has(method) && !NO_CSRF.has(route) && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, credentials: "same-origin", signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network", (e as Error).message || "network error");
  }
  if (!res.ok) throw await parseError(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** newIdempotencyKey is a random UUID v4 for one submit click. */
export function newIdempotencyKey(): string {
  // randomUUID needs a secure context (https or localhost); fall back.
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : "";
}

const enc = encodeURIComponent;

// ---- documents ------------------------------------------------------------

export interface ProblemSummary {
  id?: number;
  slug: string;
  title: string;
  time_limit_ms: number;
  memory_limit_kb: number;
  mode: "icpc" | "ioi" | string;
  visibility?: string;
  solved?: boolean;
}

/** What contestants see of their results (see docs/api.md, "Feedback policy"). */
export type FeedbackPolicy = "full" | "first_failure" | "score_only" | "closed";

export interface Problem extends ProblemSummary {
  statement: string;
  languages: string[];
  checker?: string;
  float_tolerance?: number;
  case_count?: number;
  /** The feedback policy of practice submissions (never "closed"). */
  feedback?: FeedbackPolicy | string;
  /** File I/O: the files the program reads and writes instead of stdin
   * and stdout ("" or absent: the standard stream). */
  input_file?: string;
  output_file?: string;
  /** Contestants upload one output per case instead of a program. */
  output_only?: boolean;
}

/** A reference solution of a problem and its latest run (staff). */
export interface Solution {
  id: number;
  name: string;
  language: string;
  expected: string;
  state: "not_run" | "running" | "ok" | "mismatch";
  submission_id?: number;
  verdict?: string;
  score?: number;
  time_ms?: number;
  stale?: boolean;
  error?: string;
}

export interface SolutionsDoc {
  solutions: Solution[];
  ok: boolean;
}

export interface Language {
  id: string;
  name: string;
  version?: string;
}

export interface SubmissionSummary {
  id: number;
  problem: string;
  problem_title?: string;
  contest?: string | null;
  user?: string;
  language: string;
  verdict: string;
  score: number;
  time_ms: number | null;
  memory_kb: number | null;
  created_at: string;
  /** The policy the server applied for this viewer (absent for staff); "closed": results hidden until the contest ends. */
  feedback?: FeedbackPolicy | string;
}

export interface SubmissionDetail extends SubmissionSummary {
  status?: string;
  compile_message?: string | null;
  case_count?: number | null;
  cases: { index: number; verdict: string; time_ms: number | null; memory_kb: number | null; score: number | null; message?: string | null }[];
  source?: string;
  /** first_failure: the first failing case's number. */
  first_failure?: number | null;
  /** Each subtask's score (IOI-mode problems under full or score_only; staff always). */
  subtasks?: SubtaskScore[] | null;
  /** Staff only: the jury's hand-set verdicts, oldest first. */
  overrides?: Override[];
}

export interface ContestProblem {
  label: string;
  slug: string;
  title: string;
  points: number;
}

export interface Contest {
  /** Numeric id: the contest channel of the live protocol is keyed by it. */
  id?: number;
  slug: string;
  title: string;
  description?: string;
  rule: "icpc" | "ioi";
  start_at: string;
  end_at: string;
  freeze_minutes: number;
  /** The IANA zone the contest's times are shown and entered in; start_at
   * and end_at carry its offset (RFC 3339). */
  time_zone?: string;
  frozen?: boolean;
  phase?: "upcoming" | "running" | "ended";
  registration?: "open" | "list" | string;
  feedback?: FeedbackPolicy | string;
  /** The policy once a closed contest ended. */
  feedback_after?: FeedbackPolicy | string;
  /** What contestants list of others' submissions: "own" or "all" (verdicts, never source). */
  status_visibility?: "own" | "all" | string;
  registered?: boolean;
  /** Staff only: hidden contests are 404 to everyone else. */
  visible?: boolean;
  problems?: ContestProblem[];
}

/** The self-registration policy (GET/PUT /api/settings/registration). */
export interface RegistrationSettings {
  mode: "open" | "closed" | "domains";
  /** E-mail domains that may register (their subdomains too) in mode domains. */
  domains: string[];
}

export interface Participant {
  user_id: number;
  username: string;
  registered_at: string;
}

export interface Clarification {
  id: number;
  problem?: string | null;
  question: string | null; // null for an announcement
  answer?: string | null;
  public?: boolean;
  announcement?: boolean;
  user?: string;
  created_at: string;
  answered_at?: string | null;
}

export interface JudgeInfo {
  name: string;
  connected?: boolean;
  cores?: number;
  running?: number;
  queued?: number;
  load1?: number;
  mem_used_ratio?: number;
  languages?: string[];
  last_seen_at?: string | null;
  created_at?: string;
  revoked_at?: string | null;
}

/** A user as the admin users endpoints show it (GET/PUT /api/users). */
export interface AdminUser {
  id: number;
  username: string;
  display_name: string;
  /** "" when the user has none. */
  email: string;
  role: "admin" | "setter" | "student" | string;
  disabled: boolean;
  created_at: string;
}

/** The fields PUT /api/users/{username} accepts; any subset. */
export interface UserPatch {
  display_name?: string;
  email?: string;
  role?: string;
  disabled?: boolean;
}

export interface UserFilter {
  /** A username prefix, or part of the display name or e-mail. */
  q?: string;
  role?: string;
  /** true: disabled accounts only; false: active only; undefined: both. */
  disabled?: boolean;
  cursor?: string | null;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

// ---- shape tolerance -------------------------------------------------------
// The web node wraps documents by name ({"problem":{...}}, {"problems":[...]},
// {"contest":{...},"problems":[...]}); the first API sketch used {items}.
// These helpers accept both, so the app works with either.

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
  const problems = Array.isArray(d.problems) ? (d.problems as ContestProblem[]) : c.problems;
  return { ...c, problems: problems ?? [] };
}

// ---- calls ----------------------------------------------------------------

/** One balloon: a team's first accepted submission on a problem. */
export interface Balloon {
  team: string;
  team_name: string;
  problem_id: number;
  label: string;
  color: string;
  rgb: string;
  submission_id: number;
  submitter: string;
  time: string;
  contest_time: string;
  first_in_contest: boolean;
  first_for_problem: boolean;
  delivered: boolean;
  delivered_at: string | null;
}

export interface BalloonList {
  items: Balloon[];
  channel: Channel;
}

/** A contest's teams, organisations and groups (staff; pages/teams.tsx). */
export interface TeamGroup {
  id: string;
  icpc_id?: string;
  name: string;
  hidden: boolean;
  sortorder: number;
}

export interface TeamOrganization {
  id: string;
  icpc_id?: string;
  name: string;
  formal_name?: string;
  country?: string;
}

export interface TeamMemberDoc {
  username: string;
  display_name: string;
  role: string;
}

export interface TeamDoc {
  id: string;
  name: string;
  display_name: string | null;
  organization_id?: string;
  organization?: string;
  group_ids?: string[];
  hidden: boolean;
  members: TeamMemberDoc[];
}

export interface TeamsDoc {
  team_mode: boolean;
  groups: TeamGroup[];
  organizations: TeamOrganization[];
  teams: TeamDoc[];
}

export interface TeamImportResult {
  format: string;
  groups: number;
  organizations: number;
  teams: number;
  members: number;
}

/** The team file formats (webapp/internal/teamfmt). */
export const TEAM_FORMATS = ["teams.json", "teams.tsv", "csv", "organizations.json", "institutions.tsv", "groups.json", "groups.tsv"] as const;

export const api = {
  login: (username: string, password: string) =>
    request<SessionDoc>("/api/session", { method: "POST", body: { username, password } }),
  logout: () => request<void>("/api/session", { method: "DELETE" }),
  me: () => request<SessionDoc>("/api/me"),
  /** Registers a student; the answer is {user} (it does not log in). */
  register: (b: { username: string; password: string; display_name?: string; email?: string }) =>
    request<Partial<SessionDoc>>("/api/users", { method: "POST", body: b }),
  /** The registration mode, for anyone (the register page). */
  registrationSettings: () => request<RegistrationSettings>("/api/settings/registration"),
  /** Admins: sets the registration mode (and the domains). */
  setRegistrationSettings: (b: Partial<RegistrationSettings>) =>
    request<RegistrationSettings>("/api/settings/registration", { method: "PUT", body: b }),
  /** Changes the caller's password. The answer carries a new session: the
   * caller must keep its csrf_token (the old one is no longer valid). */
  changePassword: (current_password: string, new_password: string) =>
    request<SessionDoc>("/api/me/password", { method: "POST", body: { current_password, new_password } }),

  problems: async () => unwrapList<ProblemSummary>(await request<unknown>("/api/problems"), "problems"),
  problem: async (slug: string) => unwrapOne<Problem>(await request<unknown>(`/api/problems/${enc(slug)}`), "problem"),
  languages: async () => unwrapList<Language>(await request<unknown>("/api/languages"), "languages"),

  submit: (b: { problem: string; contest?: string; language: string; source: string }, idemKey: string) =>
    request<{ id: number; status: string }>("/api/submissions", {
      method: "POST",
      body: b,
      headers: { "Idempotency-Key": idemKey },
    }),
  /** A custom run ("run on my input"): 202 with its state (queued); the
   * rest comes on the user's live channel as custom_run events. */
  customRun: (b: { problem: string; contest?: string; language: string; source: string; input: string; samples?: boolean }) =>
    request<CustomRunState>("/api/custom-runs", { method: "POST", body: b }),
  getCustomRun: (id: number) => request<CustomRunState>(`/api/custom-runs/${id}`),
  submissions: async (f: { mine?: boolean; problem?: string; verdict?: string; contest?: string; cursor?: string | null }) =>
    unwrapList<SubmissionSummary>(
      await request<unknown>(
        `/api/submissions${qs({ mine: f.mine ? 1 : undefined, problem: f.problem, verdict: f.verdict, contest: f.contest, cursor: f.cursor })}`,
      ),
      "submissions",
    ),
  submission: async (id: number) => unwrapOne<SubmissionDetail>(await request<unknown>(`/api/submissions/${id}`), "submission"),

  /** Staff: a contest's balloons (first solves in order) and the live
   * channel that says when to read them again (pages/balloons.tsx). */
  balloons: (slug: string) => request<BalloonList>(`/api/contests/${enc(slug)}/balloons`),
  setBalloon: (slug: string, team: string, label: string, delivered: boolean) =>
    request<Balloon>(`/api/contests/${enc(slug)}/balloons/${enc(team)}/${enc(label)}`, { method: "PUT", body: { delivered } }),
  contests: async () => unwrapList<Contest>(await request<unknown>("/api/contests"), "contests"),
  contest: async (slug: string) => unwrapContest(await request<unknown>(`/api/contests/${enc(slug)}`)),
  scoreboard: async (slug: string) => unwrapOne<unknown>(await request<unknown>(`/api/contests/${enc(slug)}/scoreboard`), "scoreboard"),
  clarifications: async (slug: string) =>
    unwrapList<Clarification>(await request<unknown>(`/api/contests/${enc(slug)}/clarifications`), "clarifications"),
  askClarification: (slug: string, b: { problem?: string; question: string }) =>
    request<Clarification>(`/api/contests/${enc(slug)}/clarifications`, { method: "POST", body: b }),
  /** Staff: an announcement (public at once). */
  announce: (slug: string, b: { problem?: string; announcement: string }) =>
    request<unknown>(`/api/contests/${enc(slug)}/clarifications`, { method: "POST", body: b }),
  /** Staff: answer (or re-answer) a question; public: everyone sees it, else the asker only. */
  answerClarification: async (slug: string, id: number, b: { answer: string; public: boolean }) =>
    unwrapOne<Clarification>(
      await request<unknown>(`/api/contests/${enc(slug)}/clarifications/${id}/answer`, { method: "POST", body: b }),
      "clarification",
    ),
  registerContest: (slug: string) =>
    request<{ contest: string; registered: boolean }>(`/api/contests/${enc(slug)}/register`, { method: "POST" }),

  // admin
  createProblem: (b: Record<string, unknown>) => request<Problem>("/api/problems", { method: "POST", body: b }),
  updateProblem: (slug: string, b: Record<string, unknown>) =>
    request<Problem>(`/api/problems/${enc(slug)}`, { method: "PUT", body: b }),
  uploadTestdata: (slug: string, file: File) => {
    const fd = new FormData();
    fd.append("file", file, file.name);
    return request<{ hash: string; case_count: number; size_bytes?: number }>(`/api/problems/${enc(slug)}/testdata`, {
      method: "POST",
      body: fd,
    });
  },
  /** Staff: create a problem from an ICPC problem package (zip). An empty
   * slug lets the server take it from the package; empty languages mean all. */
  /** An output-only submission: a zip of outputs (N.out …) and/or one
   * file per case (case number → file). */
  submitOutputs: (b: { problem: string; contest?: string; zip?: File | null; cases?: [number, File][] }, idemKey: string) => {
    const fd = new FormData();
    fd.append("problem", b.problem);
    if (b.contest) fd.append("contest", b.contest);
    if (b.zip) fd.append("file", b.zip, b.zip.name);
    for (const [n, f] of b.cases ?? []) fd.append(`case_${n}`, f, f.name);
    return request<{ id: number; status: string }>("/api/submissions/outputs", { method: "POST", body: fd, headers: { "Idempotency-Key": idemKey } });
  },
  /** Staff: a problem's reference solutions and their latest runs. */
  solutions: (slug: string) => request<SolutionsDoc>(`/api/problems/${enc(slug)}/solutions`),
  /** Staff: runs every reference solution (202: they show as running). */
  runSolutions: (slug: string) => request<SolutionsDoc>(`/api/problems/${enc(slug)}/solutions/run`, { method: "POST" }),
  importProblem: (file: File, opts: { slug?: string; visibility?: string; languages?: string } = {}) => {
    const fd = new FormData();
    fd.append("file", file, file.name);
    const slug = opts.slug?.trim();
    if (slug) fd.append("slug", slug);
    if (opts.visibility) fd.append("visibility", opts.visibility);
    const langs = opts.languages?.trim();
    if (langs) fd.append("languages", langs);
    return request<ProblemImportResult>("/api/problems/import", { method: "POST", body: fd });
  },
  /** Staff: a contest's teams; admins change them (pages/teams.tsx). */
  teams: (slug: string) => request<TeamsDoc>(`/api/contests/${enc(slug)}/teams`),
  setTeamMode: (slug: string, enabled: boolean) =>
    request<{ team_mode: boolean }>(`/api/contests/${enc(slug)}/team-mode`, { method: "PUT", body: { enabled } }),
  importTeams: (slug: string, format: string, file: File) => {
    const fd = new FormData();
    fd.append("file", file, file.name);
    return request<TeamImportResult>(`/api/contests/${enc(slug)}/teams/import${qs({ format })}`, { method: "POST", body: fd });
  },
  teamsExportURL: (slug: string, format: string) => `/api/contests/${enc(slug)}/teams/export${qs({ format })}`,
  deleteTeamObject: (slug: string, kind: "teams" | "groups" | "organizations", id: string) =>
    request<void>(`/api/contests/${enc(slug)}/${kind}/${enc(id)}`, { method: "DELETE" }),
  createContest: (b: Record<string, unknown>) => request<Contest>("/api/contests", { method: "POST", body: b }),
  updateContest: (slug: string, b: Record<string, unknown>) =>
    request<Contest>(`/api/contests/${enc(slug)}`, { method: "PUT", body: b }),
  participants: async (slug: string) =>
    unwrapList<Participant>(await request<unknown>(`/api/contests/${enc(slug)}/participants`), "participants"),
  addParticipants: (slug: string, usernames: string[]) =>
    request<{ added: number; already: number }>(`/api/contests/${enc(slug)}/participants`, { method: "POST", body: { usernames } }),
  removeParticipant: (slug: string, username: string) =>
    request<void>(`/api/contests/${enc(slug)}/participants/${enc(username)}`, { method: "DELETE" }),
  importUsers: (file: File): Promise<ImportResult> => {
    const fd = new FormData();
    fd.append("file", file, file.name);
    return request<ImportResult>("/api/users/import", {
      method: "POST",
      body: fd,
    });
  },
  /** Admins: one page of users, ordered by id. */
  users: async (f: UserFilter = {}, signal?: AbortSignal) =>
    unwrapList<AdminUser>(
      await request<unknown>(
        `/api/users${qs({ q: f.q?.trim(), role: f.role, disabled: f.disabled === undefined ? undefined : String(f.disabled), cursor: f.cursor, limit: f.limit })}`,
        { signal },
      ),
      "users",
    ),
  updateUser: async (username: string, patch: UserPatch) =>
    unwrapOne<AdminUser>(await request<unknown>(`/api/users/${enc(username)}`, { method: "PUT", body: patch }), "user"),
  /** Admins: resets a password. Without one the server generates it; the
   * answer is the only place it is ever shown. */
  resetPassword: (username: string, password?: string) =>
    request<{ username: string; password: string }>(`/api/users/${enc(username)}/password`, {
      method: "POST",
      body: password === undefined ? {} : { password },
    }),
  judges: async () => unwrapList<JudgeInfo>(await request<unknown>("/api/judges"), "judges"),
  createJudge: (name: string) => request<{ name: string; token: string }>("/api/judges", { method: "POST", body: { name } }),
  deleteJudge: (name: string) => request<void>(`/api/judges/${enc(name)}`, { method: "DELETE" }),
  rejudge: (b: { submission?: number } & StatusFilter) =>
    request<{ queued: number }>("/api/rejudge", { method: "POST", body: dropEmpty(b) }),
  /** The status page: every submission staff may see (others: what the contest settings allow), newest first. */
  status: async (f: StatusFilter & { cursor?: string | null; limit?: number }, signal?: AbortSignal): Promise<StatusPage> => {
    const d = await request<{ submissions?: SubmissionSummary[]; next_cursor?: string | null; live?: Channel }>(
      `/api/submissions${qs({ ...f })}`,
      { signal },
    );
    return { items: d.submissions ?? [], next_cursor: d.next_cursor ?? null, live: d.live ?? null };
  },
  override: async (id: number, b: { verdict: string; reason: string; score?: number }) =>
    unwrapOne<SubmissionSummary>(await request<unknown>(`/api/submissions/${id}/override`, { method: "POST", body: b }), "submission"),
  adminProblems: async (q: string, cursor?: string | null) =>
    unwrapList<ProblemSummary & { id: number; updated_at: string }>(await request<unknown>(`/api/admin/problems${qs({ q, cursor })}`), "problems"),
  adminContests: async (q: string, cursor?: string | null) =>
    unwrapList<Contest>(await request<unknown>(`/api/admin/contests${qs({ q, cursor })}`), "contests"),
};

/** A status page filter (by name); empty fields do not filter. */
export interface StatusFilter {
  user?: string;
  problem?: string;
  contest?: string;
  verdict?: string;
  language?: string;
}

export interface StatusPage extends Page<SubmissionSummary> {
  /** The live channel that keeps the page current (null: none, e.g. anonymous). */
  live: Channel | null;
}

/** A jury override, as staff read it on a submission. */
export interface Override {
  by: string | null;
  at: string;
  old_verdict: string;
  new_verdict: string;
  old_score: number;
  new_score: number;
  reason: string;
}

function dropEmpty<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== "")) as Partial<T>;
}

/** exportURL is the staff zip of a contest's or a problem's sources. */
export function exportURL(what: { contest?: string; problem?: string }, finalOnly = false): string {
  return `/api/export${qs({ contest: what.contest, problem: what.problem, final: finalOnly ? 1 : undefined })}`;
}

/** scoreboardCsvURL is the staff CSV export of a contest's full standings. */
export function scoreboardCsvURL(slug: string): string {
  return `/api/contests/${enc(slug)}/scoreboard.csv`;
}

/** The answer of a CSV user import. passwords holds the passwords the
 * server generated for new users without one: shown once, never again. */
export interface ImportResult {
  created: number;
  updated?: number;
  errors?: { line: number; message: string }[];
  passwords?: Record<string, string>;
}

/** The answer of POST /api/problems/import. notes says what the package
 * had that was not imported or took a default. */
export interface ProblemImportResult {
  problem: Problem & { testdata_hash?: string };
  testdata: { hash: string; case_count: number; size_bytes: number; subtasks: number; checker: boolean };
  notes: string[];
}
