import { describe, expect, it } from "vitest";
import { ChannelSync, type Action } from "../src/live/channel";
import type { Channel, LiveEvent, Snapshot } from "../src/live/protocol";

const ch: Channel = { kind: "submission", id: 7 };
const snap = (seq: number, state: unknown = { seq }): Snapshot => ({ channel: ch, seq, state });
const ev = (seq: number): LiveEvent => ({ channel: ch, seq, kind: "cases", body: { seq } });
const kinds = (as: Action[]) => as.map((a) => (a.kind === "event" ? `e${a.event.seq}` : a.kind === "snapshot" ? `s${a.seq}` : `r${a.sinceSeq}`));

describe("ChannelSync", () => {
  it("takes the snapshot, then contiguous events", () => {
    const s = new ChannelSync();
    expect(s.subscribe()).toBe(0);
    expect(kinds(s.snapshot(snap(3)))).toEqual(["s3"]);
    expect(kinds(s.event(ev(4)))).toEqual(["e4"]);
    expect(kinds(s.event(ev(5)))).toEqual(["e5"]);
    expect(s.lastSeq).toBe(5);
    expect(s.state).toBe("synced");
  });

  it("drops duplicates and old events", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.snapshot(snap(3));
    s.event(ev(4));
    expect(s.event(ev(4))).toEqual([]);
    expect(s.event(ev(2))).toEqual([]);
    expect(s.event(ev(3))).toEqual([]);
    expect(s.lastSeq).toBe(4);
  });

  it("resyncs from the last seq on a gap, once", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.snapshot(snap(3));
    expect(kinds(s.event(ev(5)))).toEqual(["r3"]);
    expect(s.state).toBe("awaiting");
    // More events of the same burst wait; no second resubscribe.
    expect(s.event(ev(6))).toEqual([]);
    // The answer: a snapshot at 5, then the buffered 6 applies.
    expect(kinds(s.snapshot(snap(5)))).toEqual(["s5", "e6"]);
    expect(s.lastSeq).toBe(6);
  });

  it("applies replayed events while resuming", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.snapshot(snap(3));
    s.event(ev(5)); // gap -> awaiting, since 3
    expect(kinds(s.event(ev(4)))).toEqual(["e4"]);
    expect(kinds(s.event(ev(5)))).toEqual(["e5"]);
  });

  it("buffers events that arrive before the first snapshot", () => {
    const s = new ChannelSync();
    s.subscribe();
    expect(s.event(ev(5))).toEqual([]);
    expect(s.event(ev(4))).toEqual([]);
    expect(s.event(ev(3))).toEqual([]);
    expect(kinds(s.snapshot(snap(3)))).toEqual(["s3", "e4", "e5"]);
  });

  it("detects a gap inside the buffer", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.event(ev(6));
    expect(kinds(s.snapshot(snap(3)))).toEqual(["s3", "r3"]);
  });

  it("takes the answer to a resubscribe even when its seq is lower (another hub)", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.snapshot(snap(40));
    s.disconnected();
    expect(s.subscribe()).toBe(40);
    expect(kinds(s.snapshot(snap(2)))).toEqual(["s2"]);
    expect(kinds(s.event(ev(3)))).toEqual(["e3"]);
  });

  it("ignores an unsolicited older snapshot", () => {
    const s = new ChannelSync();
    s.subscribe();
    s.snapshot(snap(10));
    expect(s.snapshot(snap(9))).toEqual([]);
    expect(kinds(s.snapshot(snap(12)))).toEqual(["s12"]);
  });

  it("ignores everything before it is subscribed", () => {
    const s = new ChannelSync();
    expect(s.event(ev(1))).toEqual([]);
  });
});
