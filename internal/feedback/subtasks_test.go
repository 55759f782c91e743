package feedback

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// ioi is an IOI-mode result with two subtasks as the judge scores it:
// subtask "small" (30 points, cases 1-3, 10 each) passed, subtask "large"
// (70 points, cases 4-5, 35 each) failed on case 5.
func ioi() (protocol.Feedback, Result) {
	fb := protocol.Feedback{Policy: protocol.FeedbackScoreOnly, Samples: []int{1}, Subtasks: []protocol.SubtaskRule{
		{Name: "small", Points: 30, Cases: []int{1, 2, 3}},
		{Name: "large", Points: 70, Cases: []int{5, 4}},
	}}
	r := Result{Status: protocol.VerdictWA, Score: 30, Cases: []protocol.CaseResult{
		{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 5, Score: 10, Message: sampleMsg},
		{Case: 2, Verdict: protocol.VerdictAC, CPUMs: 6, Score: 10, Message: "ok 2"},
		{Case: 3, Verdict: protocol.VerdictAC, CPUMs: 7, Score: 10, Message: "ok 3"},
		{Case: 4, Verdict: protocol.VerdictAC, CPUMs: 8, Score: 35, Message: "ok 4"},
		{Case: 5, Verdict: protocol.VerdictWA, CPUMs: 9, Message: hiddenMsg},
	}}
	return fb, r
}

