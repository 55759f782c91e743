package server

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The documented shapes of CLICS 2023-06 (docs/icpc.md; the spec's tables
// and its JSON schemas), strict: a required field missing, a field of the
// wrong kind or a field not listed fails.
type ccsField struct {
	kind     string
	required bool
}

var (
	ccsIdent = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_.-]{0,34}[A-Za-z0-9_-]|)$`)
	ccsJT    = regexp.MustCompile(`^(AC|RE|WA|TLE|RTE|CE|APE|OLE|PE|EO|IO|NO|WTL|ILE|TCO|TWA|TPE|TEO|TIO|TNO|MLE|SV|IF|RCO|RWA|RPE|REO|RIO|RNO|CTL|JE|SE|CS)$`)
	ccsAbs   = regexp.MustCompile(`^[12][0-9]{3}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-6][0-9]:[0-6][0-9](\.[0-9]{3})?([+-][0-1][0-9](:[0-5][0-9])?|Z)$`)
	ccsRel   = regexp.MustCompile(`^-?([1-9][0-9]*)?[0-9]:[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?$`)
)

func req(kind string) ccsField { return ccsField{kind, true} }
func opt(kind string) ccsField { return ccsField{kind, false} }

var ccsSchemas = map[string]map[string]ccsField{
	"info": {"version": req("string"), "version_url": req("string"), "name": opt("string"), "provider": opt("object"), "logo": opt("files")},
	"contests": {"id": req("id"), "name": req("string"), "formal_name": opt("string?"), "start_time": opt("abstime?"),
		"countdown_pause_time": opt("reltime?"), "duration": req("reltime"), "scoreboard_freeze_duration": opt("reltime?"),
		"scoreboard_thaw_time": opt("abstime?"), "scoreboard_type": req("string"), "penalty_time": opt("int"),
		"banner": opt("files?"), "logo": opt("files?"), "location": opt("object?")},
	"state": {"started": opt("abstime?"), "frozen": opt("abstime?"), "ended": opt("abstime?"), "thawed": opt("abstime?"),
		"finalized": opt("abstime?"), "end_of_updates": opt("abstime?")},
	"judgement-types": {"id": req("jt"), "name": req("string"), "penalty": req("bool"), "solved": req("bool")},
	"languages": {"id": req("id"), "name": req("string"), "entry_point_required": req("bool"), "entry_point_name": opt("string?"),
		"extensions": req("strings"), "compiler": opt("object?"), "runner": opt("object?")},
	"problems": {"id": req("id"), "uuid": opt("string?"), "label": req("string"), "name": req("string"), "ordinal": req("int"),
		"rgb": opt("string?"), "color": opt("string?"), "time_limit": req("number"), "test_data_count": req("int"),
		"max_score": opt("number"), "package": opt("files?"), "statement": opt("files?")},
	"groups":        {"id": req("id"), "icpc_id": opt("string?"), "name": req("string"), "type": opt("string?"), "location": opt("object?")},
	"organizations": {"id": req("id"), "icpc_id": opt("string?"), "name": req("string"), "formal_name": opt("string?"), "country": opt("string?")},
	"teams": {"id": req("id"), "icpc_id": opt("string?"), "name": req("string"), "label": req("string"), "display_name": opt("string?"),
		"organization_id": opt("id?"), "group_ids": opt("ids?"), "hidden": opt("bool?"), "location": opt("object"), "photo": opt("files?")},
	"team-members": {"id": req("id"), "team_id": req("id"), "icpc_id": opt("string?"), "first_name": req("string"),
		"last_name": req("string"), "sex": opt("string?"), "role": req("string"), "photo": opt("files?")},
	"submissions": {"id": req("id"), "language_id": req("id"), "problem_id": req("id"), "team_id": req("id"), "time": req("abstime"),
		"contest_time": req("reltime"), "entry_point": opt("string?"), "files": req("files"), "reaction": opt("files?")},
	"judgements": {"id": req("id"), "submission_id": req("id"), "judgement_type_id": opt("jt?"), "score": opt("number"),
		"start_time": req("abstime"), "start_contest_time": req("reltime"), "end_time": opt("abstime?"), "end_contest_time": opt("reltime?"),
		"max_run_time": opt("number?")},
	"runs": {"id": req("id"), "judgement_id": req("id"), "ordinal": req("int"), "judgement_type_id": req("jt"), "time": req("abstime"),
		"contest_time": req("reltime"), "run_time": req("number")},
	"clarifications": {"id": req("id"), "from_team_id": opt("id?"), "to_team_id": opt("id?"), "reply_to_id": opt("id?"),
		"problem_id": opt("id?"), "text": req("string"), "time": req("abstime"), "contest_time": req("reltime")},
	"awards":     {"id": req("id"), "citation": req("string"), "team_ids": req("ids?")},
	"scoreboard": {"time": req("abstime"), "contest_time": req("reltime"), "state": req("state"), "rows": req("rows")},
	"row":        {"rank": req("int"), "team_id": req("id"), "score": req("score"), "problems": opt("problemrows")},
	"score":      {"num_solved": opt("int"), "total_time": opt("int"), "score": opt("number"), "time": opt("int?")},
	"problemrow": {"problem_id": req("id"), "num_judged": req("int"), "num_pending": req("int"), "solved": opt("bool"),
		"score": opt("number"), "time": opt("int")},
	"event":   {"type": req("type"), "id": req("id?"), "data": req("any"), "token": opt("string")},
	"fileref": {"href": req("string"), "mime": req("string"), "hash": opt("string?"), "filename": opt("string"), "width": opt("int"), "height": opt("int")},
}

// checkShape checks v against the schema named schema; at names it.
func checkShape(t *testing.T, schema string, v any, at string) {
	t.Helper()
	fields, ok := ccsSchemas[schema]
	if !ok {
		t.Fatalf("%s: no schema %q", at, schema)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s: %T is not an object", at, v)
		return
	}
	for name, f := range fields {
		if _, ok := obj[name]; !ok && f.required {
			t.Errorf("%s: required field %q missing in %v", at, name, obj)
		}
	}
	for name, val := range obj {
		f, ok := fields[name]
		if !ok {
			t.Errorf("%s: unknown field %q", at, name)
			continue
		}
		checkKind(t, f.kind, val, at+"."+name)
	}
	if schema == "judgements" { // the outcome fields: all or none (judgement.json's oneOf)
		n := 0
		for _, k := range []string{"judgement_type_id", "end_time", "end_contest_time"} {
			if _, ok := obj[k]; ok {
				n++
			}
		}
		if n != 0 && n != 3 {
			t.Errorf("%s: judgement_type_id, end_time and end_contest_time go together: %v", at, obj)
		}
	}
}

func checkKind(t *testing.T, kind string, v any, at string) {
	t.Helper()
	if strings.HasSuffix(kind, "?") {
		if v == nil {
			return
		}
		kind = strings.TrimSuffix(kind, "?")
	}
	str := func(re *regexp.Regexp) {
		s, ok := v.(string)
		if !ok || (re != nil && !re.MatchString(s)) {
			t.Errorf("%s: %#v is not a %s", at, v, kind)
		}
	}
	switch kind {
	case "any":
	case "string":
		str(nil)
	case "id":
		str(ccsIdent)
	case "jt":
		str(ccsJT)
	case "abstime":
		str(ccsAbs)
	case "reltime":
		str(ccsRel)
	case "type":
		s, _ := v.(string)
		if _, ok := ccsSchemas[s]; !ok || s == "info" || s == "scoreboard" {
			t.Errorf("%s: %q is not an event type", at, s)
		}
	case "bool":
		if _, ok := v.(bool); !ok {
			t.Errorf("%s: %#v is not a boolean", at, v)
		}
	case "int", "number":
		n, ok := v.(float64)
		if !ok || (kind == "int" && n != float64(int64(n))) {
			t.Errorf("%s: %#v is not an %s", at, v, kind)
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			t.Errorf("%s: %#v is not an object", at, v)
		}
	case "state", "score":
		checkShape(t, kind, v, at)
	case "strings", "ids", "files", "rows", "problemrows":
		arr, ok := v.([]any)
		if !ok {
			t.Errorf("%s: %#v is not an array", at, v)
			return
		}
		for i, x := range arr {
			at := fmt.Sprintf("%s[%d]", at, i)
			switch kind {
			case "strings":
				checkKind(t, "string", x, at)
			case "ids":
				checkKind(t, "id", x, at)
			case "files":
				checkShape(t, "fileref", x, at)
			case "rows":
				checkShape(t, "row", x, at)
			case "problemrows":
				checkShape(t, "problemrow", x, at)
			}
		}
	default:
		t.Fatalf("%s: unknown kind %q", at, kind)
	}
}

// checkEvent checks one event and its data.
func checkEvent(t *testing.T, ev map[string]any, at string) {
	t.Helper()
	checkShape(t, "event", ev, at)
	typ, _ := ev["type"].(string)
	if typ == "state" {
		if ev["id"] != nil {
			t.Errorf("%s: the state event's id is null, not %v", at, ev["id"])
		}
	} else if ev["id"] == nil {
		t.Errorf("%s: no id", at)
	}
	if ev["data"] == nil {
		return // a delete
	}
	checkShape(t, typ, ev["data"], at+".data")
	if d, ok := ev["data"].(map[string]any); ok && typ != "state" && d["id"] != ev["id"] {
		t.Errorf("%s: event id %v, data id %v", at, ev["id"], d["id"])
	}
}

// ccsEnv: a running ICPC contest c1 with problem A, students alice and
// bob, an admin, and their API tokens.
type ccsEnv struct {
	*judgeEnv
	cid                 int64
	alice, bob, admin   *client
	staffTok, publicTok string // the admin's staff token, alice's read token
}

func newCCSEnv(t *testing.T, start, end time.Time, freeze int, mod func(*Config)) *ccsEnv {
	t.Helper()
	je := newJudgeEnv(t, mod)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid, err := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "Contest One", Rule: "icpc", StartAt: start,
		EndAt: end, FreezeMinutes: freeze, Registration: "open", Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100); err != nil {
		t.Fatal(err)
	}
	ce := &ccsEnv{judgeEnv: je, cid: cid, alice: je.student("alice"), bob: je.student("bob")}
	je.user("root", store.RoleAdmin, "root-password")
	ce.admin = je.client()
	ce.admin.login("root", "root-password")
	ce.staffTok = ce.token(ce.admin, "cds", "staff")
	ce.publicTok = ce.token(ce.alice, "scoreboard", "read")
	return ce
}

func (ce *ccsEnv) token(c *client, name, scope string) string {
	ce.t.Helper()
	r := c.call("POST", "/api/me/tokens", map[string]string{"name": name, "scope": scope})
	if r.status != http.StatusCreated {
		ce.t.Fatalf("create token: %d %s", r.status, r.raw)
	}
	return r.body["token"].(string)
}

func (ce *ccsEnv) submit(c *client, key string) int64 {
	ce.t.Helper()
	r := c.submit(key, map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "print(1)"})
	if r.status != http.StatusCreated {
		ce.t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	return id(r)
}

// ccsGet GETs a Contest API path with an Authorization header.
func ccsGet(t *testing.T, base, path, authz string) (int, []byte, http.Header) {
	t.Helper()
	rq, _ := http.NewRequest("GET", base+path, nil)
	if authz != "" {
		rq.Header.Set("Authorization", authz)
	}
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

func bearer(tok string) string { return "Bearer " + tok }
func basic(user, tok string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+tok))
}

// feedConn is an open event feed.
type feedConn struct {
	t      *testing.T
	lines  chan string
	cancel context.CancelFunc
	done   chan struct{}
	// token is the last token read.
	token string
}

func openFeed(t *testing.T, base, query, authz string) *feedConn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rq, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/ccs/contests/c1/event-feed"+query, nil)
	rq.Header.Set("Authorization", authz)
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-ndjson" {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		t.Fatalf("event feed: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	fc := &feedConn{t: t, lines: make(chan string, 1000), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(fc.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			fc.lines <- sc.Text()
		}
		close(fc.lines)
	}()
	t.Cleanup(fc.close)
	return fc
}

func (fc *feedConn) close() {
	fc.cancel()
	<-fc.done
}

// until reads events (checking each) until one satisfies stop, or fails
// after a few seconds. Keep-alive newlines are counted in *keepalives.
func (fc *feedConn) until(stop func(ev map[string]any) bool) []map[string]any {
	fc.t.Helper()
	var got []map[string]any
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-fc.lines:
			if !ok {
				fc.t.Fatalf("the feed ended; read %d events", len(got))
			}
			if line == "" {
				continue // keep-alive
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				fc.t.Fatalf("not JSON: %q", line)
			}
			checkEvent(fc.t, ev, fmt.Sprintf("event %d %s", len(got), line))
			if tok, _ := ev["token"].(string); tok != "" {
				fc.token = tok
			}
			got = append(got, ev)
			if stop(ev) {
				return got
			}
		case <-deadline:
			fc.t.Fatalf("timed out; read %d events: %v", len(got), got)
		}
	}
}

func hasToken(ev map[string]any) bool { return ev["token"] != nil }

func isEvent(typ, id string) func(map[string]any) bool {
	return func(ev map[string]any) bool { return ev["type"] == typ && ev["id"] == id }
}

func isFinal(jid string) func(map[string]any) bool {
	return func(ev map[string]any) bool {
		d, _ := ev["data"].(map[string]any)
		return ev["type"] == "judgements" && ev["id"] == jid && d["judgement_type_id"] != nil
	}
}

func findEvent(evs []map[string]any, typ, id string) map[string]any {
	var last map[string]any
	for _, ev := range evs {
		if ev["type"] == typ && ev["id"] == id {
			last = ev
		}
	}
	return last
}

// TestCCSEndpointShapes checks every endpoint and every event type against
// the documented shapes, for staff and for the public.
func TestCCSEndpointShapes(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 30, nil)
	ctx := context.Background()
	a1 := ce.submit(ce.alice, "a1")
	ce.judge(a1, 1, protocol.VerdictWA, 3)
	a2 := ce.submit(ce.alice, "a2")
	ce.judge(a2, 1, protocol.VerdictAC, 3)
	b1 := ce.submit(ce.bob, "b1")
	ce.judge(b1, 1, protocol.VerdictCE, 0)
	ce.submit(ce.bob, "b2") // pending
	ce.consume()
	aliceID := ce.userID("alice")
	if _, err := ce.st.AddClarification(ctx, store.Clarification{ContestID: ce.cid, UserID: sql.NullInt64{Int64: aliceID, Valid: true},
		Question: sql.NullString{String: "Is n > 0?", Valid: true}, Answer: sql.NullString{String: "Yes.", Valid: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ce.st.AddClarification(ctx, store.Clarification{ContestID: ce.cid,
		Answer: sql.NullString{String: "Problem A is fixed.", Valid: true}, Public: true}); err != nil {
		t.Fatal(err)
	}
	base := ce.ts.URL + "/api/ccs"
	for round, who := range []struct {
		name, authz string
		staff       bool
	}{{"staff bearer", bearer(ce.staffTok), true}, {"public basic", basic("alice", ce.publicTok), false}} {
		get := func(path string) any {
			t.Helper()
			st, b, _ := ccsGet(t, base, path, who.authz)
			if st != 200 {
				t.Fatalf("%s GET %s: %d %s", who.name, path, st, b)
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("%s GET %s: %v", who.name, path, err)
			}
			return v
		}
		checkShape(t, "info", get("/"), who.name+" /")
		for i, c := range get("/contests").([]any) {
			checkShape(t, "contests", c, fmt.Sprintf("%s /contests[%d]", who.name, i))
		}
		checkShape(t, "contests", get("/contests/c1"), who.name+" contest")
		checkShape(t, "state", get("/contests/c1/state"), who.name+" state")
		checkShape(t, "scoreboard", get("/contests/c1/scoreboard"), who.name+" scoreboard")
		counts := map[string]int{}
		for _, typ := range []string{"judgement-types", "languages", "problems", "groups", "organizations", "teams", "submissions",
			"judgements", "runs", "clarifications", "awards"} {
			list := get("/contests/c1/" + typ).([]any)
			counts[typ] = len(list)
			for i, o := range list {
				checkShape(t, typ, o, fmt.Sprintf("%s %s[%d]", who.name, typ, i))
				// Each object by id too.
				oid := o.(map[string]any)["id"].(string)
				checkShape(t, typ, get("/contests/c1/"+typ+"/"+oid), who.name+" "+typ+"/"+oid)
			}
		}
		wantClars := 1
		if who.staff {
			wantClars = 3 + 2*round // the question, its answer, the announcement
		} else {
			wantClars = 1 + 1*round // the announcements (the first round's too)
		}
		// (the first round's live submission is in the second's counts)
		if counts["teams"] != 2 || counts["submissions"] != 4+round || counts["judgements"] != 4+round || counts["runs"] != 6+2*round ||
			counts["problems"] != 1 || counts["clarifications"] != wantClars || counts["awards"] != 6 { // winner, 3 medals, honorable-mention, first-to-solve-A
			t.Errorf("%s: counts %v", who.name, counts)
		}
		sb := get("/contests/c1/scoreboard").(map[string]any)
		row := sb["rows"].([]any)[0].(map[string]any)
		score := row["score"].(map[string]any)
		if row["team_id"] != ccs.ID(aliceID) || score["num_solved"] != float64(1) || score["total_time"].(float64) < 20 {
			t.Errorf("%s: scoreboard row %v", who.name, row)
		}
		// The event feed: the snapshot, then what happens.
		fc := openFeed(t, ce.ts.URL, "", who.authz)
		evs := fc.until(hasToken)
		types := map[string]int{}
		for _, ev := range evs {
			types[ev["type"].(string)]++
		}
		for _, typ := range []string{"contests", "state", "judgement-types", "languages", "problems", "teams", "submissions", "judgements",
			"runs", "clarifications"} {
			if types[typ] == 0 {
				t.Errorf("%s: the snapshot has no %s: %v", who.name, typ, types)
			}
		}
		n := ce.submit(ce.bob, "b3-"+who.name[:5])
		live := fc.until(isEvent("judgements", ccs.JudgementID(n, 1)))
		ce.judge(n, 1, protocol.VerdictTLE, 2)
		ce.consume()
		live = append(live, fc.until(isFinal(ccs.JudgementID(n, 1)))...)
		if findEvent(live, "submissions", ccs.ID(n)) == nil || findEvent(live, "runs", ccs.RunID(n, 1, 1)) == nil {
			t.Errorf("%s: live events %v", who.name, live)
		}
		// Clarifications: a question (staff see it), then an announcement
		// (everyone does).
		if r := ce.bob.call("POST", "/api/contests/c1/clarifications", map[string]string{"question": "Q " + who.name}); r.status != 201 {
			t.Fatalf("ask: %d %s", r.status, r.raw)
		}
		r := ce.admin.call("POST", "/api/contests/c1/clarifications", map[string]string{"announcement": "A " + who.name})
		if r.status != 201 {
			t.Fatalf("announce: %d %s", r.status, r.raw)
		}
		ann := fmt.Sprint(int64(r.body["clarification"].(map[string]any)["id"].(float64)))
		clars := fc.until(isEvent("clarifications", ann))
		q := 0
		for _, ev := range clars {
			if ev["type"] == "clarifications" && ev["data"].(map[string]any)["from_team_id"] != nil {
				q++
			}
		}
		if (q == 1) != who.staff {
			t.Errorf("%s: the question in the feed %d times: %v", who.name, q, clars)
		}
		fc.close()
	}
	// Files: staff get the source as a zip.
	st, b, h := ccsGet(t, base, "/contests/c1/submissions/"+ccs.ID(a1)+"/files", bearer(ce.staffTok))
	if st != 200 || h.Get("Content-Type") != "application/zip" {
		t.Fatalf("files: %d %s", st, b)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "main.py" {
		t.Fatalf("files zip: %v %v", err, zr)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1/submissions/"+ccs.ID(a1)+"/files", bearer(ce.publicTok)); st != 403 {
		t.Errorf("public files: %d", st)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1/nonsense", bearer(ce.staffTok)); st != 404 {
		t.Errorf("unknown collection: %d", st)
	}
	if st, _, _ := ccsGet(t, base, "/contests/nope/state", bearer(ce.staffTok)); st != 404 {
		t.Errorf("unknown contest: %d", st)
	}
}

func (ce *ccsEnv) userID(name string) int64 {
	u, err := ce.st.UserByUsername(context.Background(), name)
	if err != nil {
		ce.t.Fatal(err)
	}
	return u.ID
}

// TestAPITokenScopesAndRevocation: tokens are personal, hashed, scoped
// (read: the public's view; staff: staff only, and only while the owner
// is staff), usable as Bearer or Basic, and dead once revoked.
func TestAPITokenScopesAndRevocation(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	ctx := context.Background()
	base := ce.ts.URL + "/api/ccs"
	s1 := ce.submit(ce.alice, "s1")
	files := "/contests/c1/submissions/" + ccs.ID(s1) + "/files"

	// A student cannot issue a staff token; the scope is validated.
	wantErr(t, ce.bob.call("POST", "/api/me/tokens", map[string]string{"name": "x", "scope": "staff"}), 403, CodeForbidden, "scope")
	wantErr(t, ce.bob.call("POST", "/api/me/tokens", map[string]string{"name": "x", "scope": "admin"}), 400, CodeValidation, "scope")
	wantErr(t, ce.bob.call("POST", "/api/me/tokens", map[string]string{"name": ""}), 400, CodeValidation, "name")
	wantErr(t, ce.bob.do("POST", "/api/me/tokens", map[string]string{"name": "x"}), 403, CodeCSRF, "")
	wantErr(t, ce.e().client().do("GET", "/api/me/tokens", nil), 401, CodeUnauthorized, "")

	// Stored hashed: the secret is in no column.
	var n int
	if err := ce.st.DB.Get(&n, "SELECT COUNT(*) FROM api_tokens WHERE token_hash = ? OR name = ?", ce.staffTok, ce.staffTok); err != nil || n != 0 {
		t.Fatalf("the secret is stored: %d %v", n, err)
	}

	// Bearer and Basic; the Basic username must be the owner's.
	for _, authz := range []string{bearer(ce.staffTok), basic("root", ce.staffTok), basic("", ce.staffTok)} {
		if st, b, _ := ccsGet(t, base, files, authz); st != 200 {
			t.Errorf("%s: %d %s", authz, st, b)
		}
	}
	for _, authz := range []string{basic("alice", ce.staffTok), bearer("vdt_nope"), "Bearer", "Digest x", basic("root", "root-password")} {
		st, _, h := ccsGet(t, base, "/contests/c1", authz)
		if st != 401 || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("%q: %d %q, want 401 with a Basic challenge", authz, st, h.Get("WWW-Authenticate"))
		}
	}
	// A read token is the public view, even an admin's.
	adminRead := ce.token(ce.admin, "ro", "read")
	if st, _, _ := ccsGet(t, base, files, bearer(adminRead)); st != 403 {
		t.Errorf("an admin's read token downloads sources: %d", st)
	}
	// A hidden contest is staff's.
	if _, err := ce.st.DB.Exec("UPDATE contests SET visible = 0 WHERE id = ?", ce.cid); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1", bearer(adminRead)); st != 404 {
		t.Errorf("hidden contest with a read token: %d", st)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1", bearer(ce.staffTok)); st != 200 {
		t.Errorf("hidden contest with a staff token: %d", st)
	}
	ce.st.DB.Exec("UPDATE contests SET visible = 1 WHERE id = ?", ce.cid)
	// Tokens open the Contest API only, not the rest.
	if st, _, _ := ccsGet(t, ce.ts.URL, "/api/me", bearer(ce.staffTok)); st != 401 {
		t.Errorf("GET /api/me with a token: %d", st)
	}
	// The session works on the Contest API too.
	if r := ce.admin.do("GET", "/api/ccs/contests/c1/submissions/"+ccs.ID(s1)+"/files", nil); r.status != 200 {
		t.Errorf("files with the admin's session: %d", r.status)
	}

	// Listing and revoking.
	r := ce.admin.do("GET", "/api/me/tokens", nil)
	toks := r.body["tokens"].([]any)
	if len(toks) != 2 || strings.Contains(r.raw, ce.staffTok) {
		t.Fatalf("tokens %s", r.raw)
	}
	var staffID float64
	for _, x := range toks {
		if m := x.(map[string]any); m["scope"] == "staff" {
			staffID = m["id"].(float64)
		}
	}
	path := fmt.Sprintf("/api/me/tokens/%d", int64(staffID))
	wantErr(t, ce.alice.call("DELETE", path, nil), 404, CodeNotFound, "") // not hers
	if r := ce.admin.call("DELETE", path, nil); r.status != 204 {
		t.Fatalf("revoke: %d %s", r.status, r.raw)
	}
	if r := ce.admin.call("DELETE", path, nil); r.status != 204 {
		t.Fatalf("revoke again: %d %s", r.status, r.raw)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1", bearer(ce.staffTok)); st != 401 {
		t.Errorf("a revoked token: %d", st)
	}
	if r := ce.admin.do("GET", "/api/me/tokens", nil); !strings.Contains(r.raw, `"revoked_at":"`) {
		t.Errorf("the revoked token is listed as such: %s", r.raw)
	}

	// A staff token of a user who is no longer staff reads as the public.
	setter := ce.e().user("setter", store.RoleSetter, "setter-password")
	sc := ce.e().client()
	sc.login("setter", "setter-password")
	setterTok := ce.token(sc, "s", "staff")
	if st, _, _ := ccsGet(t, base, files, bearer(setterTok)); st != 200 {
		t.Fatalf("setter's staff token: %d", st)
	}
	if _, err := ce.st.DB.ExecContext(ctx, "UPDATE users SET role = 'student' WHERE id = ?", setter.ID); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := ccsGet(t, base, files, bearer(setterTok)); st != 403 {
		t.Errorf("a demoted user's staff token: %d", st)
	}
	// A disabled user's tokens stop.
	if _, err := ce.st.DB.ExecContext(ctx, "UPDATE users SET disabled = 1 WHERE id = ?", setter.ID); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := ccsGet(t, base, "/contests/c1", bearer(setterTok)); st != 401 {
		t.Errorf("a disabled user's token: %d", st)
	}
}

