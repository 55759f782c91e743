import { describe, expect, it } from "vitest";
import {
  backoffCeiling,
  backoffDelay,
  CLOSE_CODES,
  closeRetries,
  decode,
  DecodeError,
  DEFAULT_BACKOFF,
  encode,
  MAX_LIVE_MESSAGE,
  type Subscribe,
  type Unsubscribe,
} from "../src/live/protocol";
import { closeCodesGolden, golden, liveGoldenFiles } from "./golden";

describe("golden files", () => {
  const files = liveGoldenFiles();

  it("covers every live message type", () => {
    expect([...new Set(files.map((f) => f.type))].sort()).toEqual(["error", "event", "queue", "snapshot", "subscribe", "unsubscribe"]);
    for (const f of files) expect(f.name === f.type || f.name.startsWith(`${f.type}_`)).toBe(true);
  });

  for (const f of files) {
    it(`decodes ${f.name}.json`, () => {
      const m = decode(f.text);
      expect(m.type).toBe(f.type);
      const raw = JSON.parse(f.text);
      expect(m.id).toBe(raw.id);
      // Every field of the golden payload survives decoding unchanged.
      expect(m.data).toMatchObject(raw.data);
    });
    it(`decodes ${f.name}.json compacted`, () => {
      expect(decode(JSON.stringify(JSON.parse(f.text))).type).toBe(f.type);
    });
  }

  it("reads the snapshot and event payloads", () => {
    const s = decode(golden("snapshot"));
    if (s.type !== "snapshot") throw new Error("not a snapshot");
    expect(s.data.channel).toEqual({ kind: "submission", id: 1042 });
    expect(s.data.seq).toBe(3);
    const e = decode(golden("event"));
    if (e.type !== "event") throw new Error("not an event");
    expect(e.data.seq).toBe(4);
    expect(e.data.kind).toBe("cases");
    const q = decode(golden("queue"));
    if (q.type !== "queue") throw new Error("not a queue notice");
    expect(q.data).toEqual({ queue_length: 120, position: 17, eta_seconds: 45, overloaded: true });
  });

  it("encodes subscribe and unsubscribe exactly as the golden files", () => {
    for (const type of ["subscribe", "unsubscribe"] as const) {
      const raw = JSON.parse(golden(type));
      const text =
        type === "subscribe"
          ? encode("subscribe", raw.id, raw.data as Subscribe)
          : encode("unsubscribe", raw.id, raw.data as Unsubscribe);
      expect(JSON.parse(text)).toEqual(raw);
      expect(decode(text).type).toBe(type);
    }
  });
});

describe("decode rejects", () => {
  const ok = JSON.parse(golden("event"));
  const cases: [string, unknown, DecodeError["kind"]][] = [
    ["not JSON", "{", "malformed"],
    ["an array", [], "malformed"],
    ["missing v", { ...ok, v: undefined }, "malformed"],
    ["v as string", { ...ok, v: "1" }, "malformed"],
    ["version 2", { ...ok, v: 2 }, "unsupported_version"],
    ["missing type", { ...ok, type: undefined }, "malformed"],
    ["empty type", { ...ok, type: "" }, "empty_type"],
    ["a judge-link type", { ...ok, type: "task" }, "unknown_type"],
    ["a future type", { ...ok, type: "presence" }, "unknown_type"],
    ["null id", { ...ok, id: null }, "malformed"],
    ["numeric id", { ...ok, id: 7 }, "malformed"],
    ["over-long id", { ...ok, id: "x".repeat(129) }, "malformed"],
    ["missing data", { v: 1, type: "event" }, "malformed"],
    ["array data", { ...ok, data: [] }, "malformed"],
    ["event seq 0", { ...ok, data: { ...ok.data, seq: 0 } }, "invalid_payload"],
    ["event without kind", { ...ok, data: { ...ok.data, kind: "" } }, "invalid_payload"],
    ["event without body", { ...ok, data: { ...ok.data, body: null } }, "invalid_payload"],
    ["unknown channel kind", { ...ok, data: { ...ok.data, channel: { kind: "room", id: 1 } } }, "invalid_payload"],
    ["channel id 0", { ...ok, data: { ...ok.data, channel: { kind: "contest", id: 0 } } }, "invalid_payload"],
    ["queue channel id 1", { ...ok, data: { ...ok.data, channel: { kind: "queue", id: 1 } } }, "invalid_payload"],
    ["negative queue length", { v: 1, type: "queue", data: { queue_length: -1 } }, "invalid_payload"],
    ["error without code", { v: 1, type: "error", data: { message: "x" } }, "invalid_payload"],
    ["snapshot without state", { v: 1, type: "snapshot", data: { channel: { kind: "user", id: 1 }, seq: 1 } }, "invalid_payload"],
  ];
  for (const [name, msg, kind] of cases) {
    it(name, () => {
      const text = typeof msg === "string" ? msg : JSON.stringify(msg);
      let err: unknown;
      try {
        decode(text);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DecodeError);
      expect((err as DecodeError).kind).toBe(kind);
    });
  }

  it("a message over the size limit", () => {
    const big = JSON.stringify({ ...ok, data: { ...ok.data, body: { pad: "x".repeat(MAX_LIVE_MESSAGE) } } });
    expect(() => decode(big)).toThrowError(/too_large/);
  });

  it("accepts a queue channel with id 0 and unknown extra fields", () => {
    const m = decode(JSON.stringify({ v: 1, type: "event", extra: 1, data: { channel: { kind: "queue", id: 0 }, seq: 1, kind: "queue", body: {}, future: true } }));
    expect(m.type).toBe("event");
  });
});

