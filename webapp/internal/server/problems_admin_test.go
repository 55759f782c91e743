package server

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

func TestProblemAdmin(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	valid := func() map[string]any {
		return map[string]any{"slug": "sum", "title": "Sum", "statement": "Add $a+b$.", "time_limit_ms": 2000,
			"memory_limit_kb": 131072, "checker": "float", "float_tolerance": 1e-6, "mode": "ioi",
			"visibility": "private", "languages": []string{"cpp17", "py3", "cpp17"}}
	}
	with := func(k string, v any) map[string]any { m := valid(); m[k] = v; return m }
	without := func(k string) map[string]any { m := valid(); delete(m, k); return m }

	wantErr(t, se.client().call("POST", "/api/problems", valid()), 401, CodeUnauthorized, "")
	wantErr(t, se.student.call("POST", "/api/problems", valid()), 403, CodeForbidden, "")
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no slug", without("slug"), "slug"},
		{"bad slug", with("slug", "Sum!"), "slug"},
		{"slug starts with dash", with("slug", "-sum"), "slug"},
		{"long slug", with("slug", strings.Repeat("a", 65)), "slug"},
		{"no title", without("title"), "title"},
		{"blank title", with("title", "  "), "title"},
		{"title with newline", with("title", "a\nb"), "title"},
		{"huge statement", with("statement", strings.Repeat("x", MaxStatementBytes+1)), "statement"},
		{"time too small", with("time_limit_ms", 10), "time_limit_ms"},
		{"time too big", with("time_limit_ms", 600000), "time_limit_ms"},
		{"time not a number", with("time_limit_ms", "1000"), "time_limit_ms"},
		{"memory too small", with("memory_limit_kb", 10), "memory_limit_kb"},
		{"bad checker", with("checker", "fuzzy"), "checker"},
		{"float without tolerance", with("float_tolerance", 0), "float_tolerance"},
		{"negative tolerance", with("float_tolerance", -1), "float_tolerance"},
		{"bad mode", with("mode", "acm"), "mode"},
		{"bad visibility", with("visibility", "secret"), "visibility"},
		{"bad language", with("languages", []string{"C++"}), "languages"},
		{"unknown field", with("author", "me"), "author"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, se.setter.call("POST", "/api/problems", tc.body), 400, CodeValidation, tc.field)
		})
	}
	if n := se.count("problems"); n != 0 {
		t.Fatalf("rejected creates wrote %d problems", n)
	}

	r := se.setter.call("POST", "/api/problems", valid())
	p, _ := r.body["problem"].(map[string]any)
	if r.status != 201 || p["slug"] != "sum" || p["checker"] != "float" || p["float_tolerance"] != 1e-6 ||
		p["mode"] != "ioi" || p["time_limit_ms"] != 2000.0 || len(p["languages"].([]any)) != 2 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	stored, _ := se.st.ProblemBySlug(ctx, "sum")
	if !stored.CreatedBy.Valid {
		t.Error("created_by not recorded")
	}
	wantErr(t, se.admin.call("POST", "/api/problems", valid()), 409, CodeConflict, "slug")
	// Defaults.
	r = se.admin.call("POST", "/api/problems", map[string]any{"slug": "min", "title": "Min"})
	p, _ = r.body["problem"].(map[string]any)
	if r.status != 201 || p["visibility"] != "private" || p["checker"] != "default" || p["time_limit_ms"] != 1000.0 {
		t.Fatalf("create with defaults: %d %s", r.status, r.raw)
	}

	// The public list is cached: fill the cache, publish, see it change.
	anon := se.client()
	if r := anon.call("GET", "/api/problems", nil); !strings.Contains(r.raw, `"problems":[]`) {
		t.Fatalf("public list before publishing: %s", r.raw)
	}
	wantErr(t, se.student.call("PUT", "/api/problems/sum", map[string]any{"visibility": "public"}), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("PUT", "/api/problems/nope", map[string]any{"visibility": "public"}), 404, CodeNotFound, "")
	wantErr(t, se.setter.call("PUT", "/api/problems/sum", map[string]any{"visibility": "everyone"}), 400, CodeValidation, "visibility")
	wantErr(t, se.setter.call("PUT", "/api/problems/sum", map[string]any{"slug": "min"}), 409, CodeConflict, "slug")
	if s, _ := se.st.ProblemBySlug(ctx, "sum"); s.Visibility != "private" {
		t.Fatal("a rejected update was written")
	}
	r = se.setter.call("PUT", "/api/problems/sum", map[string]any{"visibility": "public", "checker": "exact", "title": "Sum 2"})
	p, _ = r.body["problem"].(map[string]any)
	if r.status != 200 || p["visibility"] != "public" || p["title"] != "Sum 2" || p["statement"] != "Add $a+b$." {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	if s, _ := se.st.ProblemBySlug(ctx, "sum"); s.FloatTolerance != 0 {
		t.Errorf("tolerance %v kept after leaving the float checker", s.FloatTolerance)
	}
	if r := anon.call("GET", "/api/problems", nil); !strings.Contains(r.raw, `"slug":"sum"`) {
		t.Fatalf("public list after publishing (cache not invalidated?): %s", r.raw)
	}
	// Rename.
	if r := se.setter.call("PUT", "/api/problems/sum", map[string]any{"slug": "sum-two"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.raw)
	}
	if r := anon.call("GET", "/api/problems/sum-two", nil); r.status != 200 {
		t.Fatalf("renamed problem: %d", r.status)
	}
}

