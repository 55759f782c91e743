// LiveClient: the browser's one WebSocket to the hub (/ws, subprotocol
// verdict.live.v1). It multiplexes channel subscriptions, keeps each
// channel's sequence (ChannelSync), reconnects with exponential backoff and
// jitter when the close code says retry, and resubscribes every channel
// after a reconnect, so views resynchronise from snapshots without user
// action. The socket, timers and randomness are injected, so the tests
// drive it with a fake socket and a fake clock.

import { ChannelSync, type Action } from "./channel";
import {
  backoffDelay,
  channelKey,
  closeName,
  closeRetries,
  CLOSE_BAD_ENVELOPE,
  decode,
  DecodeError,
  DEFAULT_BACKOFF,
  encode,
  SUBPROTOCOL,
  type BackoffConfig,
  type Channel,
  type LiveError,
  type LiveEvent,
  type QueueNotice,
} from "./protocol";

/** The part of the browser's WebSocket the client uses. */
export interface SocketLike {
  readonly readyState: number;
  readonly protocol: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string; wasClean?: boolean }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

export interface ChannelListener {
  /** The channel's whole state (replace what you show). */
  snapshot(state: unknown, seq: number): void;
  /** One change, in order, never duplicated. */
  event(ev: LiveEvent): void;
  /** The hub refused the subscription. */
  error?(err: LiveError): void;
}

export type ConnState =
  | { kind: "idle" }
  | { kind: "connecting"; attempt: number }
  | { kind: "open" }
  | { kind: "waiting"; attempt: number; delayMs: number; code: number }
  | { kind: "stopped"; code: number; reason: string };

export interface LiveClientOptions {
  url: string;
  socket: SocketFactory;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  now?: () => number;
  random?: () => number;
  backoff?: BackoffConfig;
  /** A connection open at least this long resets the backoff. Default 5000 ms. */
  stableMs?: number;
  /** How long the socket stays open without subscriptions. Default 10000 ms. */
  lingerMs?: number;
  /** Delay before retrying a subscription the hub refused as internal/rate_limited. */
  resubscribeMs?: number;
  log?: (msg: string, attrs?: Record<string, unknown>) => void;
}

interface Sub {
  channel: Channel;
  sync: ChannelSync;
  listeners: Set<ChannelListener>;
  failed: boolean;
  retryTimer: unknown;
}

const OPEN = 1;

export class LiveClient {
  private readonly o: Required<Omit<LiveClientOptions, "log">> & Pick<LiveClientOptions, "log">;
  private ws: SocketLike | null = null;
  private subs = new Map<string, Sub>();
  private pendingIds = new Map<string, string>(); // envelope id -> channel key
  private nextId = 1;
  private attempt = 0;
  private openedAt = 0;
  private reconnectTimer: unknown = null;
  private lingerTimer: unknown = null;
  private conn: ConnState = { kind: "idle" };
  private stateListeners = new Set<(s: ConnState) => void>();
  private queueListeners = new Set<(q: QueueNotice) => void>();
  private lastQueue: QueueNotice | null = null;

  constructor(opts: LiveClientOptions) {
    this.o = {
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
      now: () => Date.now(),
      random: Math.random,
      backoff: DEFAULT_BACKOFF,
      stableMs: 5000,
      lingerMs: 10_000,
      resubscribeMs: 5000,
      ...opts,
    };
  }

  get state(): ConnState {
    return this.conn;
  }

  /** onState calls fn now and on every connection state change. */
  onState(fn: (s: ConnState) => void): () => void {
    this.stateListeners.add(fn);
    fn(this.conn);
    return () => this.stateListeners.delete(fn);
  }

  /** onQueue calls fn for every queue notice (and now with the last one). */
  onQueue(fn: (q: QueueNotice) => void): () => void {
    this.queueListeners.add(fn);
    if (this.lastQueue) fn(this.lastQueue);
    return () => this.queueListeners.delete(fn);
  }

  /**
   * subscribe starts (or joins) a channel. The listener gets the snapshot,
   * then events. Returns the function that leaves the channel.
   */
  subscribe(channel: Channel, listener: ChannelListener): () => void {
    const key = channelKey(channel);
    let sub = this.subs.get(key);
    if (!sub) {
      sub = { channel, sync: new ChannelSync(), listeners: new Set(), failed: false, retryTimer: null };
      this.subs.set(key, sub);
      sub.listeners.add(listener);
      this.cancelLinger();
      if (this.ws && this.ws.readyState === OPEN) this.sendSubscribe(sub);
      else this.ensureConnected();
    } else {
      sub.listeners.add(listener);
    }
    return () => this.leave(key, listener);
  }

