package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// subFixture is a migrated database with a user, a problem and a contest
// holding it, on a pool of one connection whose round trips are counted.
type subFixture struct {
	s                      *Store
	rt                     *testenv.RoundTrips
	user, problem, contest int64
	n                      int    // submissions made, for their keys
	dsn                    string // for a pool of more connections
}

func newSubFixture(t *testing.T) *subFixture {
	t.Helper()
	env := testenv.MySQL(t)
	ctx := context.Background()
	if _, err := Migrate(ctx, env.DSN, MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	dsn, err := FixDSN(env.DSN) // the settings Open gives a web node's pool
	if err != nil {
		t.Fatal(err)
	}
	db, rt := testenv.CountedDB(t, dsn)
	f := &subFixture{s: New(db), rt: rt, dsn: dsn}
	if f.problem, err = f.s.CreateProblem(ctx, Problem{Slug: "sum", Title: "Sum", Statement: "…", TimeLimitMs: 1000,
		MemoryLimitKB: 65536, Checker: CheckerDefault, Mode: ModeICPC, Visibility: VisibilityPublic, Languages: Languages{}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if f.contest, err = f.s.CreateContest(ctx, Contest{Slug: "c1", Title: "C1", Rule: "icpc", StartAt: now.Add(-time.Hour),
		EndAt: now.Add(time.Hour), Registration: RegistrationOpen, Visible: true}); err != nil {
		t.Fatal(err)
	}
	if err := f.s.AddContestProblem(ctx, f.contest, f.problem, "A", 1); err != nil {
		t.Fatal(err)
	}
	f.newUser(t)
	return f
}

// newUser makes the submissions that follow another user's: a test of
// its own, without problem_solves rows of the others'.
func (f *subFixture) newUser(t *testing.T) {
	t.Helper()
	u, err := f.s.CreateUser(context.Background(), User{Username: fmt.Sprint("user", f.n), DisplayName: "U",
		Role: RoleStudent, PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	f.user = u.ID
	f.n++
}

// submit makes a queued contest submission.
func (f *subFixture) submit(t *testing.T) Submission {
	t.Helper()
	f.n++
	sub, created, err := f.s.CreateSubmission(context.Background(), NewSubmission{UserID: f.user, ProblemID: f.problem,
		ContestID: f.contest, Language: "c11", Source: "int main(){}", TestdataHash: "h1", IdemKey: fmt.Sprint("k", f.n)})
	if err != nil || !created {
		t.Fatalf("create submission: %v (created %v)", err, created)
	}
	return sub
}

// result is a judge's result for attempt of submission id with n cases:
// the last of the verdict, the others AC.
func result(id int64, attempt int, verdict string, n int) ResultWrite {
	w := ResultWrite{SubmissionID: id, Attempt: attempt, Verdict: verdict, Score: 0.5, JudgeID: "j1"}
	for i := 1; i <= n; i++ {
		v := "AC"
		if i == n {
			v = verdict
		}
		w.Cases = append(w.Cases, SubmissionCase{Index: i, Verdict: v, TimeMs: int64(10 * i), MemoryKB: 100,
			Score: 1, Message: fmt.Sprintf("%s attempt %d", v, attempt)})
		w.TimeMs, w.MemoryKB = int64(10*i), 100
	}
	return w
}

func (f *subFixture) fresh(t *testing.T, id int64) Submission {
	t.Helper()
	sub, err := f.s.SubmissionByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func (f *subFixture) cases(t *testing.T, id int64) []SubmissionCase {
	t.Helper()
	cs, err := f.s.SubmissionCases(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// solve is the user's problem_solves row of the problem: its first AC and
// when that was submitted; 0 when there is none.
func (f *subFixture) solve(t *testing.T) (int64, time.Time) {
	t.Helper()
	var rows []struct {
		FirstAC  int64     `db:"first_ac_id"`
		SolvedAt time.Time `db:"solved_at"`
	}
	if err := f.s.DB.Select(&rows, "SELECT first_ac_id, solved_at FROM problem_solves WHERE user_id = ? AND problem_id = ?",
		f.user, f.problem); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return 0, time.Time{}
	}
	return rows[0].FirstAC, rows[0].SolvedAt
}

// step is one write of TestApplyResult to submission sub (an index of the
// test's submissions; -1 is one that does not exist).
type step struct {
	sub int
	// op: "result" (ApplyResult of attempt, verdict and cases), "rejudge"
	// (Rejudge to the next attempt), "override" (OverrideVerdict to
	// verdict).
	op      string
	attempt int
	verdict string
	cases   int
	want    ApplyOutcome // of a result
}

// TestApplyResult runs results, rejudges and overrides of one user's
// submissions of one problem and checks that each returns the row as a
// fresh read finds it, that a submission's case rows are those of its last
// applied result (all of them, none of an earlier one left over), and that
// problem_solves names the earliest accepted submission, or nothing.
func TestApplyResult(t *testing.T) {
	res := func(sub, attempt int, verdict string, cases int, want ApplyOutcome) step {
		return step{sub: sub, op: "result", attempt: attempt, verdict: verdict, cases: cases, want: want}
	}
	rejudge := func(sub int) step { return step{sub: sub, op: "rejudge"} }
	override := func(sub int, verdict string) step { return step{sub: sub, op: "override", verdict: verdict} }
	// after is the state the steps leave: per submission its verdict,
	// attempt and case count, and which submission (an index, -1: none)
	// is the user's first AC.
	type after struct {
		verdict string
		attempt int
		cases   int
	}
	tests := []struct {
		name    string
		subs    int
		steps   []step
		want    []after
		firstAC int
	}{
		{"a WA, then a later submission's AC solves the problem", 2,
			[]step{res(0, 1, "WA", 3, Applied), res(1, 1, "AC", 3, Applied)},
			[]after{{"WA", 1, 3}, {"AC", 1, 3}}, 1},
		{"a second AC leaves the first", 2,
			[]step{res(0, 1, "AC", 2, Applied), res(1, 1, "AC", 2, Applied)},
			[]after{{"AC", 1, 2}, {"AC", 1, 2}}, 0},
		{"an earlier submission accepted after a later one is the first AC", 3,
			[]step{res(1, 1, "AC", 2, Applied), res(0, 1, "AC", 2, Applied), res(2, 1, "AC", 2, Applied)},
			[]after{{"AC", 1, 2}, {"AC", 1, 2}, {"AC", 1, 2}}, 0},
		{"a WA after an AC leaves the first AC", 2,
			[]step{res(0, 1, "AC", 2, Applied), res(1, 1, "WA", 2, Applied)},
			[]after{{"AC", 1, 2}, {"WA", 1, 2}}, 0},
		{"a rejudge takes the first AC back: the next AC is first", 2,
			[]step{res(0, 1, "AC", 3, Applied), res(1, 1, "AC", 3, Applied), rejudge(0)},
			[]after{{"queued", 2, 0}, {"AC", 1, 3}}, 1},
		{"a rejudged first AC judged WA: the next AC stays first", 2,
			[]step{res(0, 1, "AC", 3, Applied), res(1, 1, "AC", 3, Applied), rejudge(0), res(0, 2, "WA", 2, Applied)},
			[]after{{"WA", 2, 2}, {"AC", 1, 3}}, 1},
		{"a rejudged first AC judged AC again is first again", 2,
			[]step{res(0, 1, "AC", 3, Applied), res(1, 1, "AC", 3, Applied), rejudge(0), res(0, 2, "AC", 3, Applied)},
			[]after{{"AC", 2, 3}, {"AC", 1, 3}}, 0},
		{"a rejudge of the only AC: not solved", 1,
			[]step{res(0, 1, "AC", 3, Applied), rejudge(0)},
			[]after{{"queued", 2, 0}}, -1},
		{"a rejudge of a WA (cases cleared) judged AC", 1,
			[]step{res(0, 1, "WA", 4, Applied), rejudge(0), res(0, 2, "AC", 2, Applied)},
			[]after{{"AC", 2, 2}}, 0},
		{"a higher attempt over a final WA replaces every case", 1,
			[]step{res(0, 1, "WA", 5, Applied), res(0, 2, "AC", 3, Applied)},
			[]after{{"AC", 2, 3}}, 0},
		{"a higher attempt WA over a final AC: not solved, cases replaced", 1,
			[]step{res(0, 1, "AC", 3, Applied), res(0, 2, "WA", 2, Applied)},
			[]after{{"WA", 2, 2}}, -1},
		{"a higher attempt without cases over one with cases", 1,
			[]step{res(0, 1, "WA", 3, Applied), res(0, 2, "CE", 0, Applied)},
			[]after{{"CE", 2, 0}}, -1},
		{"a higher attempt over a final CE (no cases)", 1,
			[]step{res(0, 1, "CE", 0, Applied), res(0, 2, "WA", 2, Applied)},
			[]after{{"WA", 2, 2}}, -1},
		{"a higher attempt over a queued row (leases expired)", 1,
			[]step{res(0, 3, "AC", 2, Applied)},
			[]after{{"AC", 3, 2}}, 0},
		{"a duplicate changes nothing", 1,
			[]step{res(0, 1, "WA", 3, Applied), res(0, 1, "AC", 1, Duplicate)},
			[]after{{"WA", 1, 3}}, -1},
		{"a duplicate AC changes nothing", 2,
			[]step{res(1, 1, "AC", 3, Applied), res(0, 1, "AC", 3, Applied), res(1, 1, "AC", 3, Duplicate)},
			[]after{{"AC", 1, 3}, {"AC", 1, 3}}, 0},
		{"a stale result changes nothing", 1,
			[]step{res(0, 1, "AC", 3, Applied), rejudge(0), res(0, 1, "AC", 3, Stale)},
			[]after{{"queued", 2, 0}}, -1},
		{"a stale result after the rejudge's", 1,
			[]step{rejudge(0), res(0, 2, "WA", 2, Applied), res(0, 1, "AC", 3, Stale)},
			[]after{{"WA", 2, 2}}, -1},
		{"no such submission", 1,
			[]step{res(-1, 1, "AC", 3, Missing)},
			[]after{{"queued", 1, 0}}, -1},
		{"an override to AC solves; a later AC leaves it first", 2,
			[]step{res(0, 1, "WA", 2, Applied), override(0, "AC"), res(1, 1, "AC", 2, Applied)},
			[]after{{"AC", 1, 2}, {"AC", 1, 2}}, 0},
		{"an override of the first AC to WA: the next AC is first", 2,
			[]step{res(0, 1, "AC", 2, Applied), res(1, 1, "AC", 2, Applied), override(0, "WA")},
			[]after{{"WA", 1, 2}, {"AC", 1, 2}}, 1},
		{"a WA over an overridden AC: not solved", 1,
			[]step{res(0, 1, "WA", 2, Applied), override(0, "AC"), res(0, 2, "WA", 2, Applied)},
			[]after{{"WA", 2, 2}}, -1},
	}
	f := newSubFixture(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.newUser(t)
			var subs []Submission
			for range tc.subs {
				subs = append(subs, f.submit(t))
				time.Sleep(2 * time.Millisecond) // distinct created_at: solved_at says which
			}
			for i, st := range tc.steps {
				id := int64(1 << 40)
				if st.sub >= 0 {
					id = subs[st.sub].ID
				}
				var got Submission
				switch st.op {
				case "result":
					o, sub, err := f.s.ApplyResult(ctx, result(id, st.attempt, st.verdict, st.cases))
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if o != st.want {
						t.Fatalf("step %d: %v, want %v", i, o, st.want)
					}
					if o == Missing {
						continue
					}
					got = sub
				case "rejudge":
					sub, err := f.s.Rejudge(ctx, id, 0, "h2")
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					got = sub
				case "override":
					sub, err := f.s.OverrideVerdict(ctx, id, f.user, st.verdict, 1, "test")
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					got = sub
				}
				if want := f.fresh(t, id); !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d returned\n  %+v\nthe row is\n  %+v", i, got, want)
				}
			}
			for i, w := range tc.want {
				sub := f.fresh(t, subs[i].ID)
				cs := f.cases(t, sub.ID)
				if sub.Verdict != w.verdict || sub.Attempt != w.attempt || len(cs) != w.cases {
					t.Errorf("submission %d: %s attempt %d with %d cases, want %s attempt %d with %d",
						i, sub.Verdict, sub.Attempt, len(cs), w.verdict, w.attempt, w.cases)
				}
				// The cases are the last applied result's, all of them.
				for j, c := range cs {
					if c.Index != j+1 || c.Message != fmt.Sprintf("%s attempt %d", c.Verdict, sub.Attempt) {
						t.Errorf("submission %d case %d: %+v (attempt %d)", i, j+1, c, sub.Attempt)
					}
				}
			}
			first, at := f.solve(t)
			switch {
			case tc.firstAC < 0 && first != 0:
				t.Errorf("solved by %d, want not solved", first)
			case tc.firstAC >= 0 && (first != subs[tc.firstAC].ID || !at.Equal(subs[tc.firstAC].CreatedAt)):
				t.Errorf("first AC %d at %v, want %d at %v", first, at, subs[tc.firstAC].ID, subs[tc.firstAC].CreatedAt)
			}
		})
	}
}

// A second CreateSubmission with a key (a request that lost the race to a
// concurrent one with the same key) inserts nothing and returns the first.
func TestCreateSubmissionKey(t *testing.T) {
	f := newSubFixture(t)
	ctx := context.Background()
	first := f.submit(t)
	key := fmt.Sprint("k", f.n) // submit's
	n := NewSubmission{UserID: f.user, ProblemID: f.problem, Language: "py3", Source: "print(1)", IdemKey: key}
	sub, created, err := f.s.CreateSubmission(ctx, n)
	if err != nil || created || !reflect.DeepEqual(sub, first) {
		t.Fatalf("same key: created %v (%v)\n  %+v\nwant the first\n  %+v", created, err, sub, first)
	}
	if got, err := f.s.SubmissionByKey(ctx, f.user, key); err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("by key: %+v %v", got, err)
	}
	if _, err := f.s.SubmissionByKey(ctx, f.user, "unused"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unused key: %v", err)
	}
	var rows int
	if err := f.s.DB.Get(&rows, "SELECT COUNT(*) FROM submissions"); err != nil || rows != 1 {
		t.Fatalf("%d submissions (%v), want 1", rows, err)
	}
	n.IdemKey = "unused"
	if sub, created, err = f.s.CreateSubmission(ctx, n); err != nil || !created || sub.ID == first.ID || sub.Language != "py3" {
		t.Fatalf("another key: created %v %+v %v", created, sub, err)
	}
}

// Results of one user's submissions of one problem are written at once by
// different workers and web nodes: however they interleave, the first AC
// is the earliest accepted submission.
func TestApplyResultConcurrentACs(t *testing.T) {
	f := newSubFixture(t)
	ctx := context.Background()
	db, err := Open(ctx, f.dsn, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := New(db)
	for round := range 15 {
		f.newUser(t)
		var subs []Submission
		for range 3 {
			subs = append(subs, f.submit(t))
		}
		var wg sync.WaitGroup
		errs := make([]error, len(subs))
		for i, sub := range subs {
			wg.Go(func() {
				var o ApplyOutcome
				o, _, errs[i] = s.ApplyResult(ctx, result(sub.ID, 1, "AC", 2))
				if errs[i] == nil && o != Applied {
					errs[i] = fmt.Errorf("outcome %v", o)
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if first, at := f.solve(t); first != subs[0].ID || !at.Equal(subs[0].CreatedAt) {
			t.Fatalf("round %d: first AC %d at %v, want %d at %v", round, first, at, subs[0].ID, subs[0].CreatedAt)
		}
	}
}

// TestHotWriteRoundTrips counts the requests the hot writes send MySQL
// and wait for. Under CPU saturation each waits for a core; at 3,000
// contestants the results were written slower than judged.
func TestHotWriteRoundTrips(t *testing.T) {
	f := newSubFixture(t)
	ctx := context.Background()
	measure := func(name string, max int64, fn func()) {
		t.Helper()
		f.rt.Take()
		fn()
		n := f.rt.Take()
		t.Logf("%s: %d round trips", name, n)
		if n > max {
			t.Errorf("%s: %d round trips, want at most %d", name, n, max)
		}
	}
	apply := func(w ResultWrite, want ApplyOutcome) {
		t.Helper()
		if o, _, err := f.s.ApplyResult(ctx, w); err != nil || o != want {
			t.Fatalf("apply: %v %v, want %v", o, err, want)
		}
	}
	// A first call of each kind opens the connection. FixDSN has the
	// driver write the values in (interpolateParams): one round trip a
	// statement, where prepare + execute took two.
	warm := f.submit(t)
	apply(result(warm.ID, 1, "WA", 10), Applied)
	warm2 := f.submit(t)
	apply(result(warm2.ID, 1, "AC", 10), Applied)

	var sub Submission
	measure("CreateSubmission", 5, func() { sub = f.submit(t) })
	measure("ApplyResult WA on a queued submission", 6, func() { apply(result(sub.ID, 1, "WA", 10), Applied) })
	sub = f.submit(t)
	measure("ApplyResult AC on a queued submission", 7, func() { apply(result(sub.ID, 1, "AC", 10), Applied) })
	measure("ApplyResult duplicate", 4, func() { apply(result(sub.ID, 1, "AC", 10), Duplicate) })
}
