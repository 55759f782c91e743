// Every string the app shows, in English and Simplified Chinese, and t().
// The tables are split by area (./app, ./problems, ./contests, ./admin,
// ./staff), each with both languages side by side; merged here into one:
// `en` defines the keys (TypeScript checks every t("...") call against it),
// `zh` must have exactly the same keys (checked by the type and by
// test/i18n.test.ts, which also checks the {placeholders} match).

import * as admin from "./admin";
import * as app from "./app";
import * as awards from "./awards";
import * as contests from "./contests";
import * as problems from "./problems";
import * as staff from "./staff";

const en = { ...app.en, ...problems.en, ...contests.en, ...admin.en, ...staff.en, ...awards.en } as const;

export type Key = keyof typeof en;
export type Table = Record<Key, string>;

const zh: Table = { ...app.zh, ...problems.zh, ...contests.zh, ...admin.zh, ...staff.zh, ...awards.zh };

export type Lang = "en" | "zh";
export const LANGS: readonly { id: Lang; label: string; htmlLang: string }[] = [
  { id: "en", label: "English", htmlLang: "en" },
  { id: "zh", label: "简体中文", htmlLang: "zh-CN" },
];
export const TABLES: Record<Lang, Table> = { en, zh };

const STORAGE_KEY = "verdict.lang";

/** format fills {name} placeholders; unknown ones are left as they are. */
export function format(s: string, params?: Record<string, string | number>): string {
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));
}

/** The parameters that count something, in the order a plural form is chosen by. */
const COUNT_PARAMS = ["n", "length", "attempts", "tries", "cases", "count"] as const;

/**
 * pluralKey is key's singular form `key.one` when the first count parameter
 * in params is 1 and the table has that form ("1 submission", not
 * "1 submissions"); else key.
 */
export function pluralKey(key: Key, params?: Record<string, string | number>): Key {
  if (!params) return key;
  const p = COUNT_PARAMS.find((c) => params[c] !== undefined && params[c] !== "");
  if (p === undefined || Number(params[p]) !== 1) return key;
  const one = `${key}.one`;
  return one in en ? (one as Key) : key;
}

/** translate looks a key up in one language's table (English as fallback). */
export function translate(lang: Lang, key: Key, params?: Record<string, string | number>): string {
  const k = pluralKey(key, params);
  return format(TABLES[lang][k] ?? en[k] ?? key, params);
}

/** detectLang: the saved choice, else the browser's preference. */
export function detectLang(saved: string | null, navigatorLangs: readonly string[]): Lang {
  if (saved === "en" || saved === "zh") return saved;
  for (const l of navigatorLangs) {
    const low = l.toLowerCase();
    if (low.startsWith("zh")) return "zh";
    if (low.startsWith("en")) return "en";
  }
  return "en";
}

// ---- the app's current language -------------------------------------------

let current: Lang = "en";
const listeners = new Set<(l: Lang) => void>();

export function initLang(): Lang {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    /* storage disabled */
  }
  current = detectLang(saved, typeof navigator !== "undefined" ? navigator.languages ?? [navigator.language] : []);
  applyHtmlLang();
  return current;
}

function applyHtmlLang(): void {
  if (typeof document !== "undefined") {
    document.documentElement.lang = LANGS.find((l) => l.id === current)?.htmlLang ?? "en";
  }
}

export function getLang(): Lang {
  return current;
}

export function setLang(l: Lang): void {
  current = l;
  try {
    localStorage.setItem(STORAGE_KEY, l);
  } catch {
    /* storage disabled: the choice lasts for this page */
  }
  applyHtmlLang();
  for (const fn of listeners) fn(l);
}

export function onLang(fn: (l: Lang) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** t translates in the current language. */
export function t(key: Key, params?: Record<string, string | number>): string {
  return translate(current, key, params);
}

/** verdictLabel names a verdict or status code in the current language. */
export function verdictLabel(v: string): string {
  const key = `verdict.${v}` as Key;
  return key in en ? t(key) : v;
}

/** roleLabel names a user role in the current language (an unknown one as is). */
export function roleLabel(role: string): string {
  return role === "admin" || role === "setter" || role === "student" ? t(`role.${role}`) : role;
}
