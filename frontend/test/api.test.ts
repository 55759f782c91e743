import { describe, expect, it } from "vitest";
import { unwrapContest, unwrapList, unwrapOne } from "../src/api";

describe("API document shapes", () => {
  it("reads lists wrapped by name or as items", () => {
    expect(unwrapList({ problems: [{ slug: "a" }] }, "problems").items).toEqual([{ slug: "a" }]);
    expect(unwrapList({ items: [1], next_cursor: "c" }, "problems")).toEqual({ items: [1], next_cursor: "c" });
    expect(unwrapList({}, "problems").items).toEqual([]);
  });
  it("reads one document wrapped or bare", () => {
    expect(unwrapOne({ problem: { slug: "a" } }, "problem")).toEqual({ slug: "a" });
    expect(unwrapOne({ slug: "a", title: "A" }, "problem")).toEqual({ slug: "a", title: "A" });
  });
  it("merges a contest and its problems (docs/api.md shape)", () => {
    const c = unwrapContest({ contest: { slug: "demo", rule: "icpc" }, problems: [{ label: "A", slug: "a", title: "A", points: 100 }] });
    expect(c.slug).toBe("demo");
    expect(c.problems?.map((p) => p.label)).toEqual(["A"]);
    expect(unwrapContest({ slug: "x", rule: "ioi", problems: [] }).problems).toEqual([]);
  });
});
