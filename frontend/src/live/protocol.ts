// The live link of the Verdict wire protocol (browser <-> hub), mirrored
// from internal/protocol (live.go, envelope.go, close.go). Pure: no I/O.
// The tests decode every golden file of internal/protocol/testdata/live and
// compare the close-code table with testdata/close_codes.json, so a change
// on the Go side that is not mirrored here fails `npm test`.

export const VERSION = 1;
export const SUBPROTOCOL = "verdict.live.v1";
/** Largest message the hub sends (MaxLiveMessage, 4 MiB: a whole scoreboard of thousands). */
export const MAX_LIVE_MESSAGE = 4 << 20;
/** Largest message the hub reads from a browser (MaxLiveInbound, 4 KiB). */
export const MAX_LIVE_INBOUND = 4 << 10;
export const MAX_ID_LENGTH = 128;

/** "status": the status page (id 0: the whole site, staff only; else a contest).
 * "balloons": a contest's balloon list changed (staff only; re-read it). */
export type ChannelKind = "submission" | "user" | "contest" | "queue" | "clarifications" | "status" | "balloons";
const CHANNEL_KINDS: readonly ChannelKind[] = ["submission", "user", "contest", "queue", "clarifications", "status", "balloons"];

export interface Channel {
  kind: ChannelKind;
  id: number;
}

export type LiveType = "subscribe" | "unsubscribe" | "snapshot" | "event" | "queue" | "error";
const LIVE_TYPES: readonly LiveType[] = ["subscribe", "unsubscribe", "snapshot", "event", "queue", "error"];

/** Verdicts and statuses (protocol.Verdict). */
export type Verdict =
  | "AC" | "WA" | "TLE" | "MLE" | "OLE" | "RE" | "CE" | "PE" | "SE" | "SK"
  | "pending" | "queued" | "compiling" | "judging";