func TestSubtasks(t *testing.T) {
	ac := func(i int, score float64) protocol.CaseResult {
		return protocol.CaseResult{Case: i, Verdict: protocol.VerdictAC, Score: score}
	}
	wa := func(i int) protocol.CaseResult { return protocol.CaseResult{Case: i, Verdict: protocol.VerdictWA} }
	thirds := []protocol.SubtaskRule{{Name: "a", Points: 10, Cases: []int{1, 2, 3}}}
	sumThirds := []protocol.SubtaskRule{{Name: "a", Points: 10, Cases: []int{1, 2, 3}, Sum: true}}
	for _, tc := range []struct {
		name  string
		rules []protocol.SubtaskRule
		cases []protocol.CaseResult
		want  []protocol.SubtaskScore
	}{
		{"no rules", nil, []protocol.CaseResult{ac(1, 100)}, nil},
		{"no cases", thirds, nil, nil},
		// 10/3 rounds to 3.333: still the whole subtask.
		{"all passed, rounded shares", thirds, []protocol.CaseResult{ac(3, 3.333), ac(1, 3.333), ac(2, 3.333)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Score: 10, Verdict: protocol.VerdictAC, Cases: []int{1, 2, 3}}}},
		{"one failed", thirds, []protocol.CaseResult{ac(1, 3.333), wa(2), ac(3, 3.333)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Score: 0, Verdict: protocol.VerdictWA, Cases: []int{1, 2, 3}}}},
		{"partial points scale", thirds, []protocol.CaseResult{ac(1, 3.333), ac(2, 1.667), ac(3, 3.333)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Score: 5.001, Verdict: protocol.VerdictAC, Cases: []int{1, 2, 3}}}},
		{"not judged yet", thirds, []protocol.CaseResult{ac(1, 3.333), ac(3, 3.333)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Cases: []int{1, 2, 3}}}},
		{"not judged yet, one failed", thirds, []protocol.CaseResult{ac(1, 3.333), {Case: 3, Verdict: protocol.VerdictTLE}},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Verdict: protocol.VerdictTLE, Cases: []int{1, 2, 3}}}},
		{"the first failure by index names the verdict", thirds, []protocol.CaseResult{{Case: 3, Verdict: protocol.VerdictTLE}, wa(2), ac(1, 3.333)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Verdict: protocol.VerdictWA, Cases: []int{1, 2, 3}}}},
		{"a subtask worth nothing", []protocol.SubtaskRule{{Name: "sample", Points: 0, Cases: []int{1}}}, []protocol.CaseResult{ac(1, 0)},
			[]protocol.SubtaskScore{{Name: "sample", Points: 0, Verdict: protocol.VerdictAC, Cases: []int{1}}}},
		// A Sum subtask: the shares added up when every case is accepted.
		{"sum, all accepted", sumThirds, []protocol.CaseResult{ac(1, 3.333), ac(2, 1.667), ac(3, 0)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Score: 5, Verdict: protocol.VerdictAC, Cases: []int{1, 2, 3}}}},
		{"sum, one rejected", sumThirds, []protocol.CaseResult{ac(1, 3.333), ac(2, 3.333), wa(3)},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Score: 0, Verdict: protocol.VerdictWA, Cases: []int{1, 2, 3}}}},
		{"skipped", thirds, []protocol.CaseResult{ac(1, 3.333), ac(2, 3.333), {Case: 3, Verdict: protocol.VerdictSkipped}},
			[]protocol.SubtaskScore{{Name: "a", Points: 10, Verdict: protocol.VerdictSkipped, Cases: []int{1, 2, 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Subtasks(tc.rules, tc.cases); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Subtasks = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestSubtaskScoresPerViewer: under score_only (and full) every viewer the
// result reaches sees each subtask's score, with per-case verdicts and no
// message; first_failure and closed (running) show none.
func TestSubtaskScoresPerViewer(t *testing.T) {
	fb, r := ioi()
	want := []protocol.SubtaskScore{
		{Name: "small", Points: 30, Score: 30, Verdict: protocol.VerdictAC, Cases: []int{1, 2, 3}},
		{Name: "large", Points: 70, Score: 0, Verdict: protocol.VerdictWA, Cases: []int{4, 5}},
	}
	for _, v := range []Viewer{Anonymous, Other, Owner, Staff} {
		got := View(fb, v, Ended, r)
		if !reflect.DeepEqual(got.Subtasks, want) {
			t.Errorf("score_only %s: subtasks %+v, want %+v", v, got.Subtasks, want)
		}
		if len(got.Cases) != 5 || got.Cases[4].Verdict != protocol.VerdictWA || got.Cases[3].Score != 35 {
			t.Errorf("score_only %s: cases %+v", v, got.Cases)
		}
		for _, c := range got.Cases {
			if c.Message != "" && v != Staff {
				t.Errorf("score_only %s: case %d message %q", v, c.Case, c.Message)
			}
		}
	}
	for _, p := range []protocol.FeedbackPolicy{protocol.FeedbackFirstFailure, protocol.FeedbackClosed} {
		fb.Policy, fb.EndsAtMs = p, 1
		for _, v := range []Viewer{Anonymous, Other, Owner} {
			if got := View(fb, v, Running, r); got.Subtasks != nil {
				t.Errorf("%s %s: subtasks %+v", p, v, got.Subtasks)
			}
		}
	}
	fb.Policy = protocol.FeedbackFull
	if got := View(fb, Owner, Ended, r); !reflect.DeepEqual(got.Subtasks, want) {
		t.Errorf("full: subtasks %+v", got.Subtasks)
	}
}

// TestFirstFailureIsAPrefix: first_failure shows the unbroken run from
// case 1 up to the first failure, never a case after a gap or after it.
func TestFirstFailureIsAPrefix(t *testing.T) {
	c := func(i int, v protocol.Verdict) protocol.CaseResult {
		return protocol.CaseResult{Case: i, Verdict: v, CPUMs: 3}
	}
	AC, WA, TLE, SK := protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictTLE, protocol.VerdictSkipped
	fb := protocol.Feedback{Policy: protocol.FeedbackFirstFailure}
	for _, tc := range []struct {
		name  string
		cases []protocol.CaseResult
		shown []int
		first int
	}{
		{"all passed so far", []protocol.CaseResult{c(1, AC), c(2, AC)}, []int{1, 2}, 0},
		{"failure then IOI-mode cases", []protocol.CaseResult{c(4, AC), c(1, AC), c(2, WA), c(3, TLE)}, []int{1, 2}, 2},
		{"a gap before a failure", []protocol.CaseResult{c(1, AC), c(3, WA), c(4, AC)}, []int{1}, 0},
		{"case 1 not judged", []protocol.CaseResult{c(2, WA)}, nil, 0},
		{"skipped", []protocol.CaseResult{c(1, AC), c(2, SK), c(3, WA)}, []int{1}, 0},
	} {
		got := View(fb, Owner, Ended, Result{Status: protocol.VerdictJudging, Cases: tc.cases})
		var idx []int
		for _, x := range got.Cases {
			if x.CPUMs != 0 {
				t.Errorf("%s: case %d shows its time", tc.name, x.Case)
			}
			idx = append(idx, x.Case)
		}
		if !slices.Equal(idx, tc.shown) || got.FirstFailure != tc.first {
			t.Errorf("%s: shown %v first %d, want %v %d", tc.name, idx, got.FirstFailure, tc.shown, tc.first)
		}
	}
}

// TestEventsAddUpToTheWhole: however a result's cases are split into
// batches and in whatever order the batches come, the snapshot's cases
// with every event's appended are exactly what View shows of the whole
// result (what REST answers), with the same first failure and subtask
// scores in the last event, for every policy and viewer.
func TestEventsAddUpToTheWhole(t *testing.T) {
	fb, r := ioi()
	AC, WA := protocol.VerdictAC, protocol.VerdictWA
	// A longer result whose first failure (case 3) comes after passed and
	// failed cases in later batches.
	long := Result{Status: WA, Score: 30}
	for i := 1; i <= 12; i++ {
		v := AC
		if i == 3 || i == 9 {
			v = WA
		}
		long.Cases = append(long.Cases, protocol.CaseResult{Case: i, Verdict: v, CPUMs: int64(i), Score: 10, Message: hiddenMsg})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, res := range []Result{r, long} {
		for _, p := range protocol.FeedbackPolicies {
			fb.Policy, fb.After = p, protocol.FeedbackScoreOnly
			for _, v := range []Viewer{Anonymous, Other, Owner, Staff} {
				for try := 0; try < 50; try++ {
					order := slices.Clone(res.Cases)
					if try > 0 {
						rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
					}
					// The snapshot holds the first k cases; the rest come in
					// batches of random sizes.
					k := rng.IntN(len(order) + 1)
					snap := State(fb, v, Ended, protocol.SubmissionState{SubmissionID: 1, Status: protocol.VerdictJudging, Cases: order[:k]})
					got := slices.Clone(snap.Cases)
					last := snap
					for prior := k; prior < len(order); {
						n := 1 + rng.IntN(len(order)-prior)
						ev := Event(fb, v, Ended, order[:prior], protocol.SubmissionState{SubmissionID: 1, Status: protocol.VerdictJudging,
							Cases: order[prior : prior+n]})
						got = append(got, ev.Cases...)
						last = ev
						prior += n
					}
					whole := View(fb, v, Ended, Result{Status: protocol.VerdictJudging, Cases: res.Cases})
					slices.SortFunc(got, func(a, b protocol.CaseResult) int { return a.Case - b.Case })
					if !slices.Equal(got, whole.Cases) && (len(got) > 0 || len(whole.Cases) > 0) {
						t.Fatalf("%s %s try %d: live cases %+v, whole %+v", p, v, try, got, whole.Cases)
					}
					if last.FirstFailure != whole.FirstFailure || !reflect.DeepEqual(last.Subtasks, whole.Subtasks) {
						t.Fatalf("%s %s try %d: live first failure %d subtasks %+v, whole %d %+v", p, v, try,
							last.FirstFailure, last.Subtasks, whole.FirstFailure, whole.Subtasks)
					}
				}
			}
		}
	}
}
