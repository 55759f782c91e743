package icpcpkg

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/latex"
)

// Asset kinds.
const (
	// AssetImage: a file the statement shows (an \includegraphics or a
	// Markdown image of the package).
	AssetImage = "image"
	// AssetAttachment: a file offered for download with the statement
	// (ICPC attachments/, Polygon's statement resources).
	AssetAttachment = "attachment"
)

// AssetScheme prefixes an asset's name in a converted statement's links,
// `![x](asset:fig.png)`; the web node rewrites it to the served URL when
// it shows the statement, so the links survive a change of slug.
const AssetScheme = "asset:"

// AssetLink is the link target of an asset in a statement: AssetScheme
// and the name, escaped for a URL path and for Markdown's parentheses.
func AssetLink(name string) string {
	return AssetScheme + strings.NewReplacer("(", "%28", ")", "%29").Replace(url.PathEscape(name))
}

// MaxAssetBytes bounds one image or attachment.
const MaxAssetBytes = 16 << 20

// Asset is an image or attachment kept with the statement.
type Asset struct {
	// Name is the file name it is served under (no directories).
	Name string
	Kind string
	Data []byte
}

// mdImage is a Markdown image, ![alt](target).
var mdImage = regexp.MustCompile(`!\[([^\]]*)\]\(([^)\s]+)\)`)

// imageExts are the image types a statement may show (served inline).
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"}

// addAsset adds a file under a unique, safe base name and returns it.
func addAsset(assets *[]Asset, name, kind string, data []byte) (string, error) {
	base := path.Base(name)
	if base == "" || base == "." || base == "/" || strings.ContainsAny(base, "\\\"\x00\r\n") || strings.HasPrefix(base, ".") {
		return "", fmt.Errorf("%w: %s: not a file name an asset may have", ErrInvalid, name)
	}
	if len(data) > MaxAssetBytes {
		return "", fmt.Errorf("%w: %s: %d bytes, limit %d for an image or attachment", ErrInvalid, name, len(data), MaxAssetBytes)
	}
	for _, a := range *assets {
		if a.Name == base {
			if string(a.Data) == string(data) {
				return base, nil
			}
			return "", fmt.Errorf("%w: %s: two different files are named %s", ErrUnsupported, name, base)
		}
	}
	*assets = append(*assets, Asset{Name: base, Kind: kind, Data: data})
	return base, nil
}

// ConvertLaTeX converts a LaTeX statement at texPath with files (the
// package's, by path): images referenced by \includegraphics next to it
// (with or without an extension) become image assets, linked with
// AssetScheme. It returns the Markdown and the title the LaTeX gives.
func ConvertLaTeX(texPath string, files map[string][]byte, assets *[]Asset, notes *[]string) (string, string, error) {
	dir := path.Dir(texPath)
	var failed error
	opt := latex.Options{
		Image: func(p string) (string, bool) {
			for _, cand := range imageCandidates(dir, p) {
				if b, ok := files[cand]; ok {
					name, err := addAsset(assets, cand, AssetImage, b)
					if err != nil {
						failed = err
						return "", false
					}
					return AssetLink(name), true
				}
			}
			return "", false
		},
		File: func(n string) ([]byte, bool) {
			b, ok := files[path.Join(dir, n)]
			return b, ok
		},
	}
	r := latex.ToMarkdown(string(files[texPath]), opt)
	if failed != nil {
		return "", "", failed
	}
	for _, n := range r.Notes {
		*notes = append(*notes, texPath+": "+n)
	}
	return r.Markdown, r.Title, nil
}

// imageCandidates are the package paths an \includegraphics{p} may mean:
// as written, then with each image extension (LaTeX's search; a .pdf or
// .eps figure is not shown).
func imageCandidates(dir, p string) []string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	out := []string{path.Join(dir, p)}
	if path.Ext(p) == "" {
		for _, e := range imageExts {
			out = append(out, path.Join(dir, p+e))
		}
	}
	return out
}

// readLaTeXStatement converts the chosen problem.<lang>.tex and keeps the
// images it shows.
func (p *Problem) readLaTeXStatement(texPath string, files map[string][]byte) error {
	md, title, err := ConvertLaTeX(texPath, files, &p.Assets, &p.Notes)
	if err != nil {
		return err
	}
	p.Statement = md
	if p.Title == "" {
		p.Title = title
	}
	p.Notes = append(p.Notes, "the statement was converted from LaTeX ("+texPath+"): check it")
	return nil
}

// readMarkdownImages keeps the package images a Markdown statement links
// by a relative path and points the links at the assets.
func (p *Problem) readMarkdownImages(mdPath string, files map[string][]byte) error {
	dir := path.Dir(mdPath)
	var failed error
	p.Statement = mdImage.ReplaceAllStringFunc(p.Statement, func(m string) string {
		sub := mdImage.FindStringSubmatch(m)
		target := sub[2]
		if strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
			return m // absolute: left alone
		}
		b, ok := files[path.Join(dir, target)]
		if !ok {
			return m
		}
		name, err := addAsset(&p.Assets, path.Join(dir, target), AssetImage, b)
		if err != nil {
			failed = err
			return m
		}
		return "![" + sub[1] + "](" + AssetLink(name) + ")"
	})
	return failed
}

// readAttachments keeps attachments/ (every file, by its base name).
func (p *Problem) readAttachments(files map[string][]byte) error {
	var names []string
	for n := range files {
		if strings.HasPrefix(n, "attachments/") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := addAsset(&p.Assets, n, AssetAttachment, files[n]); err != nil {
			return err
		}
	}
	return nil
}

// MaxSampleShown bounds a sample's input or answer shown in the
// statement; a larger one is left out (with a note).
const MaxSampleShown = 4 << 10

// appendSamples shows the package's samples (data/sample) at the end of
// the statement, as problemtools does: an ICPC statement does not carry
// them itself. Interactive samples are not shown (their .in is the
// interactor's, not what the solution reads).
func (p *Problem) appendSamples(pkg testpkg.Package) {
	if p.Interactive || len(pkg.Samples) == 0 || strings.TrimSpace(p.Statement) == "" {
		return
	}
	var b strings.Builder
	for i, c := range pkg.Samples {
		in, ans := pkg.Cases[c-1].In, pkg.Cases[c-1].Ans
		if len(in) > MaxSampleShown || len(ans) > MaxSampleShown || !utf8.Valid(in) || !utf8.Valid(ans) {
			p.Notes = append(p.Notes, fmt.Sprintf("sample %d is not shown in the statement (larger than %d bytes, or not text)", i+1, MaxSampleShown))
			continue
		}
		fmt.Fprintf(&b, "\n### Sample %d\n\n**Input**\n\n%s\n**Output**\n\n%s", i+1, fence(in), fence(ans))
	}
	if b.Len() > 0 {
		p.Statement = strings.TrimRight(p.Statement, "\n") + "\n\n## Samples\n" + b.String()
	}
}

// fence is a fenced code block of s, its fence longer than any backtick
// run in s.
func fence(s []byte) string {
	run, best := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, best+1))
	return f + "\n" + strings.TrimRight(string(s), "\n") + "\n" + f + "\n"
}
