package simjudge

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

func TestParseMarker(t *testing.T) {
	tests := []struct {
		name, src string
		want      Marker
		bad       bool
	}{
		{"none", "int main() { return 0; }\n", Marker{Verdict: protocol.VerdictAC, Case: 1}, false},
		{"c++ marker", "#include <cstdio>\n// sim: verdict=WA case=3 ms=40\nint main(){}", Marker{protocol.VerdictWA, 3, 40}, false},
		{"python marker", "# sim: verdict=TLE case=2\nprint(1)\n", Marker{protocol.VerdictTLE, 2, 0}, false},
		{"indented, lower case", "  \t// sim: verdict=re\n", Marker{protocol.VerdictRE, 1, 0}, false},
		{"ms only", "// sim: ms=7", Marker{protocol.VerdictAC, 1, 7}, false},
		{"first marker wins", "// sim: verdict=MLE\n// sim: verdict=WA\n", Marker{protocol.VerdictMLE, 1, 0}, false},
		{"empty marker", "// sim:\n", Marker{protocol.VerdictAC, 1, 0}, false},
		{"not at line start", "int x; // sim: verdict=WA\n", Marker{Verdict: protocol.VerdictAC, Case: 1}, false},
		{"unknown verdict", "// sim: verdict=XX", Marker{}, true},
		{"status is not a verdict", "// sim: verdict=queued", Marker{}, true},
		{"skipped is not asked for", "// sim: verdict=SK", Marker{}, true},
		{"case 0", "// sim: verdict=WA case=0", Marker{}, true},
		{"negative ms", "// sim: ms=-1", Marker{}, true},
		{"unknown key", "// sim: verdict=WA speed=2", Marker{}, true},
		{"no equals", "// sim: WA", Marker{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMarker(tt.src)
			if tt.bad {
				if !errors.Is(err, ErrMarker) {
					t.Fatalf("ParseMarker = %+v, %v; want ErrMarker", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseMarker = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// manifest is a package's manifest with n cases and the subtasks.
func manifest(t *testing.T, n int, subtasks ...testpkg.Subtask) testpkg.Manifest {
	t.Helper()
	var cases []testpkg.Case
	for i := range n {
		cases = append(cases, testpkg.Case{In: []byte(strconv.Itoa(i)), Ans: []byte(strconv.Itoa(i))})
	}
	_, m, err := testpkg.Build(cases, subtasks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func simTask(id int64, mode protocol.Mode, src string) protocol.Task {
	return protocol.Task{
		TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: 1}, ProblemID: 1,
		TestData: protocol.TestData{Hash: "h"}, Language: "cpp17", Source: src,
		Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 1 << 20},
		Mode:   mode, Checker: protocol.Checker{Kind: protocol.CheckerDefault},
	}
}

func verdicts(p Plan) string {
	s := ""
	for _, c := range p.Cases {
		s += string(c.Result.Verdict) + " "
	}
	return s
}

func TestPlanVerdicts(t *testing.T) {
	five := manifest(t, 5)
	subtasks := manifest(t, 6, testpkg.Subtask{Name: "1", Points: 40, Cases: []int{1, 2, 3}}, testpkg.Subtask{Name: "2", Points: 60, Cases: []int{4, 5, 6}})
	tests := []struct {
		name    string
		mode    protocol.Mode
		man     testpkg.Manifest
		src     string
		verdict protocol.Verdict
		score   float64
		cases   string // case verdicts in order
		ran     int    // cases slept
	}{
		{"default accepted", protocol.ModeICPC, five, "int main(){}", protocol.VerdictAC, 100, "AC AC AC AC AC ", 5},
		{"icpc stops at the first failure", protocol.ModeICPC, five, "// sim: verdict=WA case=3", protocol.VerdictWA, 0, "AC AC WA SK SK ", 3},
		{"icpc failure at case 1 by default", protocol.ModeICPC, five, "# sim: verdict=RE", protocol.VerdictRE, 0, "RE SK SK SK SK ", 1},
		{"case beyond the package is the last", protocol.ModeICPC, five, "// sim: verdict=PE case=99", protocol.VerdictPE, 0, "AC AC AC AC PE ", 5},
		{"ioi runs every case", protocol.ModeIOI, five, "// sim: verdict=WA case=2", protocol.VerdictWA, 80, "AC WA AC AC AC ", 5},
		{"ioi subtask lost", protocol.ModeIOI, subtasks, "// sim: verdict=MLE case=5", protocol.VerdictMLE, 40, "AC AC AC AC MLE AC ", 6},
		{"ioi accepted", protocol.ModeIOI, subtasks, "", protocol.VerdictAC, 100, "AC AC AC AC AC AC ", 6},
		{"asked tle", protocol.ModeICPC, five, "// sim: verdict=TLE case=2", protocol.VerdictTLE, 0, "AC TLE SK SK SK ", 2},
		{"slow cases are tle", protocol.ModeICPC, five, "// sim: ms=5000", protocol.VerdictTLE, 0, "TLE SK SK SK SK ", 1},
		{"compile error", protocol.ModeICPC, five, "// sim: verdict=CE", protocol.VerdictCE, 0, "", 0},
		{"system error", protocol.ModeICPC, five, "// sim: verdict=SE", protocol.VerdictSE, 0, "", 0},
		{"bad marker is a system error", protocol.ModeICPC, five, "// sim: verdict=nope", protocol.VerdictSE, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Model{Seed: 1}
			p := m.Plan(simTask(42, tt.mode, tt.src), tt.man)
			if p.Verdict != tt.verdict || p.Score != tt.score || verdicts(p) != tt.cases {
				t.Fatalf("plan = %s %v [%s], want %s %v [%s]", p.Verdict, p.Score, verdicts(p), tt.verdict, tt.score, tt.cases)
			}
			ran := 0
			for _, c := range p.Cases {
				if err := c.Result.Validate(); err != nil {
					t.Errorf("case %d: %v", c.Result.Case, err)
				}
				if c.Time > 0 {
					ran++
				}
				if c.Result.Verdict == protocol.VerdictSkipped && c.Time != 0 {
					t.Errorf("skipped case %d sleeps %v", c.Result.Case, c.Time)
				}
				if c.Result.Verdict == protocol.VerdictTLE && (c.Time != time.Second || c.Result.CPUMs != 1000) {
					t.Errorf("TLE case %d: %v, %d ms; want the 1 s limit", c.Result.Case, c.Time, c.Result.CPUMs)
				}
			}
			if ran != tt.ran {
				t.Errorf("%d cases run, want %d", ran, tt.ran)
			}
			if p.Compile != 300*time.Millisecond {
				t.Errorf("compile %v, want the default 300 ms", p.Compile)
			}
			if (tt.verdict == protocol.VerdictCE || tt.verdict == protocol.VerdictSE) && p.CompileMessage == "" {
				t.Error("no compile message")
			}
			res := protocol.Result{TaskRef: protocol.TaskRef{SubmissionID: 42, Attempt: 1}, Verdict: p.Verdict, Score: p.Score, JudgeID: "j"}
			for _, c := range p.Cases {
				res.Cases = append(res.Cases, c.Result)
			}
			if err := res.Validate(); err != nil {
				t.Errorf("the result does not validate: %v", err)
			}
		})
	}
}

func TestPlanTimes(t *testing.T) {
	man := manifest(t, 200)
	task := simTask(7, protocol.ModeIOI, "// sim: ms=40")
	base := Model{Seed: 3}.Plan(task, man)

	// The mean of the lognormal is the marker's ms, with some spread.
	var sum time.Duration
	lo, hi := time.Hour, time.Duration(0)
	for _, c := range base.Cases {
		sum += c.Time
		lo, hi = min(lo, c.Time), max(hi, c.Time)
	}
	if mean := sum / time.Duration(len(base.Cases)); mean < 36*time.Millisecond || mean > 44*time.Millisecond {
		t.Errorf("mean case time %v, want about 40 ms", mean)
	}
	if lo == hi {
		t.Errorf("every case took %v: no spread", lo)
	}
	if base.Work() != base.Compile+sum {
		t.Errorf("Work %v, want compile + cases %v", base.Work(), base.Compile+sum)
	}

	tests := []struct {
		name  string
		model Model
		task  protocol.Task
		same  bool    // same draws as base
		ratio float64 // of every time to base's (when same)
	}{
		{"same seed, same plan", Model{Seed: 3}, task, true, 1},
		{"speed 2 halves every time", Model{Seed: 3, Speed: 2}, task, true, 0.5},
		{"speed 0.5 doubles", Model{Seed: 3, Speed: 0.5}, task, true, 2},
		{"another seed", Model{Seed: 4}, task, false, 0},
		{"another submission", Model{Seed: 3}, simTask(8, protocol.ModeIOI, "// sim: ms=40"), false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.model.Plan(tt.task, man)
			diff := 0
			for i, c := range p.Cases {
				want := time.Duration(float64(base.Cases[i].Time) * tt.ratio)
				if d := c.Time - want; d < -time.Microsecond || d > time.Microsecond {
					diff++
				}
			}
			if tt.same && diff > 0 {
				t.Errorf("%d case times differ from base × %v", diff, tt.ratio)
			}
			if !tt.same && diff < len(p.Cases)/2 {
				t.Errorf("only %d of %d case times differ: not an independent draw", diff, len(p.Cases))
			}
			if tt.same {
				if want := time.Duration(float64(base.Compile) * tt.ratio); p.Compile != want {
					t.Errorf("compile %v, want %v", p.Compile, want)
				}
			}
		})
	}

	flat := Model{Seed: 3, Sigma: -1, CaseTime: 10 * time.Millisecond, CompileTime: time.Second, Speed: 4}.Plan(simTask(1, protocol.ModeIOI, ""), manifest(t, 3))
	for _, c := range flat.Cases {
		if c.Time != 2500*time.Microsecond || c.Result.CPUMs != 2 {
			t.Errorf("sigma < 0: case %d took %v (%d ms), want exactly 10 ms / 4", c.Result.Case, c.Time, c.Result.CPUMs)
		}
	}
	if flat.Compile != 250*time.Millisecond {
		t.Errorf("compile %v, want 1 s / 4", flat.Compile)
	}
}
