// Package latex converts the LaTeX of problem statements (ICPC / Kattis
// problem_statement/problem.<lang>.tex, Polygon's statements/<lang>/*.tex
// with olymp.sty) to the Markdown with TeX math that the frontend renders
// (marked + KaTeX). It is pure: a string in, Markdown, the images it
// referenced and notes out; no I/O (the caller resolves image paths and
// sample files through Options).
//
// The subset (docs/problems.md, "Statements"):
//
//   - \section, \subsection, \subsubsection (starred too) → ##, ###, ####;
//     problemtools' \problemname{X} and olymp.sty's
//     \begin{problem}{X}{in}{out}{time}{memory} give the title;
//     olymp.sty's \InputFile, \OutputFile, \Interaction, \Scoring, \Note,
//     \Notes, \Example, \Examples → sections.
//   - Math: $…$, \(…\) inline; $$…$$, \[…\], equation, align, gather,
//     multline, eqnarray (starred too) as $$ blocks; math is passed to
//     KaTeX unchanged.
//   - \textbf, \bf, \textit, \emph, \it, \texttt, \tt, \verb, \underline,
//     \textsc, \url, \href (http and https only).
//   - itemize, enumerate (nested), description; tabular (a GFM table, the
//     first row the header; \hline and rules dropped); verbatim,
//     lstlisting and Verbatim as fenced code; quote; center, figure and
//     other layout environments keep their content; \caption in italics.
//   - \includegraphics[…]{path} and problemtools' \illustration{width}{path}{caption}
//     → an image whose URL Options.Image gives.
//   - Samples: olymp.sty's \exmp{in}{out} and \exmpfile{in}{out}
//     (Options.File reads the files) as code blocks.
//   - Text: ~, --, ---, “…”, \ldots, \%, \$, \&, \#, \_, \{, \}, \\;
//     Markdown's own characters in the text are escaped.
//
// Anything else: a command keeps its last braced argument's text and an
// unknown environment keeps its content; each unknown name is reported
// once in Result.Notes. Comments are dropped.
package latex
