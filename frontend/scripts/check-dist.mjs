// check-dist: what a first page load fetches, from the built dist/, and the
// rules it must keep (npm run build runs it; `make test` runs the build):
//   - index.html neither loads nor preloads KaTeX (it comes on the first
//     math: src/markdown.ts) nor the admin or other staff-only pages;
//   - the chunks index.html loads (and what they import statically) hold
//     no admin or KaTeX code.
// It prints the first load's size, raw and gzipped.
//
//   node scripts/check-dist.mjs [dist]

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const dist = process.argv[2] ?? "dist";
const html = readFileSync(join(dist, "index.html"), "utf8");
const failures = [];

// Everything index.html makes the browser fetch at once.
const refs = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
for (const m of html.matchAll(/<link\b[^>]*\brel="(modulepreload|preload|prefetch|stylesheet)"[^>]*>/g)) {
  if (/katex|admin|similarity|teams|balloons/i.test(m[0])) failures.push(`index.html loads a lazy chunk: ${m[0]}`);
}
for (const r of refs) if (/katex|admin/i.test(r)) failures.push(`index.html loads ${r}`);

// Follow the static imports of the entry chunks (import … from "./x.js").
const first = new Set();
const visit = (ref) => {
  if (first.has(ref)) return;
  first.add(ref);
  if (!ref.endsWith(".js")) return;
  const code = readFileSync(join(dist, ref), "utf8");
  for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w${},*\s]+from\s*)?["'](\.\/[^"']+\.js)["']/g)) {
    visit(join("/assets", m[1]).replaceAll("\\", "/"));
  }
};
refs.forEach(visit);

// Code that must not be in the first load: an admin-only test id, the
// admin users list's status line, KaTeX's own error text.
const MARKERS = { admin: ["icpc-import", "users-status"], katex: ["KaTeX parse error"] };
let raw = 0;
let gz = 0;
for (const ref of first) {
  const buf = readFileSync(join(dist, ref));
  raw += buf.length;
  gz += gzipSync(buf, { level: 9 }).length;
  if (!ref.endsWith(".js")) continue;
  const code = buf.toString("utf8");
  for (const [what, words] of Object.entries(MARKERS)) {
    for (const w of words) if (code.includes(w)) failures.push(`${ref} (first load) holds ${what} code: "${w}"`);
  }
}
const kB = (n) => `${(n / 1000).toFixed(2)} kB`;
console.log(`first load (index.html's scripts and styles, their static imports): ${[...first].join(" ")}`);
console.log(`first load: ${kB(raw)} raw, ${kB(gz)} gzip (level 9)`);
if (failures.length) {
  for (const f of failures) console.error(`check-dist: ${f}`);
  process.exit(1);
}
