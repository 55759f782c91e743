package server

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// staffEnv is an env with a logged-in admin, setter and student.
type staffEnv struct {
	*env
	admin, setter, student *client
	adminUser              store.User
}

func newStaffEnv(t *testing.T, mod func(*Config)) *staffEnv {
	e := newEnv(t, mod)
	se := &staffEnv{env: e}
	login := func(name, role string) *client {
		u := e.user(name, role, name+"-password")
		if role == store.RoleAdmin {
			se.adminUser = u
		}
		c := e.client()
		if r := c.login(name, name+"-password"); r.status != 200 {
			t.Fatalf("login %s: %d %s", name, r.status, r.raw)
		}
		return c
	}
	se.admin, se.setter, se.student = login("root", store.RoleAdmin), login("setter", store.RoleSetter), login("stud", store.RoleStudent)
	return se
}

// call is do with the CSRF header.
func (c *client) call(method, path string, body any) resp {
	c.e.t.Helper()
	return c.do(method, path, body, "X-CSRF-Token", c.csrf)
}

// upload posts data as the multipart field "file" (or, with rawType, as
// the whole body of that type).
func (c *client) upload(path, field string, data []byte, rawType string) resp {
	c.e.t.Helper()
	var body io.Reader
	ct := rawType
	if rawType == "" {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("note", "ignored")
		fw, _ := mw.CreateFormFile(field, "upload.bin")
		_, _ = fw.Write(data)
		_ = mw.Close()
		body, ct = &buf, mw.FormDataContentType()
	} else {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest("POST", c.e.ts.URL+path, body)
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-CSRF-Token", c.csrf)
	res, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := resp{status: res.StatusCode, header: res.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (e *env) count(table string) int {
	e.t.Helper()
	var n int
	if err := e.st.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
		e.t.Fatal(err)
	}
	return n
}

func TestJudgesAdmin(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	anon := se.client()

	wantErr(t, anon.call("GET", "/api/judges", nil), 401, CodeUnauthorized, "")
	wantErr(t, se.student.call("GET", "/api/judges", nil), 403, CodeForbidden, "")
	wantErr(t, se.student.call("POST", "/api/judges", map[string]string{"name": "j1"}), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("POST", "/api/judges", map[string]string{"name": "j1"}), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("DELETE", "/api/judges/j1", nil), 403, CodeForbidden, "")
	if r := se.setter.call("GET", "/api/judges", nil); r.status != 200 {
		t.Fatalf("setter lists judges: %d %s", r.status, r.raw)
	}
	for _, bad := range []string{"", "has space", "a:b", "-lead", ".x", strings.Repeat("j", 65), "jüdge"} {
		wantErr(t, se.admin.call("POST", "/api/judges", map[string]string{"name": bad}), 400, CodeValidation, "name")
	}
	wantErr(t, se.admin.call("POST", "/api/judges", map[string]any{"name": "j1", "token": "x"}), 400, CodeValidation, "token")
	if n := se.count("judges"); n != 0 {
		t.Fatalf("rejected requests wrote %d judges", n)
	}

	r := se.admin.call("POST", "/api/judges", map[string]string{"name": "judge-1"})
	tok, _ := r.body["token"].(string)
	if r.status != 201 || r.body["name"] != "judge-1" || len(tok) != 64 {
		t.Fatalf("issue: %d %s", r.status, r.raw)
	}
	if _, err := hex.DecodeString(tok); err != nil {
		t.Fatalf("token %q is not hex", tok)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	j, err := se.st.JudgeByName(ctx, "judge-1")
	if err != nil || hex.EncodeToString(j.TokenHash) != sum(tok) {
		t.Fatalf("stored hash %x, want sha256 of the token (%v)", j.TokenHash, err)
	}
	hub, _ := se.rdb.HGetAll(ctx, se.names.JudgeTokens()).Result()
	if len(hub) != 2 || hub[sum(tok)] != "judge-1" || hub[rkeys.JudgeTokensSynced] == "" {
		t.Fatalf("hub tokens after issue = %v", hub)
	}
	// The token opens the judge endpoint.
	if g := rawGet(t, se.ts.URL+"/api/judge/testdata/"+strings.Repeat("a", 64), "Authorization", "Bearer "+tok); g.status != 404 {
		t.Fatalf("judge token on the test data endpoint: %d %s", g.status, g.body)
	}

	// Reissue: the old token stops working at once.
	r2 := se.admin.call("POST", "/api/judges", map[string]string{"name": "judge-1"})
	tok2, _ := r2.body["token"].(string)
	if r2.status != 200 || tok2 == tok || len(tok2) != 64 || r2.body["reissued"] != true {
		t.Fatalf("reissue: %d %s", r2.status, r2.raw)
	}
	hub, _ = se.rdb.HGetAll(ctx, se.names.JudgeTokens()).Result()
	if len(hub) != 2 || hub[sum(tok2)] != "judge-1" || hub[rkeys.JudgeTokensSynced] == "" {
		t.Fatalf("hub tokens after reissue = %v", hub)
	}
	if g := rawGet(t, se.ts.URL+"/api/judge/testdata/"+strings.Repeat("a", 64), "Authorization", "Bearer "+tok); g.status != 401 {
		t.Fatalf("old token after reissue: %d", g.status)
	}
	if r := se.admin.call("POST", "/api/judges", map[string]string{"name": "judge-2"}); r.status != 201 {
		t.Fatalf("issue judge-2: %d %s", r.status, r.raw)
	}

	// Live load from the hub's state.
	now := time.Now()
	st := judgestate.State{Hub: "hub-a", Cores: 4, Running: 2, Queued: 1, Load1: 1.5, MemUsedRatio: 0.25, MaxParallel: 4,
		AgentVersion: "v1", Languages: []protocol.Language{{ID: "cpp17", Version: "g++ 12"}, {ID: "py3", Version: "3.11"}},
		LanguagesKnown: true, SeenAt: now}
	if err := se.rdb.HSet(ctx, se.names.Judge("judge-1"), st.Fields()...).Err(); err != nil {
		t.Fatal(err)
	}
	r = se.admin.call("GET", "/api/judges", nil)
	var list struct {
		Judges []JudgeJSON `json:"judges"`
	}
	if err := json.Unmarshal([]byte(r.raw), &list); err != nil || r.status != 200 || len(list.Judges) != 2 {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	j1, j2 := list.Judges[0], list.Judges[1]
	if j1.Name != "judge-1" || !j1.Connected || *j1.Running != 2 || *j1.Cores != 4 || *j1.Load1 != 1.5 ||
		strings.Join(j1.Languages, ",") != "cpp17,py3" || j1.LastSeenAt == nil || j1.Hub != "hub-a" {
		t.Fatalf("judge-1 = %+v", j1)
	}
	if j2.Name != "judge-2" || j2.Connected || j2.Running != nil || j2.LastSeenAt != nil || j2.RevokedAt != nil {
		t.Fatalf("judge-2 = %+v", j2)
	}
	if j, _ := se.st.JudgeByName(ctx, "judge-1"); !j.LastSeenAt.Valid || j.LastSeenAt.Time.Sub(now).Abs() > time.Second {
		t.Fatalf("last_seen_at in MySQL = %v, want about %v", j.LastSeenAt, now)
	}

	// Revoke.
	wantErr(t, se.admin.call("DELETE", "/api/judges/nobody", nil), 404, CodeNotFound, "name")
	if r := se.admin.call("DELETE", "/api/judges/judge-1", nil); r.status != 204 {
		t.Fatalf("revoke: %d %s", r.status, r.raw)
	}
	if r := se.admin.call("DELETE", "/api/judges/judge-1", nil); r.status != 204 {
		t.Fatalf("revoke again: %d %s", r.status, r.raw)
	}
	hub, _ = se.rdb.HGetAll(ctx, se.names.JudgeTokens()).Result()
	if len(hub) != 2 || hub[sum(tok2)] != "" || hub[rkeys.JudgeTokensSynced] == "" {
		t.Fatalf("hub tokens after revoke = %v", hub)
	}
	if g := rawGet(t, se.ts.URL+"/api/judge/testdata/"+strings.Repeat("a", 64), "Authorization", "Bearer "+tok2); g.status != 401 {
		t.Fatalf("revoked token: %d", g.status)
	}
	r = se.admin.call("GET", "/api/judges", nil)
	_ = json.Unmarshal([]byte(r.raw), &list)
	if list.Judges[0].RevokedAt == nil {
		t.Fatalf("revoked judge shows no revoked_at: %s", r.raw)
	}
}

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