func (ce *ccsEnv) e() *env { return ce.judgeEnv.env }

// restart builds a second web node on the same MySQL and Redis (the first
// one's HTTP server closed), as after a crash and restart.
func (ce *ccsEnv) restart(cfg Config) {
	ce.t.Helper()
	ce.ts.Close() // waits for the feed handlers to end
	o, err := obs.New(obs.Config{Component: "webapp", LogOutput: ce.t.Output(), Log: obs.LogConfig{Format: "text", Level: "warn"}})
	if err != nil {
		ce.t.Fatal(err)
	}
	cfg.Obs = o
	s, err := New(cfg)
	if err != nil {
		ce.t.Fatal(err)
	}
	ce.t.Cleanup(s.judging.Wait)
	ts := httptest.NewServer(s.Handler())
	ce.t.Cleanup(ts.Close)
	ce.srv, ce.ts = s, ts
}

// TestCCSFeedResumeAfterRestart: a client that resumes from a token
// after the web node and the hub were killed and restarted gets
// everything that happened since, including what happened while it was
// away and right around the restarts, and nothing twice: what it holds
// then (the events applied in order, a null data deleting) is what the
// REST endpoints say. Around the kills: the old node wrote a result and
// appended it to the feed but died before acknowledging it (the new node
// consumes it again); the hub died while a judge held a lease, which
// expired, so the restarted hub requeued the task as attempt 2 (the
// judge's late result of attempt 1 is refused) and the judgement
// announced pending is deleted; a submission was made while the hub was
// down. The hub is the queue's leases, reaps and completions in Redis
// (internal/queue, what the hub runs); a bad token is a 400.
func TestCCSFeedResumeAfterRestart(t *testing.T) {
	now := time.Now()
	ctx := context.Background()
	var cfg Config
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, func(c *Config) {
		c.CCSKeepAlive = 200 * time.Millisecond
		cfg = *c
	})
	s1 := ce.submit(ce.alice, "s1")
	fc := openFeed(t, ce.ts.URL, "", bearer(ce.staffTok))
	seen := fc.until(hasToken)
	s2 := ce.submit(ce.bob, "s2")
	seen = append(seen, fc.until(isEvent("judgements", ccs.JudgementID(s2, 1)))...)
	tok := fc.token
	if tok == "" {
		t.Fatal("no token")
	}
	// Keep-alives while nothing happens.
	select {
	case line := <-fc.lines:
		if line != "" {
			t.Fatalf("an event while nothing happened: %q", line)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no keep-alive newline")
	}
	fc.close()
	// The hub leases s2 to the judge for a short while, completes s1; the
	// web node writes s1's result (MySQL, the board, the feed) and is
	// killed before it acknowledges it; the hub is killed too.
	if _, err := ce.q.Lease(ctx, protocol.TaskRef{SubmissionID: s2, Attempt: 1}, "judge-1", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ce.judge(s1, 1, protocol.VerdictAC, 2)
	results, err := ce.rdb.XRange(ctx, ce.names.Results(), "-", "+").Result()
	if err != nil || len(results) != 1 {
		t.Fatalf("the results stream: %v %v", results, err)
	}
	if err := ce.srv.Judging().HandleResult(ctx, results[0]); err != nil {
		t.Fatal(err)
	}
	ce.restart(cfg)
	// While the hub is down: a submission; the judge's lease expires.
	s3 := ce.submit(ce.alice, "s3")
	time.Sleep(400 * time.Millisecond)
	// The hub is back: it reaps the expired lease (s2 goes back to the
	// queue as attempt 2) and refuses the judge's late attempt-1 result.
	exp, err := ce.q.Reap(ctx, 100)
	if err != nil || len(exp) != 1 || exp[0].Ref != (protocol.TaskRef{SubmissionID: s2, Attempt: 2}) || !exp[0].Requeued {
		t.Fatalf("reap: %v %v", exp, err)
	}
	if _, err := ce.q.Complete(ctx, "judge-1", protocol.Result{TaskRef: protocol.TaskRef{SubmissionID: s2, Attempt: 1},
		Verdict: protocol.VerdictAC, JudgeID: "judge-1"}); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("the late result of the expired attempt: %v", err)
	}
	ce.judge(s2, 2, protocol.VerdictWA, 2)
	ce.consume() // s1 again (not acknowledged), s2's attempt 2
	fc2 := openFeed(t, ce.ts.URL, "?since_token="+tok, basic("root", ce.staffTok))
	evs := fc2.until(isEvent("judgements", ccs.JudgementID(s2, 2)))
	ce.judge(s3, 1, protocol.VerdictAC, 1)
	ce.consume()
	evs = append(evs, fc2.until(isFinal(ccs.JudgementID(s3, 1)))...)
	for _, want := range [][2]string{{"judgements", ccs.JudgementID(s1, 1)}, {"judgements", ccs.JudgementID(s2, 2)},
		{"runs", ccs.RunID(s2, 2, 2)}, {"submissions", ccs.ID(s3)}, {"runs", ccs.RunID(s3, 1, 1)}} {
		if findEvent(evs, want[0], want[1]) == nil {
			t.Errorf("after the resume: no %s %s in %v", want[0], want[1], evs)
		}
	}
	if j := findEvent(evs, "judgements", ccs.JudgementID(s1, 1)); j["data"].(map[string]any)["judgement_type_id"] != "AC" {
		t.Errorf("s1's judgement %v", j)
	}
	if j := findEvent(evs, "judgements", ccs.JudgementID(s2, 1)); j == nil || j["data"] != nil {
		t.Errorf("s2's superseded attempt is not deleted: %v", j)
	}
	// Nothing twice: no object sent again as it was (the contest, the
	// state and the awards are sent as they are on every connection).
	held := map[string]map[string]string{} // type → id → data
	for _, ev := range append(seen, evs...) {
		typ, _ := ev["type"].(string)
		oid, _ := ev["id"].(string)
		b, _ := json.Marshal(ev["data"])
		if held[typ] == nil {
			held[typ] = map[string]string{}
		}
		if prev, ok := held[typ][oid]; ok && prev == string(b) && typ != "contests" && typ != "state" && typ != "awards" {
			t.Errorf("sent twice: %s %s %s", typ, oid, b)
		}
		held[typ][oid] = string(b)
		if ev["data"] == nil {
			delete(held[typ], oid)
		}
	}
	// Nothing lost: what the client holds is what the REST endpoints say.
	for _, typ := range []string{"teams", "submissions", "judgements", "runs"} {
		_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/"+typ, bearer(ce.staffTok))
		var list []map[string]any
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %s", typ, b)
		}
		var want, got []string
		for _, o := range list {
			want = append(want, fmt.Sprintf("%v %v", o["id"], o["judgement_type_id"]))
		}
		for oid, data := range held[typ] {
			var o map[string]any
			_ = json.Unmarshal([]byte(data), &o)
			got = append(got, fmt.Sprintf("%v %v", oid, o["judgement_type_id"]))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the client holds %v, the API lists %v", typ, got, want)
		}
	}
	// Resuming from the last token now gives nothing old.
	last := fc2.token
	fc2.close()
	fc3 := openFeed(t, ce.ts.URL, "?since_token="+last, bearer(ce.staffTok))
	head := fc3.until(func(ev map[string]any) bool { return ev["type"] == "state" })
	if len(head) != 2 {
		t.Errorf("resume at the end: %v", head)
	}
	fc3.close()
	// Bad tokens.
	gen, _, _ := strings.Cut(last, ".")
	for _, bad := range []string{"nonsense", "deadbeef.1-0", gen + ".99999999999999-0", gen + ".x-1"} {
		st, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/event-feed?since_token="+bad, bearer(ce.staffTok))
		if st != 400 {
			t.Errorf("since_token %q: %d %s", bad, st, b)
		}
	}
}

