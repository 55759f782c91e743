package icpcpkg

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// latexPkg is a 2023-07 package with a LaTeX statement, an image it shows
// (named without its extension), an image it does not, and attachments.
var latexPkg = map[string]string{
	"problem.yaml": "problem_format_version: 2023-07-draft\nname:\n  en: Trees\nlimits:\n  time_limit: 1\n",
	"statement/problem.en.tex": "\\problemname{Trees}\nCount the leaves of the tree with $n \\le 10^5$ nodes.\n\n" +
		"\\begin{center}\\includegraphics[width=0.5\\textwidth]{tree}\\end{center}\n" +
		"\\section*{Input}\n\\begin{itemize}\\item one line\\end{itemize}\n" +
		"\\begin{tabular}{cc}$n$ & points\\\\ 10 & 20\\end{tabular}\n",
	"statement/tree.png":          "\x89PNG fake",
	"statement/unused.jpg":        "JPG",
	"attachments/testing_tool.py": "print('hi')\n",
	"attachments/sample.zip":      "PK",
	"data/sample/1.in":            "1\n",
	"data/sample/1.ans":           "1\n",
	"data/secret/1.in":            "2\n",
	"data/secret/1.ans":           "1\n",
}

func TestConvertLaTeXStatementWithImages(t *testing.T) {
	p, _, err := Convert(zipOf(t, latexPkg), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Count the leaves", "$n \\le 10^5$", "![tree](asset:tree.png)", "## Input", "- one line",
		"| $n$ | points |\n| --- | --- |\n| 10 | 20 |"} {
		if !strings.Contains(p.Statement, w) {
			t.Errorf("statement lacks %q:\n%s", w, p.Statement)
		}
	}
	var got []string
	for _, a := range p.Assets {
		got = append(got, a.Kind+":"+a.Name+"="+string(a.Data))
	}
	want := []string{"image:tree.png=\x89PNG fake", "attachment:sample.zip=PK", "attachment:testing_tool.py=print('hi')\n"}
	if !slices.Equal(got, want) {
		t.Errorf("assets %q, want %q", got, want)
	}
	notes := strings.Join(p.Notes, "\n")
	if !strings.Contains(notes, "converted from LaTeX") || !strings.Contains(notes, "does not show") {
		t.Errorf("notes:\n%s", notes)
	}
}

func TestConvertMarkdownImages(t *testing.T) {
	files := with(latexPkg, "statement/problem.en.tex", "<delete>", "statement/problem.en.md", "See ![a tree](tree.png) and ![x](https://e.org/x.png) and ![y](gone.png).")
	p, _, err := Convert(zipOf(t, files), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "See ![a tree](asset:tree.png) and ![x](https://e.org/x.png) and ![y](gone.png).\n\n## Samples\n\n" +
		"### Sample 1\n\n**Input**\n\n```\n1\n```\n\n**Output**\n\n```\n1\n```\n"; p.Statement != want {
		t.Errorf("statement %q, want %q", p.Statement, want)
	}
}

func TestConvertAssetNameClash(t *testing.T) {
	files := with(latexPkg, "attachments/dir/tree.png", "other bytes", "statement/problem.en.tex", `\includegraphics{tree.png}`)
	_, _, err := Convert(zipOf(t, files), Limits{})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "tree.png") {
		t.Fatalf("err = %v, want a clash naming tree.png", err)
	}
}

// TestSamplesInStatement: samples are shown after the statement, not for
// interactive problems, and a large one is left out with a note.
func TestSamplesInStatement(t *testing.T) {
	p := Problem{Statement: "S"}
	p.appendSamples(testpkg.Package{Cases: []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("```\n")}, {In: make([]byte, MaxSampleShown+1), Ans: nil}},
		Samples: []int{1, 2}})
	if want := "S\n\n## Samples\n\n### Sample 1\n\n**Input**\n\n```\n1 2\n```\n\n**Output**\n\n````\n```\n````\n"; p.Statement != want {
		t.Errorf("statement %q, want %q", p.Statement, want)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "sample 2 is not shown") {
		t.Errorf("notes %q", p.Notes)
	}
	q := Problem{Statement: "S", Interactive: true}
	q.appendSamples(testpkg.Package{Cases: []testpkg.Case{{In: []byte("1"), Ans: []byte("1")}}, Samples: []int{1}})
	if q.Statement != "S" {
		t.Errorf("interactive statement %q", q.Statement)
	}
}

func TestAssetLink(t *testing.T) {
	for in, want := range map[string]string{"tree.png": "asset:tree.png", "my pic (1).png": "asset:my%20pic%20%281%29.png",
		"树.png": "asset:%E6%A0%91.png"} {
		if got := AssetLink(in); got != want {
			t.Errorf("AssetLink(%q) = %q, want %q", in, got, want)
		}
	}
}
