package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// installation is a database with the webapp's real schema (every
// migration, as store.Migrate sends them: each file whole) and a few
// submissions as the webapp stores them.
func installation(t *testing.T) *testenv.MySQLEnv {
	t.Helper()
	my := testenv.MySQL(t)
	files, err := filepath.Glob("../webapp/internal/store/migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v (%d files)", err, len(files))
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := my.DB.Exec(string(b)); err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
	}
	t0 := "2026-03-01 09:00:00"
	at := func(s float64) string {
		return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(s * float64(time.Second))).Format("2006-01-02 15:04:05.000")
	}
	type row struct {
		id, problem   int64
		contest       any
		lang, verdict string
		attempt       int
		judge         any
		created       string
		judged        any
		cases         []int64
	}
	for _, r := range []row{
		{1, 1234, nil, "cpp17", "AC", 1, "alpha.secret.example", t0, at(2), []int64{100, 200}},
		{2, 777, 5, "py3", "WA", 1, "beta.secret.example", at(1), at(1.5), []int64{50}}, // stopped at its first failing case
		{3, 1234, nil, "cpp17", "queued", 1, nil, at(2), nil, nil},
		{4, 1234, 5, "cpp17", "TLE", 2, "alpha.secret.example", at(3), at(3.5), []int64{1000, 1000}}, // rejudged, overlapping 1 on alpha
		{5, 777, 5, "cpp17", "CE", 1, "beta.secret.example", at(4), at(4.2), nil},
		{6, 9, nil, "cpp17", "AC", 1, "gamma.secret.example", at(3600), at(3601), []int64{10}}, // after -until
	} {
		if _, err := my.DB.Exec(`INSERT INTO submissions (id, user_id, problem_id, contest_id, language, source, verdict,
			attempt, judge_id, testdata_hash, created_at, judged_at) VALUES (?, 1, ?, ?, ?, 'int main(){}', ?, ?, ?, ?, ?, ?)`,
			r.id, r.problem, r.contest, r.lang, r.verdict, r.attempt, r.judge, strings.Repeat("ab", 32), r.created, r.judged); err != nil {
			t.Fatal(err)
		}
		for i, ms := range r.cases {
			if _, err := my.DB.Exec(`INSERT INTO submission_cases (submission_id, case_index, verdict, time_ms) VALUES (?, ?, 'AC', ?)`,
				r.id, i+1, ms); err != nil {
				t.Fatal(err)
			}
		}
	}
	return my
}

