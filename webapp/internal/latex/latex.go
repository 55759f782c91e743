package latex

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options are the caller's resolvers; either may be nil.
type Options struct {
	// Image maps an \includegraphics path (as written, no extension
	// perhaps) to the URL the statement links; ok false when the package
	// has no such image.
	Image func(path string) (url string, ok bool)
	// File reads a file next to the statement (olymp.sty's \exmpfile).
	File func(name string) ([]byte, bool)
}

// Result is the converted statement.
type Result struct {
	// Title from \problemname or \begin{problem}{title}…; "" when none.
	Title    string
	Markdown string
	// Images are the \includegraphics paths, in order, each once.
	Images []string
	// Notes list what was not converted (unknown commands, missing
	// images), each once, sorted.
	Notes []string
}

// MaxDepth bounds nesting (groups, environments, arguments): deeper input
// is kept as escaped text.
const MaxDepth = 64

// ToMarkdown converts a LaTeX statement (a whole document or a fragment).
func ToMarkdown(src string, opt Options) Result {
	src = strings.ToValidUTF8(strings.ReplaceAll(src, "\x00", ""), "\uFFFD")
	src = strings.ReplaceAll(src, "\r\n", "\n")
	if i := strings.Index(src, `\begin{document}`); i >= 0 {
		src = src[i+len(`\begin{document}`):]
		if j := strings.Index(src, `\end{document}`); j >= 0 {
			src = src[:j]
		}
	}
	c := &conv{opt: opt, notes: map[string]bool{}}
	body := c.text(src, 0)
	out := finish(body, c.protected)
	r := Result{Title: strings.TrimSpace(c.title), Markdown: out, Images: c.images}
	for n := range c.notes {
		r.Notes = append(r.Notes, n)
	}
	slices.Sort(r.Notes)
	return r
}

type conv struct {
	opt       Options
	title     string
	images    []string
	notes     map[string]bool
	protected []string // code and math, kept from escaping and clean-up
}

// protect stores s and returns its placeholder.
func (c *conv) protect(s string) string {
	c.protected = append(c.protected, s)
	return "\x00" + strconv.Itoa(len(c.protected)-1) + "\x00"
}

func (c *conv) note(s string) { c.notes[s] = true }

var (
	placeholder = regexp.MustCompile("\x00([0-9]+)\x00")
	blankRuns   = regexp.MustCompile(`\n(?:[ \t]*\n)+`)
	trailingWS  = regexp.MustCompile(`[ \t]+\n`)
)

// finish tidies blank lines and puts the protected parts back.
func finish(s string, protected []string) string {
	s = trailingWS.ReplaceAllString(s, "\n")
	s = blankRuns.ReplaceAllString(s, "\n\n")
	s = strings.TrimSpace(s)
	// A placeholder never holds another, so one pass suffices; a digit
	// run that is not an index is dropped.
	s = placeholder.ReplaceAllStringFunc(s, func(m string) string {
		i, err := strconv.Atoi(m[1 : len(m)-1])
		if err != nil || i >= len(protected) {
			return ""
		}
		return protected[i]
	})
	if s != "" {
		s += "\n"
	}
	return s
}

// sections maps sectioning commands to Markdown heading prefixes.
var sections = map[string]string{
	"section": "## ", "subsection": "### ", "subsubsection": "#### ", "paragraph": "**", "chapter": "# ",
}

// olympSections are olymp.sty's section commands (English names).
var olympSections = map[string]string{
	"InputFile": "Input", "OutputFile": "Output", "Interaction": "Interaction", "Scoring": "Scoring",
	"Note": "Note", "Notes": "Notes", "Example": "Example", "Examples": "Examples", "Explanation": "Explanation",
}

