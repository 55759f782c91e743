import { beforeEach, describe, expect, it } from "vitest";
import { LiveClient, type ConnState, type SocketLike } from "../src/live/client";
import { backoffCeiling, SUBPROTOCOL } from "../src/live/protocol";
import { golden } from "./golden";

class FakeSocket implements SocketLike {
  readyState = 0;
  protocol = SUBPROTOCOL;
  sent: string[] = [];
  closedWith: { code?: number; reason?: string } | null = null;
  onopen: SocketLike["onopen"] = null;
  onmessage: SocketLike["onmessage"] = null;
  onclose: SocketLike["onclose"] = null;
  onerror: SocketLike["onerror"] = null;
  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {}
  send(d: string) {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(d);
  }
  close(code?: number, reason?: string) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  // server side
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  recv(text: string) {
    this.onmessage?.({ data: text });
  }
  serverClose(code: number, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
  sentMessages() {
    return this.sent.map((s) => JSON.parse(s));
  }
}

/** A manual clock: timers run when advance() passes their time. */
class Clock {
  t = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private next = 1;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  now = () => this.t;
  pending() {
    return this.timers.map((x) => x.at - this.t);
  }
  advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const first = this.timers[0];
      if (!first || first.at > end) break;
      this.timers.shift();
      this.t = first.at;
      first.fn();
    }
    this.t = end;
  }
}

const sub = (id: number) => ({ kind: "submission" as const, id });
const compact = (type: string) => JSON.stringify(JSON.parse(golden(type)));
const eventWithSeq = (seq: number) => {
  const e = JSON.parse(golden("event"));
  e.data.seq = seq;
  return JSON.stringify(e);
};

