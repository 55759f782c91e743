// @vitest-environment jsdom
// KaTeX is loaded on the first math only: a statement without math never
// loads it; math before it is loaded shows as its (escaped) TeX source,
// and a component using useMarkdown renders again with the formulas once
// it is there. (The build's index.html carries no preload of it:
// scripts/check-dist.mjs, run by npm run build.)
import { afterEach, describe, expect, it } from "vitest";
import { mathLoaded, renderMarkdownMath, useMarkdown } from "../src/markdown";
import { $, cleanup, flush, mount, waitFor } from "./dom";

function Statement({ src }: { src: string }) {
  return <div class="statement" dangerouslySetInnerHTML={{ __html: useMarkdown(src) }} />;
}

describe("KaTeX on first math", () => {
  afterEach(cleanup);

  // In this order: the module state (loaded or not) is this file's own.
  it("a statement without math does not load KaTeX", async () => {
    const r = renderMarkdownMath("# Sum\n\nIt costs $5 and $6 in total.");
    expect(r.needsMath).toBe(false);
    const { host } = await mount(<Statement src={"Read **two** integers.\n\n```\n1 2\n```"} />);
    await flush(10);
    expect($(host, "strong")?.textContent).toBe("two");
    expect(mathLoaded()).toBe(false);
  });

  it("math before KaTeX is loaded is its TeX source, escaped", () => {
    const r = renderMarkdownMath('Given $1 \\le n$ and $<img src=x onerror="alert(1)">$.\n\n$$\\sum_{i=1}^{n} a_i$$\n');
    expect(r.needsMath).toBe(true);
    const d = document.createElement("div");
    d.innerHTML = r.html;
    expect(d.querySelector(".katex")).toBeNull();
    expect(d.querySelector("img")).toBeNull();
    const pending = Array.from(d.querySelectorAll(".math-pending")).map((e) => e.textContent);
    expect(pending).toEqual(["$1 \\le n$", '$<img src=x onerror="alert(1)">$', "$$\\sum_{i=1}^{n} a_i$$"]);
    expect(d.querySelector(".math-display .math-pending")).not.toBeNull();
    expect(mathLoaded()).toBe(false);
  });

  it("the first math loads KaTeX and the statement renders again with it", async () => {
    const { host } = await mount(<Statement src={"Print $a+b$.\n\n$$\\sum_{i=1}^n i$$"} />);
    expect($(host, ".math-pending")).not.toBeNull();
    await waitFor(() => $(host, ".katex"), "KaTeX to render the statement", 500);
    expect(mathLoaded()).toBe(true);
    expect(host.querySelectorAll(".katex").length).toBe(2);
    expect($(host, ".math-display .katex-display")).not.toBeNull();
    expect($(host, ".math-pending")).toBeNull();
    // From now on math renders at once.
    expect(renderMarkdownMath("$x$")).toMatchObject({ needsMath: false });
    expect(renderMarkdownMath("$x$").html).toContain('class="katex"');
  });
});