// dropped commands: layout with no content; the number is how many braced
// arguments they take.
var dropped = map[string]int{
	"noindent": 0, "par": 0, "bigskip": 0, "medskip": 0, "smallskip": 0, "centering": 0, "newpage": 0,
	"clearpage": 0, "pagebreak": 0, "linebreak": 0, "vfill": 0, "hfill": 0, "raggedright": 0, "small": 0,
	"large": 0, "Large": 0, "normalsize": 0, "footnotesize": 0, "scriptsize": 0, "tiny": 0, "huge": 0,
	"label": 1, "vspace": 1, "hspace": 1, "vspace*": 1, "hspace*": 1, "setlength": 2,
	"maketitle": 0, "hline": 0, "toprule": 0, "midrule": 0, "bottomrule": 0, "cline": 1, "exmpfile": 2,
	"includegraphics": 1, "sloppy": 0, "selectlanguage": 1, "def": 0, "newcommand": 2, "renewcommand": 2,
	"documentclass": 1, "usepackage": 1, "input": 1, "include": 1, "ref": 1, "cite": 1, "index": 1,
	"protect": 0, "relax": 0, "nobreak": 0, "leavevmode": 0, "indent": 0, "color": 1, "pagestyle": 1,
	"thispagestyle": 1, "addcontentsline": 3, "vskip": 0, "hskip": 0,
}

// known commands keep their last argument's text without a note.
var known = map[string]bool{
	"textcolor": true, "colorbox": true, "multicolumn": true, "multirow": true, "raisebox": true, "makebox": true,
	"framebox": true, "fbox": true, "parbox": true, "scalebox": true, "resizebox": true, "hyperref": true, "nolinkurl": true,
}

// symbols are commands that stand for a character.
var symbols = map[string]string{
	"ldots": "…", "dots": "…", "textellipsis": "…", "textendash": "–", "textemdash": "—",
	"LaTeX": "LaTeX", "TeX": "TeX", "textbackslash": `\\`, "textasciitilde": "~", "textasciicircum": "^",
	"S": "§", "copyright": "©", "quad": " ", "qquad": " ", "enspace": " ", "thinspace": " ",
	"newline": "  \n", "textless": `\<`, "textgreater": `\>`, "textbar": `\|`, "textquoteright": "’",
	"textquoteleft": "‘", "guillemotleft": "«", "guillemotright": "»", "textdegree": "°", "times": "×",
}

// wrappers map text-style commands to Markdown delimiters.
var wrappers = map[string][2]string{
	"textbf": {"**", "**"}, "textit": {"*", "*"}, "emph": {"*", "*"}, "textsl": {"*", "*"},
	"underline": {"", ""}, "textsc": {"", ""}, "textrm": {"", ""}, "textsf": {"", ""}, "textup": {"", ""},
	"mbox": {"", ""}, "text": {"", ""}, "textnormal": {"", ""}, "hbox": {"", ""}, "caption": {"\n\n*", "*\n\n"},
	"title": {"", ""}, "footnote": {" (", ")"}, "uppercase": {"", ""}, "MakeUppercase": {"", ""},
}

// mathEnvs are display-math environments; the value is the KaTeX
// environment their body goes in ("" for none).
var mathEnvs = map[string]string{
	"equation": "", "equation*": "", "displaymath": "", "math": "", "align": "aligned", "align*": "aligned",
	"gather": "gathered", "gather*": "gathered", "multline": "", "multline*": "", "eqnarray": "aligned",
	"eqnarray*": "aligned", "flalign": "aligned", "flalign*": "aligned",
}

// plainEnvs keep their content as it is.
var plainEnvs = map[string]bool{
	"center": true, "flushleft": true, "flushright": true, "figure": true, "figure*": true, "table": true,
	"table*": true, "minipage": true, "samepage": true, "small": true, "footnotesize": true, "wrapfigure": true,
	"example": true, "examplewide": true, "document": true, "legend": true, "multicols": true, "tutorial": true,
}

// text converts LaTeX in text mode.
func (c *conv) text(s string, depth int) string {
	if depth > MaxDepth {
		return escape(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '%':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
				continue
			}
			i += j + 1
			// A comment eats the line break and the next line's indent.
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
		case ch == '$':
			i = c.dollar(s, i, &b)
		case ch == '\\':
			i = c.command(s, i, &b, depth)
		case ch == '{':
			end := matchBrace(s, i)
			b.WriteString(c.text(s[i+1:end], depth+1))
			i = min(end+1, len(s))
		case ch == '}':
			i++ // stray
		case ch == '~':
			b.WriteString("\u00a0")
			i++
		case strings.HasPrefix(s[i:], "---"):
			b.WriteString("—")
			i += 3
		case strings.HasPrefix(s[i:], "--"):
			b.WriteString("–")
			i += 2
		case strings.HasPrefix(s[i:], "``"):
			b.WriteString("“")
			i += 2
		case strings.HasPrefix(s[i:], "''"):
			b.WriteString("”")
			i += 2
		case strings.HasPrefix(s[i:], "<<"):
			b.WriteString("«")
			i += 2
		case strings.HasPrefix(s[i:], ">>"):
			b.WriteString("»")
			i += 2
		case ch == '&':
			b.WriteString(" ") // alignment outside a table
			i++
		case ch == '\n':
			b.WriteByte('\n')
			i++
			// Leading indentation would make Markdown code blocks.
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(escapeRune(r))
			i += n
		}
	}
	return b.String()
}