describe("encode refuses what the hub rejects", () => {
  it("bad channels", () => {
    expect(() => encode("subscribe", "s1", { channel: { kind: "submission", id: 0 } })).toThrow();
    expect(() => encode("subscribe", "s1", { channel: { kind: "queue", id: 3 } })).toThrow();
    expect(() => encode("unsubscribe", "x".repeat(200), { channel: { kind: "user", id: 1 } })).toThrow();
  });
  it("omits since_seq 0", () => {
    expect(JSON.parse(encode("subscribe", "s9", { channel: { kind: "contest", id: 5 }, since_seq: 0 })).data).toEqual({ channel: { kind: "contest", id: 5 } });
  });
});

describe("close codes", () => {
  it("mirror close_codes.json exactly", () => {
    expect(CLOSE_CODES).toEqual(closeCodesGolden());
  });
  for (const c of closeCodesGolden()) {
    it(`${c.code} ${c.name} -> ${c.retry ? "retry" : "stop"}`, () => {
      expect(closeRetries(c.code)).toBe(c.retry);
    });
  }
  it("codes not in the table retry", () => {
    for (const code of [1005, 1014, 3000, 4011, 4999]) expect(closeRetries(code)).toBe(true);
  });
});

describe("backoff", () => {
  it("doubles from 500 ms up to the 30 s cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 10, 50, 1000].map((n) => backoffCeiling(n))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000,
    ]);
  });
  it("jitters within [ceiling/2, ceiling]", () => {
    for (let n = 0; n < 12; n++) {
      const c = backoffCeiling(n);
      expect(backoffDelay(n, 0)).toBe(Math.round(c / 2));
      expect(backoffDelay(n, 0.999999)).toBeLessThanOrEqual(c);
      expect(backoffDelay(n, 0.999999)).toBeGreaterThan(c * 0.99);
      const mid = backoffDelay(n, 0.5);
      expect(mid).toBeGreaterThanOrEqual(c / 2);
      expect(mid).toBeLessThanOrEqual(c);
    }
  });
  it("spreads clients apart", () => {
    const delays = new Set(Array.from({ length: 50 }, (_, i) => backoffDelay(4, i / 50)));
    expect(delays.size).toBe(50);
  });
  it("waits at least 5 s after an overload close", () => {
    expect(backoffDelay(0, 0, 4008)).toBe(DEFAULT_BACKOFF.overloadMinMs);
    expect(backoffDelay(0, 0, 1013)).toBe(DEFAULT_BACKOFF.overloadMinMs);
    expect(backoffDelay(0, 0, 1006)).toBe(250);
    expect(backoffDelay(6, 0, 4008)).toBe(15000);
  });
});
