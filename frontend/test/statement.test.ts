// @vitest-environment jsdom
// Statements converted from LaTeX (webapp/internal/latex) render as the
// converter means them: sections, math (also in tables and aligned
// blocks), escaped dollars, lists, tables, images and attachments served
// by the web node.
import { describe, expect, it } from "vitest";
import { loadMath, renderMarkdown } from "../src/markdown";

// KaTeX is loaded on the first math (test/markdown-lazy.test.tsx); here it is loaded first.
await loadMath();

function dom(html: string): HTMLElement {
  const d = document.createElement("div");
  d.innerHTML = html;
  return d;
}

// What the converter gives for a small olymp.sty statement (see
// webapp/internal/polygon's standard fixture), after the web node has
// rewritten asset: links.
const converted = [
  "Given two integers $a$ and $b$, print $a+b$. It costs \\$5 or \\$6.",
  "",
  "![sum](/api/problems/sum/assets/sum.png)",
  "",
  "## Input",
  "",
  "One line with $a$ and $b$ ($0 \\le a, b \\le 10^9$), a\\_b and 2\\*3.",
  "",
  "- one",
  "- two $x$",
  "",
  "| Group | Points | Constraints |",
  "| --- | --- | --- |",
  "| 1 | 30 | $a, b \\le 10$ |",
  "",
  "$$",
  "\\begin{aligned}",
  "a &= b \\\\ c &= d",
  "\\end{aligned}",
  "$$",
  "",
  "**Input**",
  "",
  "```",
  "1 2",
  "```",
  "",
  "## Attachments",
  "",
  "- [testing\\_tool.py](/api/problems/sum/assets/testing_tool.py)",
  "",
].join("\n");

describe("a converted LaTeX statement", () => {
  const d = dom(renderMarkdown(converted));

  it("has its sections, lists, samples and escaped characters", () => {
    expect([...d.querySelectorAll("h2")].map((h) => h.textContent)).toEqual(["Input", "Attachments"]);
    expect(d.querySelectorAll("li").length).toBe(3);
    expect(d.querySelector("pre code")?.textContent).toBe("1 2\n");
    expect(d.textContent).toContain("It costs $5 or $6.");
    expect(d.textContent).not.toContain("\\$");
    expect(d.textContent).toContain("a_b and 2*3");
  });

  it("renders its math, in tables and aligned blocks too", () => {
    const cell = d.querySelector("table tbody td:nth-child(3)");
    expect(cell?.querySelector(".katex")).not.toBeNull();
    expect(d.querySelector(".math-display annotation")?.textContent).toContain("\\begin{aligned}");
    expect(d.querySelectorAll(".katex-error").length).toBe(0);
  });

  it("shows the image and links the attachment at the web node's URLs", () => {
    const img = d.querySelector("img");
    expect(img?.getAttribute("src")).toBe("/api/problems/sum/assets/sum.png");
    expect(img?.getAttribute("alt")).toBe("sum");
    const a = [...d.querySelectorAll("a")].find((x) => x.textContent === "testing_tool.py");
    expect(a?.getAttribute("href")).toBe("/api/problems/sum/assets/testing_tool.py");
  });
});
