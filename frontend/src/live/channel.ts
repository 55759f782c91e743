// Per-channel sequence tracking: what to do with each snapshot and event of
// one live channel. Pure (no sockets, no timers), so every rule below is
// unit-tested.
//
// Rules:
//   - subscribe() is called on every (re)subscribe; it returns the since_seq
//     to send (the last applied seq, 0 for none) and waits for the answer.
//   - The snapshot answering a subscribe is always taken, whatever its seq:
//     after a reconnect a different hub may answer, and the snapshot is the
//     full truth.
//   - Any other snapshot is taken only if it is not older than what we have.
//   - An event with seq <= last is a duplicate and dropped; seq == last + 1
//     is applied; seq > last + 1 is a gap: resubscribe with since_seq = last
//     (the hub replays or sends a fresh snapshot).
//   - Events that arrive while waiting for a snapshot are buffered and those
//     newer than the snapshot are applied after it, in order.

import type { LiveEvent, Snapshot } from "./protocol";

export type Action =
  | { kind: "snapshot"; seq: number; state: unknown }
  | { kind: "event"; event: LiveEvent }
  | { kind: "resync"; sinceSeq: number };

export type SyncPhase = "idle" | "awaiting" | "synced";

/** Buffer bound while awaiting a snapshot; beyond it we just resync. */
export const MAX_BUFFERED_EVENTS = 1000;

export class ChannelSync {
  private phase: SyncPhase = "idle";
  private last: number | null = null;
  private buffer: LiveEvent[] = [];

  get lastSeq(): number | null {
    return this.last;
  }
  get state(): SyncPhase {
    return this.phase;
  }

  /** Called when a subscribe is sent; returns its since_seq (0: none). */
  subscribe(): number {
    this.phase = "awaiting";
    this.buffer = [];
    return this.last ?? 0;
  }

  /** Called when the connection is lost: wait for the next subscribe. */
  disconnected(): void {
    if (this.phase !== "idle") this.phase = "awaiting";
    this.buffer = [];
  }

  snapshot(s: Snapshot): Action[] {
    if (this.phase !== "awaiting" && this.last !== null && s.seq < this.last) {
      return []; // an unsolicited, older snapshot
    }
    this.phase = "synced";
    this.last = s.seq;
    const out: Action[] = [{ kind: "snapshot", seq: s.seq, state: s.state }];
    const buffered = this.buffer.sort((a, b) => a.seq - b.seq);
    this.buffer = [];
    for (const ev of buffered) {
      out.push(...this.event(ev));
    }
    return out;
  }

  event(ev: LiveEvent): Action[] {
    if (this.phase === "idle") return [];
    if (this.last !== null && ev.seq <= this.last) return []; // duplicate or old
    if (this.phase === "awaiting") {
      // Resuming with a known state: a replayed next event can be applied
      // at once; anything else waits for the snapshot.
      if (this.last !== null && ev.seq === this.last + 1) {
        this.last = ev.seq;
        return [{ kind: "event", event: ev }];
      }
      if (this.buffer.length >= MAX_BUFFERED_EVENTS) {
        this.buffer = [];
        return [{ kind: "resync", sinceSeq: this.subscribe() }];
      }
      if (!this.buffer.some((b) => b.seq === ev.seq)) this.buffer.push(ev);
      return [];
    }
    if (this.last === null || ev.seq === this.last + 1) {
      this.last = ev.seq;
      return [{ kind: "event", event: ev }];
    }
    // A gap: we missed events. Ask again from what we have.
    return [{ kind: "resync", sinceSeq: this.subscribe() }];
  }
}
