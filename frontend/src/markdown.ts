// Problem statements and clarifications: Markdown (marked) with TeX math
// ($inline$ and $$display$$, rendered by KaTeX), sanitised by DOMPurify
// before it reaches the page. Statements are written by setters, but a
// setter account can be stolen; nothing in a statement may run script.

import DOMPurify from "dompurify";
import katex from "katex";
import { Marked, type TokenizerAndRendererExtension } from "marked";

function tex(src: string, displayMode: boolean): string {
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

/** renderMarkdown turns Markdown with math into sanitised HTML. */
export function renderMarkdown(src: string): string {
  const html = md.parse(src ?? "") as string;
  return purifier().sanitize(html, {
    USE_PROFILES: { html: true, mathMl: true, svg: true },
    FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["srcset"],
    // KaTeX's MathML keeps the TeX source in <semantics><annotation>.
    ADD_TAGS: ["semantics", "annotation"],
    ADD_ATTR: ["encoding"],
  });
}
