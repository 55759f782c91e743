package scoreboard

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func TestDeriveICPC(t *testing.T) {
	p := Params{Rule: RuleICPC, Start: t0, FreezeAt: at(240)}
	tests := []struct {
		name      string
		es        []Entry
		live, pub CellState
	}{
		{"empty", nil, CellState{}, CellState{}},
		{"ac first try", []Entry{{1, 1, at(12), "AC", 0}}, CellState{Solved: true, Attempts: 1, TimeMin: 12, Penalty: 12, FirstAC: 1},
			CellState{Solved: true, Attempts: 1, TimeMin: 12, Penalty: 12, FirstAC: 1}},
		{"two wrong, CE and SE free, then AC", []Entry{{4, 1, at(50), "AC", 0}, {1, 1, at(10), "WA", 0}, {2, 1, at(20), "CE", 0},
			{3, 1, at(30), "TLE", 0}, {5, 1, at(31), "SE", 0}},
			CellState{Solved: true, Attempts: 3, TimeMin: 50, Penalty: 90, FirstAC: 4},
			CellState{Solved: true, Attempts: 3, TimeMin: 50, Penalty: 90, FirstAC: 4}},
		{"after the AC nothing counts", []Entry{{1, 1, at(5), "AC", 0}, {2, 1, at(6), "WA", 0}, {3, 1, at(7), "", 0}},
			CellState{Solved: true, Attempts: 1, TimeMin: 5, Penalty: 5, FirstAC: 1},
			CellState{Solved: true, Attempts: 1, TimeMin: 5, Penalty: 5, FirstAC: 1}},
		{"pending is not a try", []Entry{{1, 1, at(5), "WA", 0}, {2, 1, at(6), "", 0}},
			CellState{Attempts: 1, Pending: 1}, CellState{Attempts: 1, Pending: 1}},
		{"frozen AC is pending in public", []Entry{{1, 1, at(100), "WA", 0}, {2, 1, at(250), "AC", 0}},
			CellState{Solved: true, Attempts: 2, TimeMin: 250, Penalty: 270, FirstAC: 2},
			CellState{Attempts: 1, Pending: 1}},
		{"submitted before the freeze shows", []Entry{{1, 1, at(239), "AC", 0}},
			CellState{Solved: true, Attempts: 1, TimeMin: 239, Penalty: 239, FirstAC: 1},
			CellState{Solved: true, Attempts: 1, TimeMin: 239, Penalty: 239, FirstAC: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := Derive(p, tc.es)
			if v.Live != tc.live || v.Public != tc.pub {
				t.Fatalf("got live %+v public %+v\nwant live %+v public %+v", v.Live, v.Public, tc.live, tc.pub)
			}
		})
	}
}

func TestDeriveIOI(t *testing.T) {
	p := Params{Rule: RuleIOI, Start: t0, FreezeAt: at(240)}
	v := Derive(p, []Entry{{1, 1, at(1), "WA", 30}, {2, 1, at(2), "WA", 70}, {3, 1, at(3), "CE", 0}, {4, 1, at(250), "AC", 100}, {5, 1, at(251), "", 0}})
	want := CellState{Solved: true, Attempts: 4, Pending: 1, Scored: true, Score: 100, FirstAC: 4}
	if v.Live != want {
		t.Fatalf("live %+v, want %+v", v.Live, want)
	}
	wantPub := CellState{Attempts: 3, Pending: 2, Scored: true, Score: 70}
	if v.Public != wantPub {
		t.Fatalf("public %+v, want %+v", v.Public, wantPub)
	}
}