// TestExportMySQL: the trace read from a real schema keeps each judged
// submission's arrival, class, per-case times, verdict and judge; skips
// the unjudged; keeps a rejudged one without its rejudge's time; and
// estimates the slots of a judge not given.
func TestExportMySQL(t *testing.T) {
	my := installation(t)
	o := mysqlExport{Until: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC), Compile: 100 * time.Millisecond,
		Judges: map[string]judgeShape{"beta.secret.example": {Slots: 4, Speed: 2}}}
	tr, st, err := exportMySQL(context.Background(), my.DB.DB, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks != 4 || st.Unjudged != 1 || st.Rejudged != 1 || !slices.Equal(st.Estimated, []string{"alpha.secret.example"}) {
		t.Fatalf("stats %+v", st)
	}
	wantJudges := []schedtrace.Judge{{ID: "beta.secret.example", Slots: 4, Speed: 2}, {ID: "alpha.secret.example", Slots: 2, Speed: 1}}
	if !reflect.DeepEqual(tr.Judges, wantJudges) {
		t.Fatalf("judges %+v, want %+v (alpha ran 1 and 4 at once)", tr.Judges, wantJudges)
	}
	hash := strings.Repeat("ab", 32)
	want := []schedtrace.Task{
		{SubmissionID: 1, AtMs: 0, ProblemID: 1234, DataHash: hash, Language: "cpp17", Priority: 1, WorkMs: 400, CompileMs: 100,
			CasesMs: []int64{100, 200}, Verdict: "AC", VerdictMs: 2000, RanOn: "alpha.secret.example"},
		{SubmissionID: 2, AtMs: 1000, ProblemID: 777, DataHash: hash, Language: "py3", Priority: 2, WorkMs: 200, CompileMs: 100,
			CasesMs: []int64{50}, Verdict: "WA", VerdictMs: 1500, RanOn: "beta.secret.example"},
		{SubmissionID: 4, AtMs: 3000, ProblemID: 1234, DataHash: hash, Language: "cpp17", Priority: 2, WorkMs: 2100, CompileMs: 100,
			CasesMs: []int64{1000, 1000}, Verdict: "TLE", RanOn: "alpha.secret.example"},
		{SubmissionID: 5, AtMs: 4000, ProblemID: 777, DataHash: hash, Language: "cpp17", Priority: 2, WorkMs: 100, CompileMs: 100,
			Verdict: "CE", VerdictMs: 4200, RanOn: "beta.secret.example"},
	}
	if !reflect.DeepEqual(tr.Tasks, want) {
		t.Fatalf("tasks\n got %+v\nwant %+v", tr.Tasks, want)
	}
	if !tr.Start.Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("start %v", tr.Start)
	}

	// One contest only.
	tr, _, err = exportMySQL(context.Background(), my.DB.DB, mysqlExport{Contest: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tasks) != 3 || tr.Tasks[0].SubmissionID != 2 || tr.Tasks[0].AtMs != 0 {
		t.Fatalf("contest 5: %+v", tr.Tasks)
	}
	// Nothing judged in the window.
	if _, _, err := exportMySQL(context.Background(), my.DB.DB, mysqlExport{Since: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil ||
		!strings.Contains(err.Error(), "no judged submissions") {
		t.Fatalf("empty window: %v", err)
	}
}

// TestExportTraceFromMySQL: the command writes the anonymised scenario
// file, per-case times at speed 1 included.
func TestExportTraceFromMySQL(t *testing.T) {
	my := installation(t)
	var stdout, stderr bytes.Buffer
	err := exportTrace(context.Background(), []string{"--dsn", my.DSN, "--since", "2026-03-01 08:00", "--until", "2026-03-01T09:30:00Z",
		"--judge", "beta.secret.example=4x2", "--compile", "100ms", "--extra-judges", "1"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var f struct {
		Cluster struct {
			Judges []struct {
				ID    string  `json:"id"`
				Slots int     `json:"slots"`
				Speed float64 `json:"speed"`
			} `json:"judges"`
		} `json:"cluster"`
		Arrivals struct {
			Trace struct {
				Jobs []map[string]any `json:"jobs"`
			} `json:"trace"`
		} `json:"arrivals"`
	}
	b := stdout.Bytes()
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if js := f.Cluster.Judges; len(js) != 3 || js[0].Slots != 4 || js[0].Speed != 2 || js[1].Slots != 2 || js[2].ID != "extra-01" {
		t.Fatalf("judges %+v", js)
	}
	jobs := f.Arrivals.Trace.Jobs
	if len(jobs) != 4 {
		t.Fatalf("%d jobs:\n%s", len(jobs), b)
	}
	wa := jobs[1]
	if wa["class"] != "contest" || wa["verdict"] != "WA" || wa["judge"] != "judge-01" || wa["work_s"] != 0.2 ||
		wa["compile_s"] != 0.1 || !reflect.DeepEqual(wa["cases_s"], []any{0.1}) || wa["recorded_ttv_s"] != 0.5 {
		t.Fatalf("the WA job (cases at speed 2: 50 ms × 2): %v", wa)
	}
	if _, ok := jobs[2]["recorded_ttv_s"]; ok {
		t.Fatalf("a rejudged submission has no recorded time to verdict: %v", jobs[2])
	}
	for _, secret := range []string{"secret.example", "1234", "777", "abab"} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("the export leaks %q:\n%s", secret, b)
		}
	}
	if !strings.Contains(stderr.String(), "1 without a final verdict skipped, 1 rejudged") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

func TestExportTraceMySQLFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--since", "2026-01-01"}, "-since needs -dsn"},
		{[]string{"--judge", "a=2"}, "-judge needs -dsn"},
		{[]string{"--dsn", "u@tcp(h)/d", "--from", "x.json"}, "one or the other"},
		{[]string{"--dsn", "u@tcp(h)/d", "--judge", "a"}, "want NAME=SLOTS"},
		{[]string{"--dsn", "u@tcp(h)/d", "--judge", "a=0"}, "want an integer ≥ 1"},
		{[]string{"--dsn", "u@tcp(h)/d", "--judge", "a=2x0"}, "want a number in (0, 1e6]"},
		{[]string{"--dsn", "u@tcp(h)/d", "--since", "yesterday"}, `-since "yesterday"`},
		{[]string{"--dsn", "u@tcp(h)/d", "--since", "2026-01-02", "--until", "2026-01-01"}, "is not after"},
		{[]string{"--dsn", "u@tcp(h)/d", "--compile", "-1s"}, "-compile -1s: negative"},
		{[]string{"--dsn", "not a dsn"}, "-dsn"},
	} {
		err := exportTrace(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestEstimateSlots(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spans [][2]int64
		want  int
	}{
		{"none", nil, 1},
		{"one", [][2]int64{{0, 10}}, 1},
		{"back to back", [][2]int64{{0, 10}, {10, 20}}, 1},
		{"nested", [][2]int64{{0, 100}, {10, 20}, {15, 30}}, 3},
		{"empty spans ignored", [][2]int64{{5, 5}, {5, 5}}, 1},
	} {
		if got := estimateSlots(tc.spans); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