export const FINAL_VERDICTS: readonly Verdict[] = ["AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "PE", "SE", "SK"];
export const STATUSES: readonly Verdict[] = ["pending", "queued", "compiling", "judging"];

export function isFinal(v: string | null | undefined): boolean {
  return v != null && (FINAL_VERDICTS as readonly string[]).includes(v);
}
export function isVerdict(v: unknown): v is Verdict {
  return typeof v === "string" && (isFinal(v) || (STATUSES as readonly string[]).includes(v));
}

export interface CaseResult {
  case: number;
  verdict: Verdict;
  cpu_ms: number;
  wall_ms: number;
  memory_kib: number;
  score: number;
  message?: string;
}

export interface SubmissionState {
  submission_id: number;
  status: Verdict;
  score: number;
  compile_message?: string;
  cases?: CaseResult[];
  /** The feedback policy the hub applied (absent for staff); "closed" with status pending: results hidden until the contest ends. */
  feedback?: string;
  /** Each subtask's score as of this state (whole in every cases event: replaces the earlier). */
  subtasks?: SubtaskScore[];
  /** first_failure: the first failing case as of this state (absent: none yet). */
  first_failure?: number;
}

/** One subtask's result (IOI-mode problems, under the policies that show scores). */
export interface SubtaskScore {
  name: string;
  points: number;
  /** Points earned; 0 until every case of the subtask is judged. */
  score: number;
  /** AC once every case passed; the first failing verdict once one failed; absent while judging. */
  verdict?: Verdict;
  cases: number[];
}

/** One run of a custom run: on the user's input (case 0) or a sample. */
export interface CustomOutput {
  case: number;
  verdict: Verdict;
  cpu_ms: number;
  wall_ms: number;
  memory_kib: number;
  exit_code: number;
  stdout: string;
  stderr?: string;
  stdout_truncated?: boolean;
  stderr_truncated?: boolean;
  message?: string;
}

/** A custom run's state: the body of a "custom_run" event on the user channel. */
export interface CustomRunState {
  run_id: number;
  problem_id: number;
  status: Verdict;
  compile_message?: string;
  runs?: CustomOutput[];
}

export interface QueueNotice {
  queue_length: number;
  position: number;
  eta_seconds: number;
  overloaded: boolean;
}

export interface Subscribe {
  channel: Channel;
  since_seq?: number;
}
export interface Unsubscribe {
  channel: Channel;
}
export interface Snapshot {
  channel: Channel;
  seq: number;
  state: unknown;
}
export type EventKind = "cases" | "status" | "scoreboard" | "clarification" | "custom_run" | string;
export interface LiveEvent {
  channel: Channel;
  seq: number;
  kind: EventKind;
  body: unknown;
}
export interface LiveError {
  code: "bad_request" | "forbidden" | "not_found" | "rate_limited" | "internal" | string;
  message?: string;
  channel?: Channel;
}

export type Message =
  | { type: "subscribe"; id?: string; data: Subscribe }
  | { type: "unsubscribe"; id?: string; data: Unsubscribe }
  | { type: "snapshot"; id?: string; data: Snapshot }
  | { type: "event"; id?: string; data: LiveEvent }
  | { type: "queue"; id?: string; data: QueueNotice }
  | { type: "error"; id?: string; data: LiveError };

/** Why decode refused a message; mirrors the Go sentinels. */
export type DecodeErrorKind =
  | "malformed"
  | "unsupported_version"
  | "empty_type"
  | "unknown_type"
  | "too_large"
  | "invalid_payload";

export class DecodeError extends Error {
  constructor(
    readonly kind: DecodeErrorKind,
    message: string,
  ) {
    super(`protocol: decode live message: ${kind}: ${message}`);
    this.name = "DecodeError";
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

function channelError(c: unknown): string | null {
  if (!isObj(c)) return "channel is not an object";
  if (typeof c.kind !== "string" || !(CHANNEL_KINDS as readonly string[]).includes(c.kind)) {
    return `channel kind ${JSON.stringify(c.kind)} unknown`;
  }
  if (!isInt(c.id)) return "channel id is not an integer";
  if (c.kind === "queue") return c.id === 0 ? null : `queue channel id ${c.id}, want 0`;
  if (c.kind === "status") return c.id >= 0 ? null : `status channel id ${c.id} < 0`;
  return c.id >= 1 ? null : `channel ${c.kind} id ${c.id} < 1`;
}

/** validChannel reports whether c is a channel the hub accepts. */
export function validChannel(c: unknown): c is Channel {
  return channelError(c) === null;
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function payloadError(type: LiveType, d: Obj): string | null {
  switch (type) {
    case "subscribe": {
      const e = channelError(d.channel);
      if (e) return e;
      if (present(d.since_seq) && !(isInt(d.since_seq) && d.since_seq >= 0)) return "since_seq is not a non-negative integer";
      return null;
    }
    case "unsubscribe":
      return channelError(d.channel);
    case "snapshot": {
      const e = channelError(d.channel);
      if (e) return e;
      if (!isInt(d.seq) || d.seq < 0) return "seq is not a non-negative integer";
      if (!present(d.state)) return "state is missing";
      return null;
    }
    case "event": {
      const e = channelError(d.channel);
      if (e) return e;
      if (!isInt(d.seq) || d.seq < 1) return "seq must be >= 1";
      if (typeof d.kind !== "string" || d.kind === "") return "kind is empty";
      if (!present(d.body)) return "body is missing";
      return null;
    }
    case "queue":
      for (const f of ["queue_length", "position", "eta_seconds"] as const) {
        if (present(d[f]) && !(isInt(d[f]) && (d[f] as number) >= 0)) return `${f} is not a non-negative integer`;
      }
      if (present(d.overloaded) && typeof d.overloaded !== "boolean") return "overloaded is not a boolean";
      return null;
    case "error": {
      if (typeof d.code !== "string" || d.code === "") return "code is empty";
      if (present(d.message) && typeof d.message !== "string") return "message is not a string";
      if (present(d.channel)) return channelError(d.channel);
      return null;
    }
  }
}

/** Fills the zero values of optional fields (Go omits them). */
function normalise(type: LiveType, d: Obj): Obj {
  if (type === "queue") {
    return {
      queue_length: d.queue_length ?? 0,
      position: d.position ?? 0,
      eta_seconds: d.eta_seconds ?? 0,
      overloaded: d.overloaded ?? false,
      ...d,
    };
  }
  return d;
}

/** Byte length of s in UTF-8. */
function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * decode parses and validates one live-link message as internal/protocol's
 * Decode does: size, JSON object, version, type of the live link, id, data
 * object, then the payload's own rules. Throws DecodeError; a receiver skips
 * messages whose kind is "unknown_type" (additive protocol changes) and
 * treats every other error as a broken connection.
 */
export function decode(text: string): Message {
  if (utf8Length(text) > MAX_LIVE_MESSAGE) {
    throw new DecodeError("too_large", `${utf8Length(text)} bytes, limit ${MAX_LIVE_MESSAGE}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new DecodeError("malformed", (e as Error).message);
  }
  if (!isObj(raw)) throw new DecodeError("malformed", "not a JSON object");
  if (!present(raw.v)) throw new DecodeError("malformed", 'missing "v"');
  if (!isInt(raw.v)) throw new DecodeError("malformed", '"v" is not an integer');
  if (raw.v !== VERSION) throw new DecodeError("unsupported_version", `${raw.v} (want ${VERSION})`);
  if (!present(raw.type)) throw new DecodeError("malformed", 'missing "type"');
  if (typeof raw.type !== "string") throw new DecodeError("malformed", '"type" is not a string');
  if (raw.type === "") throw new DecodeError("empty_type", "empty message type");
  if (!(LIVE_TYPES as readonly string[]).includes(raw.type)) {
    throw new DecodeError("unknown_type", JSON.stringify(raw.type));
  }
  const type = raw.type as LiveType;
  let id: string | undefined;
  if ("id" in raw) {
    if (raw.id === null) throw new DecodeError("malformed", '"id" is null');
    if (typeof raw.id !== "string") throw new DecodeError("malformed", '"id" is not a string');
    if (utf8Length(raw.id) > MAX_ID_LENGTH) throw new DecodeError("malformed", `id is ${utf8Length(raw.id)} bytes, limit ${MAX_ID_LENGTH}`);
    id = raw.id;
  }
  if (!("data" in raw)) throw new DecodeError("malformed", 'missing "data"');
  if (!isObj(raw.data)) throw new DecodeError("malformed", '"data" is not a JSON object');
  const err = payloadError(type, raw.data);
  if (err) throw new DecodeError("invalid_payload", err);
  const msg = { type, data: normalise(type, raw.data) } as unknown as Message;
  if (id !== undefined && id !== "") msg.id = id;
  return msg;
}

/**
 * encode builds the wire form of a browser -> hub message (subscribe or
 * unsubscribe), refusing what the hub would reject.
 */
export function encode(type: "subscribe", id: string, data: Subscribe): string;
export function encode(type: "unsubscribe", id: string, data: Unsubscribe): string;
export function encode(type: "subscribe" | "unsubscribe", id: string, data: Subscribe | Unsubscribe): string {
  const d: Obj = { channel: { kind: data.channel.kind, id: data.channel.id } };
  if (type === "subscribe") {
    const since = (data as Subscribe).since_seq;
    if (since !== undefined && since > 0) d.since_seq = since;
  }
  const err = payloadError(type, d);
  if (err) throw new Error(`protocol: encode ${type}: ${err}`);
  if (utf8Length(id) > MAX_ID_LENGTH) throw new Error(`protocol: encode ${type}: id too long`);
  const env: Obj = { v: VERSION, type };
  if (id !== "") env.id = id;
  env.data = d;
  const s = JSON.stringify(env);
  if (utf8Length(s) > MAX_LIVE_INBOUND) throw new Error(`protocol: encode ${type}: message too large`);
  return s;
}

export function channelKey(c: Channel): string {
  return `${c.kind}:${c.id}`;
}

// ---------------------------------------------------------------------------
// Close codes (protocol.CloseCodes). Codes not in the table retry.

export interface CloseCode {
  code: number;
  name: string;
  retry: boolean;
}

export const CLOSE_CODES: readonly CloseCode[] = [
  { code: 1000, name: "normal", retry: false },
  { code: 1001, name: "going_away", retry: true },
  { code: 1002, name: "protocol_error", retry: false },
  { code: 1003, name: "unsupported_data", retry: false },
  { code: 1006, name: "abnormal", retry: true },
  { code: 1007, name: "invalid_payload", retry: false },
  { code: 1008, name: "policy_violation", retry: true },
  { code: 1009, name: "message_too_big", retry: false },
  { code: 1011, name: "internal_error", retry: true },
  { code: 1012, name: "service_restart", retry: true },
  { code: 1013, name: "try_again_later", retry: true },
  { code: 4000, name: "bad_envelope", retry: false },
  { code: 4001, name: "unsupported_version", retry: false },
  { code: 4002, name: "bad_token", retry: false },
  { code: 4003, name: "forbidden", retry: false },
  { code: 4004, name: "superseded", retry: false },
  { code: 4005, name: "hub_shutdown", retry: true },
  { code: 4006, name: "slow_consumer", retry: true },
  { code: 4007, name: "heartbeat_timeout", retry: true },
  { code: 4008, name: "overloaded", retry: true },
  { code: 4009, name: "drained", retry: false },
  { code: 4010, name: "session_expired", retry: false },
];

const closeByCode = new Map(CLOSE_CODES.map((c) => [c.code, c]));

/** closeRetries says whether a client reconnects after close code `code`. */
export function closeRetries(code: number): boolean {
  return closeByCode.get(code)?.retry ?? true;
}

export function closeName(code: number): string {
  return closeByCode.get(code)?.name ?? `close_${code}`;
}

/** Close codes after which the hub asks us to wait longer than usual. */
export const OVERLOAD_CODES: readonly number[] = [1013, 4008];
export const CLOSE_SESSION_EXPIRED = 4010;
export const CLOSE_BAD_TOKEN = 4002;
export const CLOSE_BAD_ENVELOPE = 4000;

// ---------------------------------------------------------------------------
// Reconnect backoff: exponential with "equal jitter" (half the delay fixed,
// half random), so a fleet of browsers cut by a hub restart does not return
// in lock step, while no client retries sooner than half its step.

export interface BackoffConfig {
  /** First delay in ms (attempt 0). Default 500. */
  baseMs: number;
  /** Largest delay in ms. Default 30000. */
  maxMs: number;
  /** Lower bound after an overload close (1013, 4008). Default 5000. */
  overloadMinMs: number;
}

export const DEFAULT_BACKOFF: BackoffConfig = { baseMs: 500, maxMs: 30_000, overloadMinMs: 5_000 };

/** backoffCeiling is the un-jittered delay of attempt n (0-based). */
export function backoffCeiling(attempt: number, cfg: BackoffConfig = DEFAULT_BACKOFF): number {
  const exp = Math.min(attempt, 30); // 2^30 * base overflows nothing but is already past any cap
  return Math.min(cfg.maxMs, cfg.baseMs * 2 ** exp);
}

/**
 * backoffDelay is the delay before reconnect attempt n (0-based), in ms.
 * random is a number in [0, 1) (Math.random in production).
 */
export function backoffDelay(
  attempt: number,
  random: number,
  closeCode?: number,
  cfg: BackoffConfig = DEFAULT_BACKOFF,
): number {
  const ceil = backoffCeiling(attempt, cfg);
  let d = ceil / 2 + (random * ceil) / 2;
  if (closeCode !== undefined && OVERLOAD_CODES.includes(closeCode)) d = Math.max(d, cfg.overloadMinMs);
  return Math.round(d);
}