// dollar handles $…$ and $$…$$ at s[i].
func (c *conv) dollar(s string, i int, b *strings.Builder) int {
	if strings.HasPrefix(s[i:], "$$") {
		if j := indexUnescaped(s[i+2:], "$$"); j >= 0 {
			b.WriteString(c.displayMath(s[i+2:i+2+j], ""))
			return skipBlanks(s, i+2+j+2)
		}
		b.WriteString(`\$\$`)
		return i + 2
	}
	if j := indexUnescaped(s[i+1:], "$"); j >= 0 {
		b.WriteString(c.inlineMath(s[i+1 : i+1+j]))
		return i + 1 + j + 1
	}
	b.WriteString(`\$`)
	return i + 1
}

// inlineMath is $m$, with its inside trimmed (the frontend wants no space
// next to the dollars) and never empty.
func (c *conv) inlineMath(m string) string {
	m = strings.Join(strings.Fields(m), " ")
	if m == "" {
		return ""
	}
	return c.protect("$" + m + "$")
}

// displayMath is a $$ block, in env when given.
func (c *conv) displayMath(m, env string) string {
	m = strings.TrimSpace(m)
	if m == "" {
		return ""
	}
	m = strings.ReplaceAll(m, "$$", "")
	m = blankRuns.ReplaceAllString(m, "\n") // a blank line would end the block
	if env != "" {
		m = `\begin{` + env + "}\n" + m + "\n" + `\end{` + env + "}"
	}
	return "\n\n" + c.protect("$$\n"+m+"\n$$") + "\n\n"
}