func TestSupersedes(t *testing.T) {
	pend1 := Entry{SubmissionID: 1, Attempt: 1}
	ac1 := Entry{SubmissionID: 1, Attempt: 1, Verdict: "AC"}
	wa1 := Entry{SubmissionID: 1, Attempt: 1, Verdict: "WA"}
	pend2 := Entry{SubmissionID: 1, Attempt: 2}
	tests := []struct {
		new, old Entry
		want     bool
	}{
		{ac1, pend1, true}, {pend1, ac1, false}, {wa1, ac1, false}, {ac1, ac1, false},
		{pend2, ac1, true}, {ac1, pend2, false}, {pend1, pend1, false},
	}
	for i, tc := range tests {
		if got := tc.new.Supersedes(tc.old); got != tc.want {
			t.Errorf("%d: %+v supersedes %+v = %v, want %v", i, tc.new, tc.old, got, tc.want)
		}
	}
}

func TestRank(t *testing.T) {
	rows := []Row{{User: "c", Solved: 2, Penalty: 50}, {User: "a", Solved: 3, Penalty: 400}, {User: "b", Solved: 2, Penalty: 50}, {User: "d", Solved: 1}}
	Rank(RuleICPC, rows)
	var got []string
	var ranks []int
	for _, r := range rows {
		got = append(got, r.User)
		ranks = append(ranks, r.Rank)
	}
	if !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) || !reflect.DeepEqual(ranks, []int{1, 2, 2, 4}) {
		t.Fatalf("order %v ranks %v", got, ranks)
	}
}