// TestCCSFeedFreezeHiding: during the freeze the public (a read token)
// gets the submissions but not their judgements, in the feed and the
// REST endpoints; staff get everything; the thaw sends the public what
// was held back.
func TestCCSFeedFreezeHiding(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-2*time.Hour), now.Add(30*time.Minute), 60, nil) // frozen since 30 min
	held := ce.submit(ce.bob, "b1")
	ce.judge(held, 1, protocol.VerdictAC, 2)
	ce.consume()
	base := ce.ts.URL + "/api/ccs"
	pub := openFeed(t, ce.ts.URL, "", basic("alice", ce.publicTok))
	staff := openFeed(t, ce.ts.URL, "", bearer(ce.staffTok))
	snap := pub.until(hasToken)
	if findEvent(snap, "submissions", ccs.ID(held)) == nil || findEvent(snap, "judgements", ccs.JudgementID(held, 1)) != nil ||
		findEvent(snap, "runs", ccs.RunID(held, 1, 1)) != nil {
		t.Fatalf("public snapshot during the freeze: %v", snap)
	}
	if st := findEvent(snap, "state", ""); st == nil {
		for _, ev := range snap {
			if ev["type"] == "state" && ev["data"].(map[string]any)["frozen"] == nil {
				t.Fatalf("state not frozen: %v", ev)
			}
		}
	}
	if findEvent(staff.until(hasToken), "judgements", ccs.JudgementID(held, 1)) == nil {
		t.Fatal("staff snapshot lacks the judgement")
	}
	// Live: alice submits and is judged during the freeze.
	live := ce.submit(ce.alice, "a1")
	ce.judge(live, 1, protocol.VerdictAC, 2)
	ce.consume()
	staff.until(isFinal(ccs.JudgementID(live, 1)))
	marker := ce.submit(ce.bob, "marker") // the public feed's next event after alice's
	evs := pub.until(isEvent("submissions", ccs.ID(marker)))
	if findEvent(evs, "submissions", ccs.ID(live)) == nil {
		t.Errorf("the public feed lacks the submission: %v", evs)
	}
	for _, ev := range evs {
		if ev["type"] == "judgements" || ev["type"] == "runs" {
			t.Errorf("the public feed shows a frozen outcome: %v", ev)
		}
	}
	// REST: the same rule.
	_, b, _ := ccsGet(t, base, "/contests/c1/judgements", bearer(ce.publicTok))
	if string(b) != "[]\n" {
		t.Errorf("public judgements during the freeze: %s", b)
	}
	_, b, _ = ccsGet(t, base, "/contests/c1/judgements/"+ccs.JudgementID(held, 1), bearer(ce.publicTok))
	if !strings.Contains(string(b), "not_found") {
		t.Errorf("a frozen judgement by id: %s", b)
	}
	_, b, _ = ccsGet(t, base, "/contests/c1/scoreboard", bearer(ce.publicTok))
	if strings.Contains(string(b), `"solved":true`) || !strings.Contains(string(b), `"num_pending":1`) {
		t.Errorf("public scoreboard during the freeze: %s", b)
	}
	_, b, _ = ccsGet(t, base, "/contests/c1/scoreboard", bearer(ce.staffTok))
	if !strings.Contains(string(b), `"solved":true`) {
		t.Errorf("staff scoreboard: %s", b)
	}
	// A public reader that leaves during the freeze and resumes after
	// the thaw gets what was held back too.
	frozenTok := pub.token
	// The thaw: the public feed gets the state and the held judgements.
	if r := ce.admin.call("POST", "/api/contests/c1/unfreeze", nil); r.status != 200 {
		t.Fatalf("unfreeze: %d %s", r.status, r.raw)
	}
	evs = pub.until(func(ev map[string]any) bool {
		d, _ := ev["data"].(map[string]any)
		return ev["type"] == "state" && d["thawed"] != nil
	})
	for _, jid := range []string{ccs.JudgementID(held, 1), ccs.JudgementID(live, 1)} {
		j := findEvent(evs, "judgements", jid)
		if j == nil || j["data"].(map[string]any)["judgement_type_id"] != "AC" {
			t.Errorf("after the thaw: judgement %s: %v", jid, j)
		}
	}
	resumed := openFeed(t, ce.ts.URL, "?since_token="+frozenTok, bearer(ce.publicTok))
	evs = resumed.until(hasToken) // the thaw entry's events end with its token
	for _, jid := range []string{ccs.JudgementID(held, 1), ccs.JudgementID(live, 1)} {
		if findEvent(evs, "judgements", jid) == nil {
			t.Errorf("resumed after the thaw: no judgement %s in %v", jid, evs)
		}
	}
	_, b, _ = ccsGet(t, base, "/contests/c1/judgements", bearer(ce.publicTok))
	if strings.Count(string(b), `"judgement_type_id":"AC"`) != 2 {
		t.Errorf("public judgements after the thaw: %s", b)
	}
}

