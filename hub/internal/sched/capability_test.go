package sched

import (
	"testing"
)

// TestJudgeRuns: a task that needs capabilities runs only on a judge
// announcing every one of them (and speaking its language).
func TestJudgeRuns(t *testing.T) {
	tests := []struct {
		name  string
		judge Judge
		task  Task
		want  bool
	}{
		{"plain task, plain judge", Judge{Languages: []string{"cpp17"}}, Task{Language: "cpp17"}, true},
		{"plain task, capable judge", Judge{Languages: []string{"cpp17"}, Capabilities: []string{"input_validation"}}, Task{Language: "cpp17"}, true},
		{"needs it, judge without capabilities", Judge{Languages: []string{"cpp17"}}, Task{Language: "cpp17", Needs: []string{"input_validation"}}, false},
		{"needs it, judge of any language without it", Judge{}, Task{Language: "cpp17", Needs: []string{"input_validation"}}, false},
		{"needs it, judge with another", Judge{Capabilities: []string{"x"}}, Task{Language: "cpp17", Needs: []string{"input_validation"}}, false},
		{"needs it, judge has it", Judge{Languages: []string{"cpp17"}, Capabilities: []string{"x", "input_validation"}}, Task{Language: "cpp17", Needs: []string{"input_validation"}}, true},
		{"needs it, judge has it but not the language", Judge{Languages: []string{"py3"}, Capabilities: []string{"input_validation"}}, Task{Language: "cpp17", Needs: []string{"input_validation"}}, false},
		{"needs two, judge has one", Judge{Capabilities: []string{"a"}}, Task{Language: "cpp17", Needs: []string{"a", "b"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.judge.Runs(tc.task); got != tc.want {
				t.Fatalf("Runs = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPassRoutesByCapability: through Pass, with each shipped policy, a
// task that needs a capability goes only to a judge that announced it,
// or is held without a judge; a held validation does not hold the plain
// tasks of its language behind it.
func TestPassRoutesByCapability(t *testing.T) {
	const capV = "input_validation"
	plain := func(id int64) Task {
		return Task{SubmissionID: id, ProblemID: id, DataHash: "d", Language: "cpp17"}
	}
	needs := func(id int64) Task {
		t := plain(id)
		t.Needs = []string{capV}
		return t
	}
	judges := func(caps ...[]string) []Judge {
		js := judgesOf(make([]int, len(caps))...)
		for i := range js {
			js[i].Cores, js[i].Slots, js[i].Languages, js[i].Capabilities = 4, 4, []string{"cpp17"}, caps[i]
		}
		return js
	}
	tests := []struct {
		name   string
		judges []Judge
		tasks  []Task
		// want: the judge each task is placed on, -1 held, -2 placed
		// on whichever the policy likes.
		want []int
	}{
		{"no capable judge: the validation waits, plain tasks go",
			judges(nil, nil), []Task{needs(1), plain(2), needs(3), plain(4)}, []int{-1, -2, -1, -2}},
		{"the capable judge takes the validations",
			judges(nil, []string{capV}), []Task{needs(1), needs(2), needs(3)}, []int{1, 1, 1}},
		{"old and new judges: plain tasks anywhere, validations on the new",
			judges([]string{capV}, nil), []Task{needs(1), plain(2), plain(3), needs(4)}, []int{0, -2, -2, 0}},
	}
	for _, name := range Names() {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				p, err := New(name)
				if err != nil {
					t.Fatal(err)
				}
				js := append([]Judge(nil), tc.judges...) // Pass counts assignments in it
				r := Pass(t0, p, append([]Task(nil), tc.tasks...), js, Reserve{})
				got := make([]int, len(tc.tasks))
				for i := range got {
					got[i] = -1
				}
				for _, pl := range r.Placed {
					got[pl.Task] = pl.Judge
				}
				for i, w := range tc.want {
					switch {
					case w == -2 && got[i] < 0: // anywhere, but placed
						t.Fatalf("task %d held; placements %v", i, got)
					case w != -2 && got[i] != w:
						t.Fatalf("placements %v, want %v", got, tc.want)
					}
				}
			})
		}
	}
}
