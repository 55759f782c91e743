// Problem statements and clarifications: Markdown (marked) with TeX math
// ($inline$ and $$display$$, rendered by KaTeX), sanitised by DOMPurify
// before it reaches the page. Statements are written by setters, but a
// setter account can be stolen; nothing in a statement may run script.
//
// KaTeX (its code and its CSS, ~86 kB gzipped) is loaded on the first
// math only (./math, its own chunk): until it is there a formula shows as
// its TeX source in a .math-pending span, and useMarkdown renders again
// once it arrives. A page without math never loads it.

import DOMPurify from "dompurify";
import { Marked, type TokenizerAndRendererExtension } from "marked";
import { useEffect, useMemo, useState } from "preact/hooks";

type Katex = (typeof import("katex"))["default"];

let katex: Katex | null = null;
let loading: Promise<void> | null = null;
/** Set by tex() while a render meets math before KaTeX is loaded. */
let missed = false;

/** mathLoaded says whether KaTeX is loaded (math renders at once). */
export function mathLoaded(): boolean {
  return katex !== null;
}

/** loadMath loads KaTeX and its CSS once; a failed load may be tried again. */
export function loadMath(): Promise<void> {
  loading ??= import("./math").then(
    (m) => {
      katex = m.katex;
    },
    (e: unknown) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

const escapeHTML = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function tex(src: string, displayMode: boolean): string {
  if (!katex) {
    missed = true;
    return `<span class="math-pending">${escapeHTML(displayMode ? `$$${src}$$` : `$${src}$`)}</span>`;
  }
  return katex.renderToString(src, {
    displayMode,
    throwOnError: false, // show the bad TeX in red instead of failing the page
    trust: false, // no \href, \url, \includegraphics
    strict: "ignore",
    maxSize: 20,
    maxExpand: 1000,
    output: "htmlAndMathml",
  });
}

const blockMath: TokenizerAndRendererExtension = {
  name: "blockMath",
  level: "block",
  start: (src) => src.match(/^ {0,3}\$\$/m)?.index,
  tokenizer(src) {
    const m = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/.exec(src);
    if (m) return { type: "blockMath", raw: m[0], text: m[1]!.trim() };
    return undefined;
  },
  renderer: (tok) => `<div class="math-display">${tex(tok.text as string, true)}</div>\n`,
};

const inlineMath: TokenizerAndRendererExtension = {
  name: "inlineMath",
  level: "inline",
  start: (src) => {
    const i = src.indexOf("$");
    return i < 0 ? undefined : i;
  },
  tokenizer(src) {
    let m = /^\$\$((?:\\[\s\S]|[^\\$])+?)\$\$/.exec(src);
    if (m) return { type: "inlineMath", raw: m[0], text: m[1]!.trim(), display: true };
    // $...$: not empty, no newline-only content, not "$ 5 and $ 6" prices.
    m = /^\$(?!\s)((?:\\[\s\S]|[^\\$\n])+?)(?<!\s)\$(?!\d)/.exec(src);
    if (m) return { type: "inlineMath", raw: m[0], text: m[1]!, display: false };
    return undefined;
  },
  renderer: (tok) => tex(tok.text as string, !!tok.display),
};

const md = new Marked({ gfm: true, breaks: false, async: false });
md.use({ extensions: [blockMath, inlineMath] });

/** Inline styles are kept (KaTeX positions glyphs with them) except what
 *  could load something or lift content over the page. */
const BAD_STYLE = /url\s*\(|expression\s*\(|javascript:|@import|behavior\s*:|position\s*:\s*(fixed|absolute|sticky)/i;

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook("uponSanitizeAttribute", (_node, data) => {
      if (data.attrName === "style" && BAD_STYLE.test(data.attrValue)) data.keepAttr = false;
    });
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A" && node.hasAttribute("href")) {
        node.setAttribute("rel", "noopener noreferrer nofollow");
        if (/^https?:/i.test(node.getAttribute("href") ?? "")) node.setAttribute("target", "_blank");
      }
    });
  }
  return DOMPurify;
}

/** renderMarkdown turns Markdown with math into sanitised HTML (math as
 *  its TeX source while KaTeX is not loaded: see renderMarkdownMath). */
export function renderMarkdown(src: string): string {
  return renderMarkdownMath(src).html;
}

/** renderMarkdownMath is renderMarkdown that also says whether the source
 *  had math that waits for KaTeX (then loadMath and render again). */
export function renderMarkdownMath(src: string): { html: string; needsMath: boolean } {
  missed = false;
  const html = md.parse(src ?? "") as string;
  const needsMath = missed;
  missed = false;
  return { html: sanitize(html), needsMath };
}

/**
 * useMarkdown is renderMarkdown for a component: the first math in src
 * loads KaTeX, and the component renders again with the formulas once it
 * is there.
 */
export function useMarkdown(src: string): string {
  const [, setLoaded] = useState(mathLoaded());
  const ready = mathLoaded();
  const r = useMemo(() => renderMarkdownMath(src), [src, ready]);
  useEffect(() => {
    if (!r.needsMath) return;
    let live = true;
    loadMath().then(
      () => live && setLoaded(true),
      () => {
        /* offline: the TeX source stays readable */
      },
    );
    return () => {
      live = false;
    };
  }, [r]);
  return r.html;
}

function sanitize(html: string): string {
  return purifier().sanitize(html, {
    USE_PROFILES: { html: true, mathMl: true, svg: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["srcset"],
    // KaTeX's MathML keeps the TeX source in <semantics><annotation>.
    ADD_TAGS: ["semantics", "annotation"],
    ADD_ATTR: ["encoding"],
  });
}
