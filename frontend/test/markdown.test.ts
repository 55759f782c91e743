// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { loadMath, renderMarkdown } from "../src/markdown";

// KaTeX is loaded on the first math (test/markdown-lazy.test.tsx); here it is loaded first.
await loadMath();

function dom(html: string): HTMLElement {
  const d = document.createElement("div");
  d.innerHTML = html;
  return d;
}

describe("renderMarkdown", () => {
  it("renders Markdown", () => {
    const d = dom(renderMarkdown("# Sum\n\nRead **two** integers.\n\n```\n1 2\n```"));
    expect(d.querySelector("h1")?.textContent).toBe("Sum");
    expect(d.querySelector("strong")?.textContent).toBe("two");
    expect(d.querySelector("pre code")?.textContent).toBe("1 2\n");
  });

  it("renders inline and display math with KaTeX", () => {
    const d = dom(renderMarkdown("Given $1 \\le n \\le 10^5$, print\n\n$$\\sum_{i=1}^{n} a_i$$\n"));
    expect(d.querySelectorAll(".katex").length).toBe(2);
    expect(d.querySelector(".math-display .katex-display")).not.toBeNull();
    expect(d.querySelector("annotation")?.textContent).toBe("1 \\le n \\le 10^5");
  });

  it("does not take prices for math", () => {
    const d = dom(renderMarkdown("It costs $5 and $6 in total."));
    expect(d.querySelector(".katex")).toBeNull();
    expect(d.textContent).toContain("$5 and $6");
  });

  it("shows bad TeX instead of failing", () => {
    const d = dom(renderMarkdown("$\\frac{1}{$"));
    expect(d.textContent).toContain("\\frac");
  });

  const attacks: [string, string][] = [
    ["script tag", "<script>alert(1)</script>"],
    ["img onerror", '<img src="x" onerror="alert(1)">'],
    ["svg onload", '<svg onload="alert(1)"><circle r="1"/></svg>'],
    ["javascript: link", "[click](javascript:alert(1))"],
    ["javascript: html link", '<a href="javascript:alert(1)">x</a>'],
    ["iframe", '<iframe src="https://evil.example"></iframe>'],
    ["style with expression", '<div style="background:url(javascript:alert(1))">x</div><style>body{}</style>'],
    ["onerror inside math", '$x$ <img src=x onerror=alert(1)> $y$'],
    ["\\href in TeX", "$\\href{javascript:alert(1)}{x}$"],
    ["form", '<form action="/api/session" method="post"><input name="u"><button>go</button></form>'],
    ["mathml with xlink", '<math><mi xlink:href="javascript:alert(1)">x</mi></math>'],
  ];
  for (const [name, src] of attacks) {
    it(`sanitises ${name}`, () => {
      const html = renderMarkdown(src);
      const d = dom(html);
      expect(d.querySelector("script, iframe, style, form, input, button, object, embed")).toBeNull();
      for (const el of d.querySelectorAll("*")) {
        for (const a of el.attributes) {
          expect(a.name.startsWith("on"), `${el.tagName} ${a.name}`).toBe(false);
          expect(/javascript:/i.test(a.value), `${el.tagName} ${a.name}=${a.value}`).toBe(false);
        }
      }
      expect(html.toLowerCase()).not.toContain("<script");
    });
  }

  it("keeps safe links and marks them", () => {
    const a = dom(renderMarkdown("[docs](https://example.org/x)")).querySelector("a")!;
    expect(a.getAttribute("href")).toBe("https://example.org/x");
    expect(a.getAttribute("rel")).toContain("noopener");
  });
});