describe("LiveClient", () => {
  let sockets: FakeSocket[];
  let clock: Clock;
  let client: LiveClient;
  let states: ConnState[];
  let rnd: number;

  beforeEach(() => {
    sockets = [];
    clock = new Clock();
    rnd = 0;
    client = new LiveClient({
      url: "ws://example.test/ws",
      socket: (url, protocols) => {
        const s = new FakeSocket(url, protocols);
        sockets.push(s);
        return s;
      },
      setTimeout: clock.setTimeout,
      clearTimeout: clock.clearTimeout,
      now: clock.now,
      random: () => rnd,
    });
    states = [];
    client.onState((s) => states.push(s));
  });

  function listen() {
    const got: string[] = [];
    const errors: string[] = [];
    const off = client.subscribe(sub(1042), {
      snapshot: (_s, seq) => got.push(`s${seq}`),
      event: (e) => got.push(`e${e.seq}`),
      error: (e) => errors.push(e.code),
    });
    return { got, errors, off };
  }

  it("connects lazily with the live subprotocol and subscribes on open", () => {
    expect(sockets).toHaveLength(0);
    listen();
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.url).toBe("ws://example.test/ws");
    expect(sockets[0]!.protocols).toEqual(["verdict.live.v1"]);
    sockets[0]!.open();
    const [m] = sockets[0]!.sentMessages();
    expect(m).toMatchObject({ v: 1, type: "subscribe", data: { channel: { kind: "submission", id: 1042 } } });
    expect(m.data.since_seq).toBeUndefined();
  });

  it("delivers the snapshot and events in order, without duplicates", () => {
    const { got } = listen();
    const ws = sockets[0]!;
    ws.open();
    ws.recv(compact("snapshot"));
    ws.recv(compact("event"));
    ws.recv(compact("event")); // duplicate
    ws.recv(eventWithSeq(5));
    expect(got).toEqual(["s3", "e4", "e5"]);
  });

  it("resubscribes from the last seq on a gap", () => {
    const { got } = listen();
    const ws = sockets[0]!;
    ws.open();
    ws.recv(compact("snapshot"));
    ws.recv(eventWithSeq(7));
    expect(got).toEqual(["s3"]);
    const last = ws.sentMessages().at(-1);
    expect(last).toMatchObject({ type: "subscribe", data: { channel: { kind: "submission", id: 1042 }, since_seq: 3 } });
    expect(sockets).toHaveLength(1); // same connection
  });

  it("reconnects with backoff after an abnormal close and resynchronises", () => {
    const { got } = listen();
    sockets[0]!.open();
    sockets[0]!.recv(compact("snapshot"));
    sockets[0]!.recv(compact("event"));
    sockets[0]!.serverClose(1006);
    expect(client.state).toMatchObject({ kind: "waiting", attempt: 0, delayMs: 250 });
    clock.advance(249);
    expect(sockets).toHaveLength(1);
    clock.advance(1);
    expect(sockets).toHaveLength(2);
    sockets[1]!.open();
    expect(sockets[1]!.sentMessages()[0]).toMatchObject({ type: "subscribe", data: { since_seq: 4 } });
    // The new hub answers with a fresh snapshot; events continue from it.
    const snap = JSON.parse(golden("snapshot"));
    snap.data.seq = 9;
    sockets[1]!.recv(JSON.stringify(snap));
    sockets[1]!.recv(eventWithSeq(10));
    expect(got).toEqual(["s3", "e4", "s9", "e10"]);
  });

  it("backs off exponentially while connections keep failing, and resets after a stable one", () => {
    listen();
    rnd = 0.999999;
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const ws = sockets.at(-1)!;
      ws.serverClose(1006);
      const st = client.state;
      if (st.kind !== "waiting") throw new Error(`state ${st.kind}`);
      delays.push(st.delayMs);
      clock.advance(st.delayMs);
    }
    expect(delays).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeiling(n)));
    // A connection that stays up past stableMs resets the schedule.
    sockets.at(-1)!.open();
    clock.advance(6000);
    sockets.at(-1)!.serverClose(1012);
    expect(client.state).toMatchObject({ kind: "waiting", attempt: 0 });
  });

  for (const [code, name] of [
    [4010, "session_expired"],
    [4002, "bad_token"],
    [4003, "forbidden"],
    [1000, "normal"],
    [4000, "bad_envelope"],
  ] as const) {
    it(`stops after close ${code} (${name})`, () => {
      listen();
      sockets[0]!.open();
      sockets[0]!.serverClose(code, "");
      expect(client.state).toMatchObject({ kind: "stopped", code });
      expect(clock.pending()).toEqual([]);
      clock.advance(60_000);
      expect(sockets).toHaveLength(1);
    });
  }

  for (const code of [1001, 1011, 1012, 4005, 4006, 4008]) {
    it(`retries after close ${code}`, () => {
      listen();
      sockets[0]!.open();
      sockets[0]!.serverClose(code);
      expect(client.state.kind).toBe("waiting");
      clock.advance(30_000);
      expect(sockets).toHaveLength(2);
    });
  }

  it("restart() reconnects after a stop (logged in again)", () => {
    listen();
    sockets[0]!.serverClose(4010);
    client.restart();
    expect(sockets).toHaveLength(2);
  });

  it("drops a connection that sends a bad envelope, and reconnects", () => {
    listen();
    sockets[0]!.open();
    sockets[0]!.recv('{"v":1,"type":"event","data":[]}');
    expect(sockets[0]!.closedWith?.code).toBe(4000);
    expect(client.state.kind).toBe("waiting");
    clock.advance(1000);
    expect(sockets).toHaveLength(2);
  });

  it("skips messages of unknown types", () => {
    const { got } = listen();
    sockets[0]!.open();
    sockets[0]!.recv('{"v":1,"type":"presence","data":{}}');
    sockets[0]!.recv(compact("snapshot"));
    expect(sockets[0]!.closedWith).toBeNull();
    expect(got).toEqual(["s3"]);
  });

  it("passes queue notices on", () => {
    const notices: unknown[] = [];
    client.onQueue((q) => notices.push(q));
    listen();
    sockets[0]!.open();
    sockets[0]!.recv(compact("queue"));
    expect(notices).toEqual([{ queue_length: 120, position: 17, eta_seconds: 45, overloaded: true }]);
  });

  it("reports a refused subscription and does not ask again", () => {
    const errors: string[] = [];
    client.subscribe({ kind: "submission", id: 99 }, { snapshot() {}, event() {}, error: (e) => errors.push(e.code) });
    sockets[0]!.open();
    sockets[0]!.recv(compact("error"));
    expect(errors).toEqual(["forbidden"]);
    sockets[0]!.serverClose(1001);
    clock.advance(1000);
    sockets[1]!.open();
    expect(sockets[1]!.sent).toEqual([]);
  });

  it("retries a subscription the hub refused as internal", () => {
    const { errors } = listen();
    sockets[0]!.open();
    sockets[0]!.recv(JSON.stringify({ v: 1, type: "error", id: "s1", data: { code: "internal" } }));
    expect(errors).toEqual(["internal"]);
    const before = sockets[0]!.sent.length;
    clock.advance(5000);
    expect(sockets[0]!.sent.length).toBe(before + 1);
  });

  it("shares one subscription between listeners and unsubscribes after the last", () => {
    const a = listen();
    const b = listen();
    sockets[0]!.open();
    expect(sockets[0]!.sentMessages().filter((m) => m.type === "subscribe")).toHaveLength(1);
    sockets[0]!.recv(compact("snapshot"));
    expect(a.got).toEqual(["s3"]);
    expect(b.got).toEqual(["s3"]);
    a.off();
    expect(sockets[0]!.sentMessages().some((m) => m.type === "unsubscribe")).toBe(false);
    b.off();
    expect(sockets[0]!.sentMessages().at(-1)).toMatchObject({ type: "unsubscribe", data: { channel: { kind: "submission", id: 1042 } } });
    // The socket lingers, then closes normally.
    clock.advance(10_000);
    expect(sockets[0]!.closedWith?.code).toBe(1000);
    expect(client.state.kind).toBe("idle");
  });

  it("nudge() reconnects at once while waiting", () => {
    listen();
    sockets[0]!.serverClose(1006);
    client.nudge();
    expect(sockets).toHaveLength(2);
    expect(states.map((s) => s.kind)).toEqual(["idle", "connecting", "waiting", "connecting"]);
  });
});
