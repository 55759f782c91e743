package latex

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestToMarkdown(t *testing.T) {
	imgs := func(p string) (string, bool) {
		switch p {
		case "tree", "tree.png":
			return "/api/problems/x/assets/tree.png", true
		}
		return "", false
	}
	files := func(n string) ([]byte, bool) {
		switch n {
		case "example.01":
			return []byte("1 2\n"), true
		case "example.01.a":
			return []byte("3\n"), true
		}
		return nil, false
	}
	for _, tc := range []struct {
		name, in, want string
		title          string
		notes          []string
	}{
		{name: "plain paragraphs", in: "Hello   world.\n\n\n\nSecond  paragraph.", want: "Hello   world.\n\nSecond  paragraph.\n"},
		{name: "sections", in: `\section{Input} text \subsection*{Sub} more \subsubsection{Deep}`,
			want: "## Input\n\ntext\n\n### Sub\n\nmore\n\n#### Deep\n"},
		{name: "inline math kept", in: `Let $1 \le n \le 10^5$ and \(a_i\).`, want: "Let $1 \\le n \\le 10^5$ and $a_i$.\n"},
		{name: "display math", in: "Sum:\n$$\\sum_{i=1}^n a_i$$\nand \\[x^2\\]",
			want: "Sum:\n\n$$\n\\sum_{i=1}^n a_i\n$$\n\nand\n\n$$\nx^2\n$$\n"},
		{name: "align becomes aligned", in: "\\begin{align*}a &= b \\\\ c &= d\\end{align*}",
			want: "$$\n\\begin{aligned}\na &= b \\\\ c &= d\n\\end{aligned}\n$$\n"},
		{name: "bold italic tt", in: `\textbf{bold} \emph{it} \texttt{a\_b} {\bf x} \verb|y_z|`,
			want: "**bold** *it* `a_b` **x** `y_z`\n"},
		{name: "markdown characters escaped", in: `a*b [c] <d> #e 50\% \$5 x\_y`, want: "a\\*b \\[c\\] \\<d\\> \\#e 50% \\$5 x\\_y\n"},
		{name: "itemize", in: "\\begin{itemize}\n\\item one\n\\item two $x$\n\\end{itemize}", want: "- one\n- two $x$\n"},
		{name: "enumerate nested", in: "\\begin{enumerate}\\item a \\begin{itemize}\\item b\\end{itemize}\\item c\\end{enumerate}",
			want: "1. a\n\n   - b\n2. c\n"},
		{name: "description", in: `\begin{description}\item[Key] value\end{description}`, want: "- **Key** value\n"},
		{name: "tabular", in: "\\begin{tabular}{|c|c|}\\hline\n$n$ & Points \\\\ \\hline\n1 & 20\\\\\n2 & a|b \\\\ \\hline\\end{tabular}",
			want: "| $n$ | Points |\n| --- | --- |\n| 1 | 20 |\n| 2 | a\\|b |\n"},
		{name: "verbatim", in: "\\begin{verbatim}\n#include <x>\n\n\n  int a_b;\n\\end{verbatim}",
			want: "```\n#include <x>\n\n\n  int a_b;\n```\n"},
		{name: "image", in: `\begin{figure}[h]\centering\includegraphics[width=5cm]{tree}\caption{A tree}\end{figure}`,
			want: "![tree](/api/problems/x/assets/tree.png)\n\n*A tree*\n"},
		{name: "missing image", in: `\includegraphics{nope.png}`, want: "*[image nope.png missing]*\n",
			notes: []string{"image not in the package: nope.png"}},
		{name: "problemtools illustration", in: `Intro \illustration{0.3}{tree.png}{A tree} more`,
			want: "Intro\n\n![tree](/api/problems/x/assets/tree.png)\n\n*A tree*\n\nmore\n"},
		{name: "no indent after a block", in: "\\[x\\] after \\begin{center}c\\end{center} next", want: "$$\nx\n$$\n\nafter\n\nc\n\nnext\n"},
		{name: "problemtools title", in: "\\problemname{Hello \\& Bye}\nText.", title: "Hello & Bye", want: "Text.\n"},
		{name: "whole document", in: "\\documentclass{article}\n\\usepackage{x}\n\\begin{document}\nBody\n\\end{document}\ntrailing",
			want: "Body\n"},
		{name: "comments", in: "a % comment\n  b 100\\% c", want: "a b 100% c\n"},
		{name: "dashes quotes", in: "1--2 --- ``q'' ~x", want: "1–2 — “q” \u00a0x\n"},
		{name: "olymp problem", in: "\\begin{problem}{A + B}{standard input}{standard output}{1 second}{256 megabytes}\n" +
			"Add.\n\\InputFile\nTwo numbers.\n\\OutputFile\nSum.\n\\Examples\n\\exmpfile{example.01}{example.01.a}\n" +
			"\\begin{example}\\exmp{5 5\n}{10\n}\\end{example}\n\\end{problem}",
			title: "A + B",
			want: "Add.\n\n## Input\n\nTwo numbers.\n\n## Output\n\nSum.\n\n## Examples\n\n**Input**\n\n```\n1 2\n```\n\n**Output**\n\n```\n3\n```\n\n" +
				"**Input**\n\n```\n5 5\n```\n\n**Output**\n\n```\n10\n```\n"},
		{name: "links", in: `\url{https://e.org/a_b} \href{javascript:alert(1)}{click}`, want: "[https://e.org/a\\_b](https://e.org/a_b) click\n"},
		{name: "unknown command keeps text", in: `\foo{bar} baz`, want: "bar baz\n", notes: []string{`unknown command \foo (its text is kept)`}},
		{name: "last argument is the text", in: `\textcolor{red}{warm} \color{blue}cold \foo{a}{b}`, want: "warm cold b\n",
			notes: []string{`unknown command \foo (its text is kept)`}},
		{name: "multicolumn", in: `\begin{tabular}{ll}\multicolumn{2}{c}{Head}\\ a & b\end{tabular}`, want: "| Head |  |\n| --- | --- |\n| a | b |\n"},
		{name: "unknown environment", in: `\begin{weird}x\end{weird}`, want: "x\n", notes: []string{"unknown environment weird (its content is kept)"}},
		{name: "unclosed math is text", in: `cost $5`, want: "cost \\$5\n"},
		{name: "quote", in: "\\begin{quote}wise\nwords\\end{quote}", want: "> wise\n> words\n"},
		{name: "line break", in: `a\\b`, want: "a\nb\n"},
		{name: "html is escaped", in: `<script>alert(1)</script>`, want: "\\<script\\>alert(1)\\</script\\>\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ToMarkdown(tc.in, Options{Image: imgs, File: files})
			if r.Markdown != tc.want {
				t.Errorf("markdown\n got %q\nwant %q", r.Markdown, tc.want)
			}
			if r.Title != tc.title {
				t.Errorf("title %q, want %q", r.Title, tc.title)
			}
			if tc.notes != nil && !slices.Equal(r.Notes, tc.notes) {
				t.Errorf("notes %q, want %q", r.Notes, tc.notes)
			}
		})
	}
}