  /** restart reconnects now after a stop (e.g. after the user logged in again). */
  restart(): void {
    if (this.conn.kind === "stopped" || this.conn.kind === "waiting") {
      this.clearReconnect();
      this.attempt = 0;
      this.setState({ kind: "idle" });
      if (this.subs.size > 0) this.connect();
    }
  }

  /** nudge reconnects at once if a retry is scheduled (the browser came online). */
  nudge(): void {
    if (this.conn.kind === "waiting") {
      this.clearReconnect();
      this.connect();
    }
  }

  /** close ends everything; the client can be used again by subscribing. */
  close(): void {
    this.clearReconnect();
    this.cancelLinger();
    for (const sub of this.subs.values()) this.o.clearTimeout(sub.retryTimer);
    this.subs.clear();
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onclose = null;
      ws.close(1000, "bye");
    }
    this.setState({ kind: "idle" });
  }

  // -------------------------------------------------------------------------

  private log(msg: string, attrs?: Record<string, unknown>): void {
    this.o.log?.(msg, attrs);
  }

  private setState(s: ConnState): void {
    this.conn = s;
    for (const fn of this.stateListeners) fn(s);
  }

  private leave(key: string, listener: ChannelListener): void {
    const sub = this.subs.get(key);
    if (!sub || !sub.listeners.delete(listener) || sub.listeners.size > 0) return;
    this.subs.delete(key);
    this.o.clearTimeout(sub.retryTimer);
    if (this.ws && this.ws.readyState === OPEN && !sub.failed) {
      this.ws.send(encode("unsubscribe", this.newId(key), { channel: sub.channel }));
    }
    if (this.subs.size === 0) this.startLinger();
  }

  private startLinger(): void {
    this.cancelLinger();
    this.lingerTimer = this.o.setTimeout(() => {
      this.lingerTimer = null;
      if (this.subs.size > 0) return;
      this.clearReconnect();
      const ws = this.ws;
      this.ws = null;
      if (ws) {
        ws.onclose = null;
        ws.close(1000, "idle");
      }
      this.attempt = 0;
      this.setState({ kind: "idle" });
    }, this.o.lingerMs);
  }

  private cancelLinger(): void {
    if (this.lingerTimer !== null) {
      this.o.clearTimeout(this.lingerTimer);
      this.lingerTimer = null;
    }
  }

  private clearReconnect(): void {
    if (this.reconnectTimer !== null) {
      this.o.clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
    }
  }

  private ensureConnected(): void {
    if (this.ws || this.reconnectTimer !== null || this.conn.kind === "stopped") return;
    this.connect();
  }

  private newId(key: string): string {
    const id = `s${this.nextId++}`;
    this.pendingIds.set(id, key);
    if (this.pendingIds.size > 256) {
      const first = this.pendingIds.keys().next().value;
      if (first !== undefined) this.pendingIds.delete(first);
    }
    return id;
  }

  private connect(): void {
    this.reconnectTimer = null;
    this.setState({ kind: "connecting", attempt: this.attempt });
    let ws: SocketLike;
    try {
      ws = this.o.socket(this.o.url, [SUBPROTOCOL]);
    } catch (e) {
      this.log("live: cannot open socket", { err: String(e) });
      this.scheduleReconnect(1006);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.openedAt = this.o.now();
      this.setState({ kind: "open" });
      for (const sub of this.subs.values()) {
        if (!sub.failed) this.sendSubscribe(sub);
      }
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      if (typeof ev.data !== "string") {
        this.drop(ws, CLOSE_BAD_ENVELOPE, "binary frame");
        return;
      }
      this.receive(ws, ev.data);
    };
    ws.onerror = () => {
      /* a close event follows */
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.closed(ev.code, ev.reason);
    };
  }

  /** drop closes a connection we judged broken and reconnects with backoff. */
  private drop(ws: SocketLike, code: number, reason: string): void {
    this.log("live: dropping connection", { code, reason });
    ws.onclose = null;
    try {
      ws.close(code, reason);
    } catch {
      /* already closing */
    }
    this.ws = null;
    for (const sub of this.subs.values()) sub.sync.disconnected();
    // We closed it, so the table's stop for 4000 does not apply: a hub bug
    // must not end live updates for good. Back off as for an abnormal close.
    this.scheduleReconnect(1006);
  }

  private closed(code: number, reason: string): void {
    for (const sub of this.subs.values()) sub.sync.disconnected();
    if (this.openedAt > 0 && this.o.now() - this.openedAt >= this.o.stableMs) this.attempt = 0;
    this.openedAt = 0;
    if (!closeRetries(code)) {
      this.log("live: closed for good", { code, name: closeName(code), reason });
      this.setState({ kind: "stopped", code, reason: reason || closeName(code) });
      return;
    }
    if (this.subs.size === 0) {
      this.setState({ kind: "idle" });
      return;
    }
    this.scheduleReconnect(code);
  }

  private scheduleReconnect(code: number): void {
    const delayMs = backoffDelay(this.attempt, this.o.random(), code, this.o.backoff);
    const attempt = this.attempt;
    this.attempt++;
    this.setState({ kind: "waiting", attempt, delayMs, code });
    this.clearReconnect();
    this.reconnectTimer = this.o.setTimeout(() => this.connect(), delayMs);
  }

  private sendSubscribe(sub: Sub): void {
    if (!this.ws || this.ws.readyState !== OPEN) return;
    const since = sub.sync.subscribe();
    const key = channelKey(sub.channel);
    this.ws.send(encode("subscribe", this.newId(key), { channel: sub.channel, since_seq: since }));
  }

  private receive(ws: SocketLike, text: string): void {
    let msg;
    try {
      msg = decode(text);
    } catch (e) {
      if (e instanceof DecodeError && e.kind === "unknown_type") {
        this.log("live: skipping unknown message type", { err: e.message });
        return;
      }
      this.drop(ws, CLOSE_BAD_ENVELOPE, "bad envelope");
      return;
    }
    switch (msg.type) {
      case "snapshot": {
        const sub = this.subs.get(channelKey(msg.data.channel));
        if (msg.id) this.pendingIds.delete(msg.id);
        if (sub) this.run(sub, sub.sync.snapshot(msg.data));
        if (msg.data.channel.kind === "queue") this.queue(msg.data.state as QueueNotice);
        return;
      }
      case "event": {
        const sub = this.subs.get(channelKey(msg.data.channel));
        if (sub) this.run(sub, sub.sync.event(msg.data));
        if (msg.data.channel.kind === "queue") this.queue(msg.data.body as QueueNotice);
        return;
      }
      case "queue":
        this.queue(msg.data);
        return;
      case "error": {
        const key = msg.data.channel
          ? channelKey(msg.data.channel)
          : msg.id
            ? this.pendingIds.get(msg.id)
            : undefined;
        if (msg.id) this.pendingIds.delete(msg.id);
        const sub = key ? this.subs.get(key) : undefined;
        this.log("live: hub refused", { code: msg.data.code, message: msg.data.message, channel: key });
        if (!sub) return;
        for (const l of sub.listeners) l.error?.(msg.data);
        if (msg.data.code === "internal" || msg.data.code === "rate_limited") {
          this.o.clearTimeout(sub.retryTimer);
          sub.retryTimer = this.o.setTimeout(() => {
            sub.retryTimer = null;
            if (this.subs.get(key!) === sub) this.sendSubscribe(sub);
          }, this.o.resubscribeMs);
        } else {
          sub.failed = true; // forbidden, not_found, bad_request: asking again will not help
        }
        return;
      }
      default:
        return; // subscribe/unsubscribe are never sent by the hub
    }
  }

  private queue(q: QueueNotice): void {
    const n: QueueNotice = {
      queue_length: q?.queue_length ?? 0,
      position: q?.position ?? 0,
      eta_seconds: q?.eta_seconds ?? 0,
      overloaded: q?.overloaded ?? false,
    };
    this.lastQueue = n;
    for (const fn of this.queueListeners) fn(n);
  }

  private run(sub: Sub, actions: Action[]): void {
    for (const a of actions) {
      switch (a.kind) {
        case "snapshot":
          for (const l of sub.listeners) l.snapshot(a.state, a.seq);
          break;
        case "event":
          for (const l of sub.listeners) l.event(a.event);
          break;
        case "resync":
          this.log("live: sequence gap; resubscribing", { channel: channelKey(sub.channel), since: a.sinceSeq });
          if (this.ws && this.ws.readyState === OPEN) {
            this.ws.send(encode("subscribe", this.newId(channelKey(sub.channel)), { channel: sub.channel, since_seq: a.sinceSeq }));
          }
          break;
      }
    }
  }
}

/** browserSocket opens a real WebSocket to /ws on the page's origin. */
export function liveURL(loc: { protocol: string; host: string }): string {
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/ws`;
}