// TestCCSPenaltyRule: a contest's penalty minutes and counted verdicts
// set through the API drive its board and its Contest API objects.
func TestCCSPenaltyRule(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, nil)
	w1 := ce.submit(ce.alice, "w1")
	ce.judge(w1, 1, protocol.VerdictWA, 2)
	c1 := ce.submit(ce.alice, "c1")
	ce.judge(c1, 1, protocol.VerdictCE, 0)
	ac := ce.submit(ce.alice, "ac")
	ce.judge(ac, 1, protocol.VerdictAC, 2)
	ce.consume()
	total := func() float64 {
		t.Helper()
		_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/scoreboard", bearer(ce.staffTok))
		var sb ccs.Scoreboard
		if err := json.Unmarshal(b, &sb); err != nil || len(sb.Rows) != 1 {
			t.Fatalf("scoreboard %s", b)
		}
		return float64(*sb.Rows[0].Score.TotalTime)
	}
	minute := float64(int(time.Since(now.Add(-time.Hour)) / time.Minute))
	if got := total(); got < minute+20 || got > minute+21 {
		t.Fatalf("default: total %v, want minute %v + 20 (WA counts, CE does not)", got, minute)
	}
	if r := ce.alice.call("PUT", "/api/contests/c1/penalty", map[string]any{"penalty_minutes": 5}); r.status != 403 {
		t.Errorf("a student sets the penalty: %d", r.status)
	}
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/penalty", map[string]any{"penalty_minutes": -1}), 400, CodeValidation, "penalty_minutes")
	wantErr(t, ce.admin.call("PUT", "/api/contests/c1/penalty", map[string]any{"penalty_verdicts": []string{"AC"}}), 400, CodeValidation, "penalty_verdicts")
	r := ce.admin.call("PUT", "/api/contests/c1/penalty", map[string]any{"penalty_minutes": 7, "penalty_verdicts": []string{"WA", "CE"}})
	if r.status != 200 || r.body["penalty_minutes"] != float64(7) {
		t.Fatalf("set penalty: %d %s", r.status, r.raw)
	}
	if got := total(); got < minute+14 || got > minute+15 {
		t.Errorf("7 per WA and CE: total %v, want minute %v + 14", got, minute)
	}
	_, b, _ := ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1", bearer(ce.publicTok))
	if !strings.Contains(string(b), `"penalty_time":7`) {
		t.Errorf("contest object: %s", b)
	}
	_, b, _ = ccsGet(t, ce.ts.URL+"/api/ccs", "/contests/c1/judgement-types/CE", bearer(ce.publicTok))
	if !strings.Contains(string(b), `"penalty":true`) {
		t.Errorf("CE judgement type: %s", b)
	}
	if r := ce.bob.do("GET", "/api/contests/c1/penalty", nil); r.status != 200 || r.body["penalty_minutes"] != float64(7) {
		t.Errorf("GET penalty: %d %s", r.status, r.raw)
	}
}

// TestCCSFeedOutlivesServerTimeouts: the feed stays open past the HTTP
// server's read and write timeouts (Serve sets 60 s each) and keeps
// delivering.
func TestCCSFeedOutlivesServerTimeouts(t *testing.T) {
	now := time.Now()
	ce := newCCSEnv(t, now.Add(-time.Hour), now.Add(time.Hour), 0, func(c *Config) { c.CCSKeepAlive = 100 * time.Millisecond })
	ts := httptest.NewUnstartedServer(ce.srv.Handler())
	ts.Config.ReadTimeout, ts.Config.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	fc := openFeed(t, ts.URL, "", bearer(ce.staffTok))
	fc.until(hasToken)
	time.Sleep(time.Second)
	s1 := ce.submit(ce.alice, "late")
	fc.until(isEvent("submissions", ccs.ID(s1)))
	fc.close()
}
