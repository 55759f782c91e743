import { describe, expect, it } from "vitest";
import { detectLang, format, pluralKey, TABLES, translate, type Key } from "../src/i18n";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("i18n table", () => {
  const en = Object.keys(TABLES.en).sort();
  const zh = Object.keys(TABLES.zh).sort();

  it("has every key in both languages", () => {
    expect(zh).toEqual(en);
    expect(en.length).toBeGreaterThan(100);
  });

  it("has no empty string", () => {
    for (const lang of ["en", "zh"] as const) {
      for (const [k, v] of Object.entries(TABLES[lang])) expect(v.trim(), `${lang} ${k}`).not.toBe("");
    }
  });

  it("uses the same placeholders in both languages", () => {
    for (const k of en as Key[]) expect(placeholders(TABLES.zh[k]), k).toEqual(placeholders(TABLES.en[k]));
  });

  it("really translates (Chinese strings are not copies of the English ones)", () => {
    const same = (en as Key[]).filter((k) => TABLES.zh[k] === TABLES.en[k]);
    // Only names, symbols and units may stay the same.
    const allowed = new Set(["app.name", "submissions.col.id", "contest.col.label", "contest.rule.icpc", "contest.rule.ioi", "common.kb", "common.mb"]);
    expect(same.filter((k) => !allowed.has(k))).toEqual([]);
  });

  it("has a name for every verdict", () => {
    for (const v of ["AC", "WA", "TLE", "MLE", "OLE", "RE", "CE", "PE", "SE", "SK", "pending", "queued", "compiling", "judging"]) {
      expect(en).toContain(`verdict.${v}`);
    }
  });
});

describe("translate", () => {
  it("fills placeholders", () => {
    expect(translate("en", "submission.title", { id: 42 })).toBe("Submission #42");
    expect(translate("zh", "submission.title", { id: 42 })).toBe("提交 #42");
    expect(translate("zh", "queue.position", { position: 3, eta: "45 s" })).toBe("你的提交排在第 3 位，预计还需 45 s。");
  });
  it("says 1 submission, not 1 submissions", () => {
    expect(translate("en", "admin.rejudged", { n: 1 })).toBe("1 submission queued for rejudging.");
    expect(translate("en", "admin.rejudged", { n: 2 })).toBe("2 submissions queued for rejudging.");
    expect(translate("en", "admin.rejudged", { n: 0 })).toBe("0 submissions queued for rejudging.");
    expect(translate("en", "queue.notice", { length: 1 })).toBe("Judges are busy: 1 submission waiting.");
    expect(translate("en", "board.cellFailed", { label: "A", attempts: "1" })).toBe("A: 1 wrong try");
    expect(translate("en", "board.cellSolved", { label: "A", time: 1, attempts: 1 })).toBe("A: solved at minute 1, 1 try");
    expect(translate("zh", "admin.rejudged", { n: 1 })).toBe("已将 1 个提交加入重测队列。");
    expect(pluralKey("submission.title", { id: 1 })).toBe("submission.title");
  });
  it("has a singular form for every count followed by a plural word", () => {
    const units = new Set(["common.ms"]);
    const counted = /\{(n|length|attempts|tries|cases|count)\} (?:\w+ )?\w+s\b/;
    const missing = Object.entries(TABLES.en)
      .filter(([k, v]) => !k.endsWith(".one") && !units.has(k) && counted.test(v))
      .map(([k]) => k)
      .filter((k) => !(`${k}.one` in TABLES.en));
    expect(missing).toEqual([]);
    for (const [k, v] of Object.entries(TABLES.en)) expect(v, k).not.toMatch(/\(s\)/);
  });
  it("leaves unknown placeholders alone", () => {
    expect(format("a {x} {y}", { x: 1 })).toBe("a 1 {y}");
  });
});

describe("detectLang", () => {
  it("prefers the saved choice, then the browser", () => {
    expect(detectLang("zh", ["en-US"])).toBe("zh");
    expect(detectLang("en", ["zh-CN"])).toBe("en");
    expect(detectLang(null, ["zh-CN", "en"])).toBe("zh");
    expect(detectLang(null, ["zh-TW"])).toBe("zh");
    expect(detectLang("fr", ["de", "en-GB"])).toBe("en");
    expect(detectLang(null, [])).toBe("en");
  });
});
