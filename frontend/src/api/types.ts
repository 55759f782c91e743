// The documents of the web API as the pages use them. Every one the spec
// names is its generated type (./openapi.gen.ts, from docs/openapi.json);
// the few it describes only inline (balloons, teams) are written here and
// checked against the spec's shape at compile time (Conforms below). Only
// the client's own shapes (filters, pages) are plain interfaces.

import type { Channel, SubtaskScore } from "../live/protocol";
import type * as S from "./openapi.gen";
import type { ResponseOf } from "./openapi.gen";

export type User = S.User;
export type SessionDoc = S.Session;
export type ProblemSummary = S.ProblemSummary;
export type Problem = S.Problem;
/** What contestants see of their results (see docs/api.md, "Feedback policy"). */
export type FeedbackPolicy = NonNullable<S.Contest["feedback"]>;
export type Solution = S.Solution;
export type SolutionsDoc = S.Solutions;
export type Language = S.Language;
export type SubmissionSummary = S.Submission;
/** A submission with its cases; subtasks as the live protocol types them (its verdicts are a union). */
export type SubmissionDetail = Omit<S.SubmissionDetail, "subtasks"> & { subtasks?: SubtaskScore[] | null };
export type ContestProblem = S.ContestProblem;
/** A contest; api.contest() merges the ContestDoc's problems into it. */
export type Contest = S.Contest & { problems?: ContestProblem[] };
export type RegistrationSettings = S.RegistrationSettings;
export type Participant = S.Participant;
export type Clarification = S.Clarification;
export type JudgeInfo = S.Judge;
export type JudgeWarmth = S.JudgeWarmth;
export type AdminUser = S.AdminUser;
/** The fields PUT /api/users/{username} accepts; any subset. */
export type UserPatch = S.UpdateUserRequest;
export type ImportResult = S.ImportResult;
export type ProblemImportResult = S.ProblemImportResult;
export type Override = S.Override;
export type IssuedJudge = S.IssuedJudge;
export type TestdataResult = S.TestdataResult;
/** How far a background rejudge got (GET /api/rejudge/{job}). */
export type RejudgeStatus = S.RejudgeStatus;

export interface UserFilter {
  /** A username prefix, or part of the display name or e-mail. */
  q?: string;
  role?: AdminUser["role"];
  /** true: disabled accounts only; false: active only; undefined: both. */
  disabled?: boolean;
  cursor?: string | null;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string | null;
}

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

// ---- documents the spec describes inline -------------------------------------

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

/**
 * Conforms<Mine, Spec> is true when every field of Mine is in Spec with a
 * type Spec allows (a field the spec does not have, or has with another
 * type, makes it false); Check<true> then compiles.
 */
type Conforms<Mine, Spec> = [Exclude<keyof Mine, keyof Spec>] extends [never]
  ? { [K in keyof Mine & keyof Spec]: [Exclude<Mine[K], undefined>] extends [Exclude<Spec[K], undefined>] ? true : false }[keyof Mine & keyof Spec] extends true
    ? true
    : false
  : false;
type Check<T extends true> = T;
type Item<T> = T extends readonly (infer I)[] ? I : never;

export type SpecChecks = [
  Check<Conforms<Balloon, Item<NonNullable<ResponseOf<"contestBalloons">["items"]>>>>,
  Check<Conforms<TeamsDoc, ResponseOf<"getContestTeams">>>,
  Check<Conforms<TeamImportResult, ResponseOf<"importContestTeams">>>,
  Check<Conforms<SubtaskScore, S.SubtaskScore>>,
];
