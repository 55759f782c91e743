package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

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

func TestJudgeTestdataAccess(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	url := je.ts.URL + "/api/judge/testdata/" + je.hash
	// A logged-in user (even an admin) cannot download test data.
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	wantErr(t, admin.do("GET", "/api/judge/testdata/"+je.hash, nil), 401, CodeUnauthorized, "")
	for _, h := range []string{"", "Bearer", "Bearer wrong-token", "Basic " + judgeToken, judgeToken} {
		if r := rawGet(t, url, "Authorization", h); r.status != 401 {
			t.Fatalf("Authorization %q: %d", h, r.status)
		}
	}
	// A judge token cannot log in as a user.
	wantErr(t, je.client().do("POST", "/api/session", map[string]string{"username": "judge-1", "password": judgeToken}),
		401, CodeInvalidCredentials, "")
	if r := rawGet(t, url, "Cookie", "verdict_session="+judgeToken); r.status != 401 {
		t.Fatalf("token as a cookie: %d", r.status)
	}
	if r := rawGet(t, je.ts.URL+"/api/me", "Authorization", "Bearer "+judgeToken); r.status != 401 {
		t.Fatalf("token on /api/me: %d", r.status)
	}
	// Unknown hash (valid or not) is 404.
	if r := rawGet(t, je.ts.URL+"/api/judge/testdata/"+hex.EncodeToString(make([]byte, 32)), "Authorization", "Bearer "+judgeToken); r.status != 404 {
		t.Fatalf("unknown hash: %d", r.status)
	}
	if r := rawGet(t, je.ts.URL+"/api/judge/testdata/..%2f..%2fetc", "Authorization", "Bearer "+judgeToken); r.status != 404 {
		t.Fatalf("bad hash: %d", r.status)
	}
	// Redis lost the token hash: MySQL still knows the judge.
	je.rdb.Del(ctx, je.names.JudgeTokens())
	if r := rawGet(t, url, "Authorization", "Bearer "+judgeToken); r.status != 200 {
		t.Fatalf("token from MySQL: %d", r.status)
	}
	// Range requests work (resumable downloads).
	if r := rawGet(t, url, "Authorization", "Bearer "+judgeToken, "Range", "bytes=0-9"); r.status != 206 || len(r.body) != 10 {
		t.Fatalf("range: %d %d", r.status, len(r.body))
	}
}
