// KaTeX and its CSS: a chunk of its own, loaded by markdown.ts on the
// first math a page renders (never in index.html's preloads).
import katex from "katex";
import "katex/dist/katex.min.css";

export { katex };