// TestIncrementalEqualsRecompute generates a contest of 200 users × 10
// problems × 5,000 submissions, with rejudges (later attempts), applies
// every pending mark and every result — including stale attempts and
// duplicates — in random order from 4 concurrent writers, and checks that
// the board in Redis equals the from-scratch recomputation, for both
// rules, live and public.
func TestIncrementalEqualsRecompute(t *testing.T) {
	for _, rule := range []string{RuleICPC, RuleIOI} {
		t.Run(rule, func(t *testing.T) {
			rd := testenv.Redis(t)
			b := New(rd.Client, rd.Names)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(7, uint64(len(rule))))
			const nUsers, problems, subs = 200, 10, 5000
			c := Contest{ID: 1, Params: Params{Rule: rule, Start: t0, FreezeAt: at(240)}}
			verdicts := []string{"AC", "WA", "WA", "TLE", "RE", "CE", "SE", "MLE"}
			var truth, stream []CellEntry
			for i := 1; i <= subs; i++ {
				k := CellKey{UserID: int64(1 + rng.IntN(nUsers)), ProblemID: int64(1 + rng.IntN(problems))}
				when := t0.Add(time.Duration(i) * 300 * time.Hour / subs / 100) // spread over 5 h
				attempts := 1
				if rng.IntN(10) == 0 {
					attempts = 2 + rng.IntN(2) // rejudged
				}
				var last Entry
				for a := 1; a <= attempts; a++ {
					pend := Entry{SubmissionID: int64(i), Attempt: a, At: when}
					v := verdicts[rng.IntN(len(verdicts))]
					res := pend
					res.Verdict, res.Score = v, float64(rng.IntN(101))
					if v == "AC" {
						res.Score = 100
					}
					stream = append(stream, CellEntry{k, pend}, CellEntry{k, res})
					if rng.IntN(5) == 0 {
						stream = append(stream, CellEntry{k, res}) // duplicate delivery
					}
					last = res
				}
				if rng.IntN(50) == 0 { // the last attempt still being judged
					last.Verdict, last.Score = "", 0
					stream = stream[:len(stream)-1]
					if stream[len(stream)-1].Verdict != "" {
						stream = stream[:len(stream)-1]
					}
				}
				truth = append(truth, CellEntry{k, last})
			}
			rng.Shuffle(len(stream), func(i, j int) { stream[i], stream[j] = stream[j], stream[i] })

			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(stream); i += 4 {
						ce := stream[i]
						u := User{ID: ce.UserID, Username: "u" + itoa(ce.UserID), DisplayName: "User " + itoa(ce.UserID)}
						if _, err := b.Apply(ctx, c, u, ce.ProblemID, ce.Entry); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			t.Logf("%d updates applied in %v", len(stream), time.Since(start))

			got, gotUsers, err := b.Views(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := Recompute(c.Params, truth)
			if len(got) != len(want) {
				t.Fatalf("%d cells on the board, %d recomputed", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Fatalf("cell %+v: board %+v, recomputed %+v", k, got[k], w)
				}
			}
			labels := map[int64]string{}
			for p := int64(1); p <= problems; p++ {
				labels[p] = string(rune('A' + p - 1))
			}
			users := map[int64]User{}
			for id := int64(1); id <= nUsers; id++ {
				users[id] = User{ID: id, Username: "u" + itoa(id), DisplayName: "User " + itoa(id)}
			}
			for _, public := range []bool{false, true} {
				gd, _ := json.Marshal(Assemble(rule, got, gotUsers, labels, public, public))
				wd, _ := json.Marshal(Assemble(rule, want, users, labels, public, public))
				if string(gd) != string(wd) {
					t.Fatalf("public=%v: documents differ", public)
				}
			}
			doc := Assemble(rule, want, users, labels, false, false)
			if len(doc.Rows) < nUsers/2 || doc.Rows[0].Rank != 1 {
				t.Fatalf("implausible board: %d rows", len(doc.Rows))
			}
			if rule == RuleICPC {
				fb := 0
				for _, r := range doc.Rows {
					for _, c := range r.Problems {
						if c.FirstBlood {
							fb++
						}
					}
				}
				if fb != problems {
					t.Fatalf("%d first-to-solve marks, want one per problem (%d)", fb, problems)
				}
			}

			// Rebuild from the truth onto an empty board gives the same.
			if err := b.Delete(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
			if err := b.Rebuild(ctx, c, users, truth); err != nil {
				t.Fatal(err)
			}
			again, _, err := b.Views(ctx, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, want) {
				t.Fatal("rebuilt board differs from the recomputation")
			}
		})
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestPenaltyRuleConfigurable(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	es := []Entry{
		{SubmissionID: 1, Attempt: 1, At: start.Add(5 * time.Minute), Verdict: "WA"},
		{SubmissionID: 2, Attempt: 1, At: start.Add(6 * time.Minute), Verdict: "CE"},
		{SubmissionID: 3, Attempt: 1, At: start.Add(7 * time.Minute), Verdict: "TLE"},
		{SubmissionID: 4, Attempt: 1, At: start.Add(30*time.Minute + 59*time.Second + 999*time.Millisecond), Verdict: "AC"},
	}
	ten := 10
	for _, tc := range []struct {
		name    string
		pen     Penalty
		tries   int
		penalty int
	}{
		// Default: 20 per WA and TLE, CE free; the AC at 30:59.999 is minute 30.
		{"default", Penalty{}, 3, 30 + 2*20},
		{"10 minutes", Penalty{Minutes: &ten}, 3, 30 + 2*10},
		{"only WA counts", Penalty{Minutes: &ten, Verdicts: []string{"WA"}}, 2, 30 + 10},
		{"CE counts too", PenaltyOf(20, "WA,TLE,CE"), 4, 30 + 3*20},
		{"no penalty", PenaltyOf(0, ""), 3, 30},
	} {
		v := Derive(Params{Rule: RuleICPC, Start: start, Penalty: tc.pen}, es)
		if !v.Live.Solved || v.Live.TimeMin != 30 || v.Live.Attempts != tc.tries || v.Live.Penalty != tc.penalty {
			t.Errorf("%s: %+v, want %d tries and %d penalty", tc.name, v.Live, tc.tries, tc.penalty)
		}
	}
	if ContestMinutes(start, start.Add(59999*time.Millisecond)) != 0 || ContestMinutes(start, start.Add(time.Minute)) != 1 ||
		ContestMinutes(start, start.Add(-time.Second)) != 0 {
		t.Error("contest minutes truncate, never negative")
	}
	if _, err := ParsePenaltyVerdicts("WA,AC"); err == nil {
		t.Error("AC is no rejected verdict")
	}
	if vs, err := ParsePenaltyVerdicts(" WA, TLE,WA "); err != nil || len(vs) != 2 {
		t.Errorf("parse: %v %v", vs, err)
	}
}
