package judging

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// ExportScope is what Export writes: a contest's or a problem's
// submissions (one of the ids set), all of them or each user's final one
// per problem (their last submission, the one that counts).
type ExportScope struct {
	ContestID, ProblemID int64
	FinalOnly            bool
}

// ExportStats says what Export wrote.
type ExportStats struct {
	Files, Users int
	Bytes        int64
}

// sourceExt is the file extension of a language id's sources.
func sourceExt(lang string) string {
	switch {
	case strings.HasPrefix(lang, "cpp"), strings.HasPrefix(lang, "c++"):
		return ".cpp"
	case strings.HasPrefix(lang, "c"):
		return ".c"
	case strings.HasPrefix(lang, "py"):
		return ".py"
	case strings.HasPrefix(lang, "java"):
		return ".java"
	case lang == "go":
		return ".go"
	}
	return ".txt"
}

// safeName keeps a path element to a-z A-Z 0-9 - _ . (anything else
// becomes _), never "." or "..", so no entry escapes its folder.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	out := strings.Trim(string(b), ".")
	if out == "" {
		return "_"
	}
	return out
}

// ExportName is a submission's path in an export: a folder per user, the
// file named by submission id, problem, verdict and language, e.g.
// "alice/1234-sum-WA-cpp17.cpp".
func ExportName(sub *store.Submission) string {
	return safeName(sub.Username) + "/" + fmt.Sprintf("%d-%s-%s-%s", sub.ID, safeName(sub.ProblemSlug),
		safeName(sub.Verdict), safeName(sub.Language)) + sourceExt(sub.Language)
}

// Export writes a zip of the submissions sc selects to w, one entry at a
// time as MySQL yields them (store.ExportSubmissions): nothing is built in
// memory, so an export of thousands of sources costs one source at a time.
// On an error part of the zip may have been written; the caller, having
// sent its headers, can only cut the answer short.
func (s *Service) Export(ctx context.Context, w io.Writer, sc ExportScope) (ExportStats, error) {
	var st ExportStats
	zw := zip.NewWriter(w)
	lastUser := int64(-1)
	for sub, err := range s.st.ExportSubmissions(ctx, sc.ContestID, sc.ProblemID, sc.FinalOnly) {
		if err != nil {
			return st, fmt.Errorf("judging: export: %w", err)
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: ExportName(sub), Method: zip.Deflate, Modified: sub.CreatedAt})
		if err != nil {
			return st, fmt.Errorf("judging: export %d: %w", sub.ID, err)
		}
		n, err := io.WriteString(f, sub.Source)
		if err != nil {
			return st, fmt.Errorf("judging: export %d: %w", sub.ID, err)
		}
		st.Files++
		st.Bytes += int64(n)
		if sub.UserID != lastUser {
			st.Users++
			lastUser = sub.UserID
		}
	}
	if err := zw.Close(); err != nil {
		return st, fmt.Errorf("judging: export: %w", err)
	}
	return st, nil
}