func TestImagesListedOnce(t *testing.T) {
	r := ToMarkdown(`\includegraphics{a.png} \includegraphics{b.jpg} \includegraphics{a.png}`,
		Options{Image: func(p string) (string, bool) { return "/i/" + p, true }})
	if !slices.Equal(r.Images, []string{"a.png", "b.jpg"}) {
		t.Fatalf("images %q", r.Images)
	}
	if strings.Count(r.Markdown, "](/i/a.png)") != 2 {
		t.Fatalf("markdown %q", r.Markdown)
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	in := strings.Repeat("{", 10000) + "x" + strings.Repeat("}", 10000)
	r := ToMarkdown(in, Options{})
	if !strings.Contains(r.Markdown, "x") {
		t.Fatalf("lost the text: %q", r.Markdown[:min(100, len(r.Markdown))])
	}
	in = strings.Repeat(`\begin{itemize}\item `, 500) + strings.Repeat(`\end{itemize}`, 500)
	_ = ToMarkdown(in, Options{}) // must return
}

func FuzzToMarkdown(f *testing.F) {
	for _, s := range []string{
		`\section{A} $x$ \begin{itemize}\item a\end{itemize}`,
		"\\begin{tabular}{cc} a & b \\\\ c & d \\end{tabular}",
		`\verb|x| \href{http://a}{b} \includegraphics[w]{p} {\bf x} \exmp{1}{2}`,
		"\\begin{verbatim}\x00\\end{verbatim} $$ \\[ \\( % \\",
		`\begin{problem}{T}{a}{b}{c}{d}\InputFile x\end{problem}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := ToMarkdown(in, Options{Image: func(p string) (string, bool) { return "/a/" + p, len(p)%2 == 0 },
			File: func(string) ([]byte, bool) { return []byte("1"), true }})
		if !utf8.ValidString(r.Markdown) {
			t.Fatalf("invalid UTF-8 from %q", in)
		}
		if strings.Contains(r.Markdown, "\x00") {
			t.Fatalf("a placeholder leaked from %q: %q", in, r.Markdown)
		}
		if strings.Contains(strings.ToLower(r.Markdown), "<script") {
			t.Fatalf("raw HTML from %q: %q", in, r.Markdown)
		}
	})
}
