// The submit form's language picker: which language it starts on and how a
// language is labelled. Pure.

import type { Language as Lang } from "./api";

/** What the picker needs of a language (GET /api/languages has more). */
type Language = Pick<Lang, "id" | "name" | "version">;

/**
 * defaultLanguage is the language the picker starts on: the first of
 * preferred (the user's own last choice, then their last submission's
 * language, …) that the problem allows, else the problem's first C++, else
 * its first language; "" when none is allowed.
 */
export function defaultLanguage(options: readonly Language[], preferred: readonly (string | null | undefined)[]): string {
  for (const p of preferred) {
    if (p && options.some((o) => o.id === p)) return p;
  }
  const cpp = options.find((o) => /^cpp/i.test(o.id) || /^c\+\+/i.test(o.name));
  return cpp?.id ?? options[0]?.id ?? "";
}

/**
 * languageLabel names a language with its compiler's version once: the
 * judges report the compiler's own banner ("g++ (Debian 12.2.0-14) 12.2.0")
 * while the name already says which compiler ("C++17 (g++)"), so the label
 * puts the version number in the name's parentheses: "C++17 (g++ 12.2.0)".
 */
export function languageLabel(l: Language): string {
  const v = l.version?.trim();
  if (!v) return l.name;
  const num = /\d+\.\d+(?:\.\d+)?/.exec(v)?.[0];
  if (!num) return l.name.includes(v) ? l.name : `${l.name} (${v})`;
  if (l.name.includes(num)) return l.name;
  const paren = /^(.*)\(([^()]*)\)\s*$/.exec(l.name);
  if (paren) return `${paren[1]}(${paren[2]!.trim()} ${num})`;
  return `${l.name} (${num})`;
}
