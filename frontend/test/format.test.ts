import { describe, expect, it } from "vitest";
import { contestTime, dateTime, fromZoneInput, offsetLabel, timeZones, toZoneInput, validZone, zoneOffset } from "../src/format";

describe("zones", () => {
  it.each([
    ["2026-01-15T12:00:00Z", "Europe/Berlin", 60],
    ["2026-07-15T12:00:00Z", "Europe/Berlin", 120],
    ["2026-07-15T12:00:00Z", "America/New_York", -240],
    ["2026-07-15T12:00:00Z", "Asia/Kolkata", 330],
    ["2026-07-15T12:00:00Z", "UTC", 0],
  ])("offset of %s in %s", (iso, zone, want) => {
    expect(zoneOffset(Date.parse(iso), zone)).toBe(want);
  });
  it("labels offsets", () => {
    expect([offsetLabel(0), offsetLabel(60), offsetLabel(-330), offsetLabel(345)]).toEqual(["UTC", "UTC+01:00", "UTC−05:30", "UTC+05:45"]);
  });
  it("knows zones", () => {
    expect(validZone("Europe/Berlin")).toBe(true);
    expect(validZone("Mars/Olympus")).toBe(false);
    expect(validZone("")).toBe(false);
    expect(timeZones()[0]).toBe("UTC");
    expect(timeZones()).toContain("Asia/Shanghai");
  });
});

describe("dateTime: ISO order with the zone", () => {
  it.each([
    ["2026-03-01T10:00:00Z", "UTC", "2026-03-01 10:00 UTC"],
    ["2026-03-01T10:00:00Z", "Europe/Berlin", "2026-03-01 11:00 UTC+01:00"],
    ["2026-03-01T10:00:00+01:00", "America/New_York", "2026-03-01 04:00 UTC−05:00"],
    ["2026-12-31T23:30:00Z", "Asia/Shanghai", "2027-01-01 07:30 UTC+08:00"],
  ])("%s in %s", (iso, zone, want) => {
    expect(dateTime(iso, "en", zone)).toBe(want);
    expect(dateTime(iso, "zh", zone)).toBe(want); // the same order in every language
  });
  it("passes through what it cannot read", () => {
    expect(dateTime("", "en", "UTC")).toBe("");
    expect(dateTime(null, "en")).toBe("");
    expect(dateTime("soon", "en", "UTC")).toBe("soon");
    expect(dateTime("2026-03-01T10:00:00Z", "en", "Mars/Olympus")).toBe("2026-03-01 10:00 UTC");
  });
});

describe("contestTime: the contest's zone, and the viewer's when different", () => {
  it("names the contest's zone", () => {
    expect(contestTime("2026-03-01T10:00:00+01:00", "Europe/Berlin", "Europe/Berlin")).toEqual({ contest: "2026-03-01 10:00 Europe/Berlin (UTC+01:00)" });
  });
  it("adds the viewer's own", () => {
    expect(contestTime("2026-03-01T10:00:00+01:00", "Europe/Berlin", "America/New_York")).toEqual({
      contest: "2026-03-01 10:00 Europe/Berlin (UTC+01:00)",
      viewer: "2026-03-01 04:00 America/New_York (UTC−05:00)",
    });
  });
  it("a zone with the same offset at that time is not repeated", () => {
    expect(contestTime("2026-03-01T10:00:00Z", "Europe/Paris", "Europe/Berlin").viewer).toBeUndefined();
  });
  it("no zone is UTC", () => {
    expect(contestTime("2026-03-01T10:00:00Z", undefined, "UTC")).toEqual({ contest: "2026-03-01 10:00 UTC (UTC)" });
  });
});

describe("the contest form's time fields", () => {
  it.each([
    ["2026-03-01 10:00", "Europe/Berlin", "2026-03-01T09:00:00.000Z"],
    ["2026-03-01T10:00", "Europe/Berlin", "2026-03-01T09:00:00.000Z"],
    ["2026-07-01 10:00", "Europe/Berlin", "2026-07-01T08:00:00.000Z"],
    ["2026-03-01 10:00:30", "UTC", "2026-03-01T10:00:30.000Z"],
    [" 2026-03-01 10:00 ", "Asia/Kolkata", "2026-03-01T04:30:00.000Z"],
    // 02:30 does not exist in Berlin on 2026-03-29: the offset before the change.
    ["2026-03-29 02:30", "Europe/Berlin", "2026-03-29T01:30:00.000Z"],
    // 02:30 happens twice on 2026-10-25: one of the two.
    ["2026-10-25 02:30", "Europe/Berlin", "2026-10-25T00:30:00.000Z"],
  ])("%s in %s", (v, zone, want) => {
    const got = fromZoneInput(v, zone);
    if (v.includes("10-25")) expect(["2026-10-25T00:30:00.000Z", "2026-10-25T01:30:00.000Z"]).toContain(got);
    else expect(got).toBe(want);
  });
  it.each(["", "03/01/2026 10:00", "2026-3-1 10:00", "2026-02-30 10:00", "2026-03-01 24:00", "2026-03-01", "2026-13-01 10:00"])("refuses %j", (v) => {
    expect(fromZoneInput(v, "UTC")).toBe("");
  });
  it("round-trips through the zone", () => {
    for (const zone of ["UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kathmandu"]) {
      const v = toZoneInput("2026-03-01T10:00:00Z", zone);
      expect(v).toMatch(/^2026-03-01 \d{2}:\d{2}$/);
      expect(fromZoneInput(v, zone)).toBe("2026-03-01T10:00:00.000Z");
    }
    expect(toZoneInput("2026-03-01T10:00:00+01:00", "Europe/Berlin")).toBe("2026-03-01 10:00");
    expect(toZoneInput("", "UTC")).toBe("");
  });
});