// command handles a backslash at s[i].
func (c *conv) command(s string, i int, b *strings.Builder, depth int) int {
	name, j := commandName(s, i)
	switch name {
	case "":
		b.WriteString(`\\`)
		return j
	case "\\":
		b.WriteString("  \n")
		_, j = optArg(s, j) // \\[2pt]
		return j
	case "%", "$", "&", "#", "_", "{", "}":
		b.WriteString(escape(name))
		return j
	case " ", ",", ";", ":", "!", "/", "@":
		if name == " " || name == "," || name == ";" || name == ":" {
			b.WriteString(" ")
		}
		return j
	case "(":
		k := strings.Index(s[j:], `\)`)
		if k < 0 {
			return j
		}
		b.WriteString(c.inlineMath(s[j : j+k]))
		return j + k + 2
	case "[":
		k := strings.Index(s[j:], `\]`)
		if k < 0 {
			return j
		}
		b.WriteString(c.displayMath(s[j:j+k], ""))
		return skipBlanks(s, j+k+2)
	case "'", "`", "^", "\"", "~", "=", ".", "c", "v", "u", "H":
		// Accents: keep the letter.
		arg, k := arg(s, j)
		if name == "c" || name == "v" || name == "u" || name == "H" {
			if len(arg) == 0 && k == j { // \c alone is a command
				return j
			}
		}
		b.WriteString(c.text(arg, depth+1))
		return k
	case "begin":
		return skipBlanks(s, c.environment(s, i, j, b, depth))
	case "end":
		_, k := arg(s, j) // stray
		return k
	case "verb":
		if j >= len(s) {
			return j
		}
		delim := s[j]
		k := strings.IndexByte(s[j+1:], delim)
		if k < 0 {
			return j
		}
		b.WriteString(c.code(s[j+1 : j+1+k]))
		return j + 1 + k + 1
	case "includegraphics":
		_, k := optArg(s, j)
		p, k := arg(s, k)
		b.WriteString(c.image(strings.TrimSpace(p)))
		return k
	case "illustration":
		// problemtools: \illustration{width}{file}{caption}.
		_, k := arg(s, j)
		p, k := arg(s, k)
		capt, k := arg(s, k)
		b.WriteString("\n\n" + c.image(strings.TrimSpace(p)))
		if t := strings.TrimSpace(c.inline(capt, depth)); t != "" {
			b.WriteString("\n\n*" + t + "*")
		}
		b.WriteString("\n\n")
		return skipBlanks(s, k)
	case "problemname":
		t, k := arg(s, j)
		c.title = c.plain(t, depth)
		return k
	case "url":
		u, k := arg(s, j)
		b.WriteString(c.link(u, ""))
		return k
	case "href":
		u, k := arg(s, j)
		t, k := arg(s, k)
		b.WriteString(c.link(u, c.text(t, depth+1)))
		return k
	case "item":
		// Outside a list (lists split on \item themselves).
		_, k := optArg(s, j)
		b.WriteString("\n- ")
		return k
	case "exmp":
		in, k := arg(s, j)
		out, k := arg(s, k)
		b.WriteString(c.sample(in, out))
		return k
	case "exmpfile":
		in, k := arg(s, j)
		out, k := arg(s, k)
		b.WriteString(c.sampleFiles(strings.TrimSpace(in), strings.TrimSpace(out)))
		return k
	case "texttt", "tt", "ttfamily", "bf", "bfseries", "it", "itshape", "em", "sl":
		return c.styled(s, j, name, b, depth)
	}
	if h, ok := sections[strings.TrimSuffix(name, "*")]; ok {
		_, k := optArg(s, j)
		t, k := arg(s, k)
		title := strings.TrimSpace(c.inline(t, depth))
		if h == "**" {
			b.WriteString("\n\n**" + title + "** ")
		} else {
			b.WriteString("\n\n" + h + title + "\n\n")
		}
		return skipSpace(s, k)
	}
	if h, ok := olympSections[name]; ok {
		b.WriteString("\n\n## " + h + "\n\n")
		return skipSpace(s, j)
	}
	if sym, ok := symbols[name]; ok {
		b.WriteString(sym)
		return skipEmptyGroup(s, j)
	}
	if w, ok := wrappers[name]; ok {
		_, k := optArg(s, j)
		t, k := arg(s, k)
		inner := strings.TrimSpace(c.inline(t, depth))
		if inner != "" {
			b.WriteString(w[0] + inner + w[1])
		}
		return k
	}
	if n, ok := dropped[name]; ok {
		k := j
		_, k = optArg(s, k)
		for range n {
			_, k = arg(s, k)
		}
		if name == "def" { // \def\x{…}
			_, k = commandName(s, skipSpace(s, k))
			_, k = arg(s, k)
		}
		return k
	}
	// Unknown: keep the text of its last braced argument
	// (\textcolor{red}{x}, \multicolumn{2}{c}{x}: the text comes last).
	if !known[name] {
		c.note(`unknown command \` + name + ` (its text is kept)`)
	}
	k := j
	_, k = optArg(s, k)
	last := ""
	for k < len(s) && s[k] == '{' {
		last, k = arg(s, k)
	}
	b.WriteString(c.text(last, depth+1))
	return k
}

// styled handles \texttt{x} and the declarations {\tt x}, {\bf x}: a
// declaration applies to the rest of its group (the caller's s from j).
func (c *conv) styled(s string, j int, name string, b *strings.Builder, depth int) int {
	delims := map[string]string{"texttt": "`", "tt": "`", "ttfamily": "`", "bf": "**", "bfseries": "**"}
	d, ok := delims[name]
	if !ok {
		d = "*"
	}
	var body string
	k := j
	if name == "texttt" {
		body, k = arg(s, j)
	} else {
		// A declaration lasts to the end of its group; one that would
		// run over paragraphs (outside a group) is dropped.
		body, k = s[j:], len(s)
		if strings.Contains(body, "\n\n") {
			return j
		}
	}
	if d == "`" {
		b.WriteString(c.code(flatten(body)))
		return k
	}
	inner := strings.TrimSpace(c.inline(body, depth))
	if inner != "" {
		b.WriteString(d + inner + d)
	}
	return k
}

// flatten is TeX source shown as code: escapes undone, braces dropped.
func flatten(s string) string {
	r := strings.NewReplacer(`\_`, "_", `\&`, "&", `\%`, "%", `\$`, "$", `\#`, "#", `\{`, "{", `\}`, "}",
		`\textbackslash`, `\`, `\ `, " ", "{", "", "}", "", "~", " ", `\\`, " ")
	return strings.Join(strings.Fields(r.Replace(s)), " ")
}

// code is inline code with a fence longer than any backtick run in s.
func (c *conv) code(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return c.protect(fence + pad + s + pad + fence)
}

// block is a fenced code block.
func (c *conv) block(s string) string {
	s = strings.Trim(s, "\n")
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return "\n\n" + c.protect(fence+"\n"+s+"\n"+fence) + "\n\n"
}

func longestRun(s string, ch byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == ch {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// inline converts s to one line of Markdown.
func (c *conv) inline(s string, depth int) string {
	return strings.Join(strings.Fields(c.text(s, depth+1)), " ")
}

// plain converts s to one line of text without Markdown (a title).
func (c *conv) plain(s string, depth int) string {
	t := c.inline(s, depth)
	return strings.NewReplacer(`\*`, "*", `\_`, "_", "\\`", "`", `\[`, "[", `\]`, "]", `\<`, "<", `\>`, ">",
		`\#`, "#", `\|`, "|", `\$`, "$", `\\`, `\`, `\&`, "&", `\%`, "%", `\{`, "{", `\}`, "}").Replace(
		placeholder.ReplaceAllStringFunc(t, func(m string) string {
			i, _ := strconv.Atoi(m[1 : len(m)-1])
			if i < len(c.protected) {
				return c.protected[i]
			}
			return ""
		}))
}

// link is a Markdown link to an http(s) URL; other schemes are text.
func (c *conv) link(u, text string) string {
	u = strings.TrimSpace(flatten(u))
	text = strings.TrimSpace(text)
	if text == "" {
		text = escape(u)
	}
	l := strings.ToLower(u)
	if !(strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) || strings.ContainsAny(u, " <>()") {
		return text
	}
	return "[" + text + "](" + c.protect(u) + ")"
}

// image is an \includegraphics.
func (c *conv) image(p string) string {
	p = flatten(p)
	if p == "" {
		return ""
	}
	if !slices.Contains(c.images, p) {
		c.images = append(c.images, p)
	}
	if c.opt.Image == nil {
		c.note("images are not resolved: " + p)
		return ""
	}
	u, ok := c.opt.Image(p)
	if !ok {
		c.note("image not in the package: " + p)
		return "*[image " + escape(p) + " missing]*"
	}
	alt := strings.TrimSuffix(pathBase(p), pathExt(p))
	return "![" + escape(alt) + "](" + c.protect(u) + ")"
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func pathExt(p string) string {
	b := pathBase(p)
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		return b[i:]
	}
	return ""
}

// sample is one olymp.sty example: input and output as code blocks.
func (c *conv) sample(in, out string) string {
	trim := func(s string) string { return strings.Trim(strings.ReplaceAll(s, "\r", ""), "\n") }
	return "\n\n**Input**\n" + c.block(trim(in)) + "**Output**\n" + c.block(trim(out))
}

func (c *conv) sampleFiles(in, out string) string {
	if c.opt.File == nil {
		c.note(`\exmpfile: sample files are not resolved`)
		return ""
	}
	ib, ok1 := c.opt.File(in)
	ob, ok2 := c.opt.File(out)
	if !ok1 || !ok2 {
		c.note(`\exmpfile: sample file not in the package: ` + in + ", " + out)
		return ""
	}
	return c.sample(string(ib), string(ob))
}

// environment handles \begin{name} at s[i] (j after "begin").
func (c *conv) environment(s string, i, j int, b *strings.Builder, depth int) int {
	name, k := arg(s, j)
	name = strings.TrimSpace(name)
	body, end := envBody(s, k, name)
	if depth > MaxDepth {
		b.WriteString(escape(s[i:end]))
		return end
	}
	switch {
	case name == "itemize" || name == "enumerate" || name == "description":
		b.WriteString(c.list(body, name, depth))
	case name == "tabular" || name == "tabular*" || name == "tabularx":
		_, body = argFrom(body) // column spec (tabular* and tabularx: width first)
		if name != "tabular" {
			_, body = argFrom(body)
		}
		b.WriteString(c.table(body, depth))
	case name == "verbatim" || name == "Verbatim" || name == "lstlisting" || name == "minted" || name == "alltt":
		if name == "minted" {
			_, body = argFrom(body)
		} else if name != "verbatim" {
			if o, rest := optArg(body, 0); o != "" || rest > 0 {
				body = body[rest:]
			}
		}
		b.WriteString(c.block(body))
	case mathEnvs[name] != "" || hasKey(mathEnvs, name):
		b.WriteString(c.displayMath(body, mathEnvs[name]))
	case name == "quote" || name == "quotation":
		inner := strings.TrimSpace(c.text(body, depth+1))
		b.WriteString("\n\n> " + strings.ReplaceAll(inner, "\n", "\n> ") + "\n\n")
	case name == "problem":
		// olymp.sty: {title}{input file}{output file}{time}{memory}.
		t, rest := argFrom(body)
		c.title = c.plain(t, depth)
		for range 4 {
			_, rest = argFrom(rest)
		}
		b.WriteString(c.text(rest, depth+1))
	default:
		if !plainEnvs[name] {
			c.note("unknown environment " + name + " (its content is kept)")
		}
		_, rest := optArg(body, 0)
		b.WriteString("\n\n" + c.text(body[rest:], depth+1) + "\n\n")
	}
	return end
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// list converts an itemize, enumerate or description body.
func (c *conv) list(body, kind string, depth int) string {
	items := splitTop(body, func(s string, i int) (int, bool) {
		if name, j := commandName(s, i); name == "item" {
			return j, true
		}
		return 0, false
	})
	var b strings.Builder
	b.WriteString("\n\n")
	n := 0
	for idx, it := range items {
		if idx == 0 {
			if strings.TrimSpace(stripComments(it)) != "" {
				b.WriteString(c.text(it, depth+1) + "\n\n")
			}
			continue
		}
		n++
		label, rest := optArg(it, 0)
		marker := "- "
		if kind == "enumerate" {
			marker = strconv.Itoa(n) + ". "
		}
		text := strings.TrimSpace(c.text(it[rest:], depth+1))
		if kind == "description" || label != "" {
			text = "**" + strings.TrimSpace(c.inline(label, depth)) + "** " + text
		}
		indent := strings.Repeat(" ", len(marker))
		text = strings.ReplaceAll(text, "\n", "\n"+indent)
		b.WriteString(marker + text + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// table converts a tabular body to a GFM table (the first row the header).
func (c *conv) table(body string, depth int) string {
	rows := splitTop(body, func(s string, i int) (int, bool) {
		if strings.HasPrefix(s[i:], `\\`) {
			_, j := optArg(s, i+2)
			return j, true
		}
		return 0, false
	})
	var cells [][]string
	width := 0
	for _, r := range rows {
		r = stripRules(r)
		if strings.TrimSpace(r) == "" {
			continue
		}
		var row []string
		for _, cell := range splitTop(r, func(s string, i int) (int, bool) {
			if s[i] == '&' {
				return i + 1, true
			}
			return 0, false
		}) {
			t := c.inline(cell, depth)
			t = strings.ReplaceAll(t, "|", `\|`)
			row = append(row, strings.ReplaceAll(t, `\\|`, `\|`))
		}
		width = max(width, len(row))
		cells = append(cells, row)
	}
	if len(cells) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n")
	for ri, row := range cells {
		for len(row) < width {
			row = append(row, "")
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if ri == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

var ruleCmd = regexp.MustCompile(`\\(hline|toprule|midrule|bottomrule|cline\{[^}]*\}|cmidrule(\([^)]*\))?\{[^}]*\})`)

func stripRules(s string) string { return ruleCmd.ReplaceAllString(stripComments(s), "") }

// stripComments drops % comments (not \%).
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			b.WriteString(s[i : i+2])
			i++
			continue
		}
		if s[i] == '%' {
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				break
			}
			i += j - 1
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// splitTop splits s at separators found by sep outside braces and nested
// environments; sep returns where the next part starts.
func splitTop(s string, sep func(s string, i int) (int, bool)) []string {
	var parts []string
	depth, envDepth, start := 0, 0, 0
	for i := 0; i < len(s); {
		switch {
		case s[i] == '%':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
				continue
			}
			i += j + 1
			continue
		case strings.HasPrefix(s[i:], `\begin`):
			envDepth++
			i += len(`\begin`)
			continue
		case strings.HasPrefix(s[i:], `\end`):
			envDepth = max(0, envDepth-1)
			i += len(`\end`)
			continue
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '}' || s[i+1] == '&' || s[i+1] == '%'):
			i += 2
			continue
		case s[i] == '{':
			depth++
		case s[i] == '}':
			depth = max(0, depth-1)
		}
		if depth == 0 && envDepth == 0 {
			if j, ok := sep(s, i); ok {
				parts = append(parts, s[start:i])
				start, i = j, j
				continue
			}
		}
		i++
	}
	return append(parts, s[start:])
}

// commandName reads the command at s[i] ('\'): letters (and a trailing
// '*'), or one other character. It returns "" for a lone backslash at
// the end.
func commandName(s string, i int) (string, int) {
	j := i + 1
	if j >= len(s) {
		return "", j
	}
	if !isLetter(s[j]) {
		_, n := utf8.DecodeRuneInString(s[j:])
		return s[j : j+n], j + n
	}
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	name := s[i+1 : j]
	if j < len(s) && s[j] == '*' {
		if _, ok := sections[name]; ok || name == "vspace" || name == "hspace" {
			name += "*"
			j++
		}
	}
	return name, j
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// skipBlanks skips spaces and tabs (after a block: a line's indent).
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func skipEmptyGroup(s string, i int) int {
	if strings.HasPrefix(s[i:], "{}") {
		return i + 2
	}
	return i
}

// arg reads a command's argument at s[i]: a braced group (its inside), or
// one character or command; spaces before it are skipped.
func arg(s string, i int) (string, int) {
	i = skipSpace(s, i)
	if i >= len(s) {
		return "", i
	}
	switch s[i] {
	case '{':
		end := matchBrace(s, i)
		return s[i+1 : end], min(end+1, len(s))
	case '}', '%':
		return "", i
	case '\\':
		_, j := commandName(s, i)
		return s[i:j], j
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return s[i : i+n], i + n
}

// argFrom reads a leading argument of s and returns it and the rest.
func argFrom(s string) (string, string) {
	a, j := arg(s, 0)
	return a, s[j:]
}

// optArg reads [..] at s[i] (after spaces), if there.
func optArg(s string, i int) (string, int) {
	k := skipSpace(s, i)
	if k >= len(s) || s[k] != '[' {
		return "", i
	}
	depth := 0
	for j := k; j < len(s); j++ {
		switch s[j] {
		case '{':
			depth++
		case '}':
			depth--
		case ']':
			if depth <= 0 {
				return s[k+1 : j], j + 1
			}
		}
	}
	return "", i
}

// matchBrace returns the index of the '}' closing the '{' at s[i], or
// len(s) when it is not closed.
func matchBrace(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(s)
}

// envBody returns the body of environment name starting at s[i] and the
// index after its \end{name} (nested environments of the same name
// count); an unclosed environment runs to the end.
func envBody(s string, i int, name string) (string, int) {
	open, closing := `\begin{`+name+`}`, `\end{`+name+`}`
	verbatim := name == "verbatim" || name == "Verbatim" || name == "lstlisting" || name == "minted" || name == "alltt"
	depth := 1
	for j := i; j < len(s); {
		switch {
		case !verbatim && strings.HasPrefix(s[j:], open):
			depth++
			j += len(open)
		case strings.HasPrefix(s[j:], closing):
			depth--
			if depth == 0 {
				return s[i:j], j + len(closing)
			}
			j += len(closing)
		default:
			j++
		}
	}
	return s[i:], len(s)
}

// indexUnescaped finds sub in s, skipping backslash escapes.
func indexUnescaped(s, sub string) int {
	for j := 0; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], sub) {
			return j
		}
	}
	return -1
}

// escape makes text safe for Markdown.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(escapeRune(r))
	}
	return b.String()
}

func escapeRune(r rune) string {
	switch r {
	case '*', '_', '`', '[', ']', '<', '>', '#', '|', '$', '\\':
		return `\` + string(r)
	case 0:
		return ""
	}
	if r != '\n' && r != '\t' && unicode.IsControl(r) {
		return ""
	}
	return string(r)
}