func buildPkg(t *testing.T, cases int, checker bool) []byte {
	t.Helper()
	var cs []testpkg.Case
	for i := range cases {
		cs = append(cs, testpkg.Case{In: []byte{byte('0' + i), '\n'}, Ans: []byte{byte('0' + i), '\n'}})
	}
	p := testpkg.Package{Cases: cs}
	if checker {
		p.Checker = []byte("int main() { return 0; }\n")
	}
	b, _, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	oneFlate(zw)
	for _, name := range slices.Sorted(maps.Keys(files)) { // a stable order: the first bad file is the same every run
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// oneFlate makes zw deflate every entry with one compressor, reset for
// each, at archive/zip's own level (the same bytes). archive/zip keeps its
// compressors in a sync.Pool, which drops some under -race: a new one per
// entry, about a megabyte each, took the 10,002-entry zip of
// TestTestdataUploadCheckedAsJudgesUnpack seconds.
func oneFlate(zw *zip.Writer) {
	fw, _ := flate.NewWriter(io.Discard, 5)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		fw.Reset(w)
		return fw, nil
	})
}

func TestTestdataUpload(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.MaxTestdataBytes = 64 << 10 })
	ctx := context.Background()
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "echo", "title": "Echo"}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "spj", "title": "SPJ", "checker": "special"}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	pkg := buildPkg(t, 3, false)

	wantErr(t, se.student.upload("/api/problems/echo/testdata", "file", pkg, ""), 403, CodeForbidden, "")
	wantErr(t, se.setter.upload("/api/problems/nope/testdata", "file", pkg, ""), 404, CodeNotFound, "")
	big := make([]byte, 70<<10)
	for _, tc := range []struct {
		name, field, rawType string
		data                 []byte
		status               int
		code, errField, msg  string
	}{
		{"not a zip", "file", "", []byte("hello"), 400, CodeValidation, "file", "not a zip"},
		{"missing ans", "file", "", zipOf(t, map[string]string{"1.in": "1", "1.ans": "1", "2.in": "2"}), 400, CodeValidation, "file", "2.ans"},
		{"subdirectory", "file", "", zipOf(t, map[string]string{"data/1.in": "1", "data/1.ans": "1"}), 400, CodeValidation, "file", "data/1."},
		{"stray file", "file", "", zipOf(t, map[string]string{"1.in": "1", "1.ans": "1", "notes.txt": "x"}), 400, CodeValidation, "file", "notes.txt"},
		{"empty zip", "file", "", zipOf(t, map[string]string{}), 400, CodeValidation, "file", "no test cases"},
		{"no file field", "other", "", pkg, 400, CodeValidation, "file", "required"},
		{"empty file", "file", "", []byte{}, 400, CodeValidation, "file", "empty"},
		{"too large", "file", "", big, 413, CodeTooLarge, "file", "larger"},
		{"JSON body", "", "application/json", []byte(`{}`), 415, CodeUnsupportedMedia, "", "multipart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := se.setter.upload("/api/problems/echo/testdata", tc.field, tc.data, tc.rawType)
			wantErr(t, r, tc.status, tc.code, tc.errField)
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q does not mention %q", msg, tc.msg)
			}
		})
	}
	wantErr(t, se.setter.upload("/api/problems/spj/testdata", "file", pkg, ""), 400, CodeValidation, "file")
	if n := se.count("testdata_versions"); n != 0 {
		t.Fatalf("rejected uploads wrote %d versions", n)
	}

	sub := se.rdb.Subscribe(ctx, se.names.JudgeEvict())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	r := se.setter.upload("/api/problems/echo/testdata", "file", pkg, "")
	sum := sha256.Sum256(pkg)
	hash := hex.EncodeToString(sum[:])
	if r.status != 201 || r.body["hash"] != hash || r.body["case_count"] != 3.0 || r.body["size_bytes"] != float64(len(pkg)) {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	if ok, _ := se.srv.cfg.Blobs.Has(ctx, hash); !ok {
		t.Fatal("the blob is not stored")
	}
	p, _ := se.st.ProblemBySlug(ctx, "echo")
	if p.TestdataHash.String != hash {
		t.Fatalf("problem hash %q, want %q", p.TestdataHash.String, hash)
	}
	vs, _ := se.st.TestdataVersions(ctx, p.ID)
	if len(vs) != 1 || vs[0].CaseCount != 3 || !vs[0].UploadedBy.Valid {
		t.Fatalf("versions = %+v", vs)
	}

	// A new version: as the raw body this time; the judges drop the old.
	pkg2 := buildPkg(t, 4, false)
	r = se.setter.upload("/api/problems/echo/testdata", "", pkg2, "application/zip")
	if r.status != 201 || r.body["previous"] != hash || r.body["case_count"] != 4.0 {
		t.Fatalf("second upload: %d %s", r.status, r.raw)
	}
	msgCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := sub.ReceiveMessage(msgCtx)
	if err != nil {
		t.Fatalf("no evict message: %v", err)
	}
	var ev protocol.Evict
	if err := json.Unmarshal([]byte(m.Payload), &ev); err != nil || ev.ProblemID != p.ID || ev.DataHash != hash {
		t.Fatalf("evict = %s (%v), want problem %d hash %s", m.Payload, err, p.ID, hash)
	}
	if p, _ = se.st.ProblemBySlug(ctx, "echo"); p.TestdataHash.String == hash {
		t.Fatal("the problem still points at the old version")
	}
	if vs, _ := se.st.TestdataVersions(ctx, p.ID); len(vs) != 2 {
		t.Fatalf("%d versions, want 2", len(vs))
	}
	// A special-checker problem takes a package with checker.cpp.
	if r := se.admin.upload("/api/problems/spj/testdata", "file", buildPkg(t, 1, true), ""); r.status != 201 || r.body["checker"] != true {
		t.Fatalf("upload with checker: %d %s", r.status, r.raw)
	}
}
