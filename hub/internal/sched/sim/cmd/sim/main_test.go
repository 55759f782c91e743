package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched/sim"
	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    func(options) bool
		wantErr string // "" = ok
	}{
		{name: "grid defaults", args: nil, want: func(o options) bool {
			return o.replay == "" && o.out == "docs/scheduling.md" && o.ablation && o.download < 0
		}},
		{name: "quick grid", args: []string{"-quick", "-out", ""}, want: func(o options) bool { return o.quick && o.out == "" }},
		{name: "scenario files write no report", args: []string{"-scenario", "a.json,b.json"}, want: func(o options) bool { return o.files == "a.json,b.json" && o.out == "" }},
		{name: "scenario files with a report", args: []string{"-scenario", "a.json", "-out", "x.md"}, want: func(o options) bool { return o.out == "x.md" }},
		{name: "a trace writes no report", args: []string{"-trace", "run.json"}, want: func(o options) bool { return o.trace == "run.json" && o.out == "" && o.sweeps }},
		{name: "trace and scenario", args: []string{"-trace", "run.json", "-scenario", "a.json"}, wantErr: "one or the other"},
		{name: "trace with replay", args: []string{"-replay", "t.json", "-trace", "run.json"}, wantErr: "-trace does not apply to -replay"},
		{name: "no sweeps", args: []string{"-sweeps=false"}, want: func(o options) bool { return !o.sweeps }},
		{name: "scenario with replay", args: []string{"-replay", "t.json", "-scenario", "a.json"}, wantErr: "-scenario does not apply to -replay"},
		{name: "replay", args: []string{"-replay", "t.json"}, want: func(o options) bool {
			return o.replay == "t.json" && o.policy == "" && !o.json && o.seed == 1 && o.download < 0 && o.heartbeat == 0 && !o.windowPasses
		}},
		{name: "replay with everything", args: []string{"-replay", "t.json", "-policy", "pull", "-json", "-tasks", "-heartbeat", "500ms", "-download", "40ms", "-seed", "9"},
			want: func(o options) bool {
				return o.policy == "pull" && o.json && o.tasks && o.heartbeat == 500*time.Millisecond && o.download == 40*time.Millisecond && o.seed == 9
			}},
		{name: "download model", args: []string{"-replay", "t.json", "-download", "model"}, want: func(o options) bool { return o.download < 0 }},
		{name: "download zero", args: []string{"-replay", "t.json", "-download", "0s"}, want: func(o options) bool { return o.download == 0 }},
		{name: "bad download", args: []string{"-replay", "t.json", "-download", "fast"}, wantErr: "-download"},
		{name: "negative download", args: []string{"-replay", "t.json", "-download", "-1s"}, wantErr: "-download"},
		{name: "negative heartbeat", args: []string{"-replay", "t.json", "-heartbeat", "-1s"}, wantErr: "-heartbeat"},
		{name: "policy without replay", args: []string{"-policy", "pull"}, wantErr: "-policy does not apply to the grid"},
		{name: "json without replay", args: []string{"-json"}, wantErr: "-json does not apply to the grid"},
		{name: "window passes", args: []string{"-replay", "t.json", "-window-passes"}, want: func(o options) bool { return o.windowPasses }},
		{name: "window passes without replay", args: []string{"-window-passes"}, wantErr: "-window-passes does not apply to the grid"},
		{name: "grid flag with replay", args: []string{"-replay", "t.json", "-quick"}, wantErr: "-quick does not apply to -replay"},
		{name: "tasks without json", args: []string{"-replay", "t.json", "-tasks"}, wantErr: "-tasks needs -json"},
		{name: "empty replay", args: []string{"-replay", ""}, wantErr: "empty file name"},
		{name: "stray argument", args: []string{"-replay", "t.json", "extra"}, wantErr: "unexpected arguments"},
		{name: "unknown flag", args: []string{"-nope"}, wantErr: "not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			case tc.want != nil && !tc.want(o):
				t.Fatalf("options %+v", o)
			}
		})
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}

func TestRunReplay(t *testing.T) {
	tr := schedtrace.Trace{Policy: "default", Judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1}}}
	for i := range 5 {
		tr.Tasks = append(tr.Tasks, schedtrace.Task{SubmissionID: int64(i + 1), AtMs: int64(i) * 100, ProblemID: 1,
			Language: "cpp", Priority: 1, WorkMs: 150, DispatchMs: int64(i)*100 + int64(i)*50, JudgeID: "a"})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	var buf bytes.Buffer
	if err := schedtrace.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"judges":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		check   func(t *testing.T, out string)
		wantErr string
	}{
		{name: "table", args: []string{"-replay", path}, check: func(t *testing.T, out string) {
			// The hub and the simulator agree exactly: waits 0, 50, …, 200.
			want := "all 5 5 100.0 198.0 100.0 198.0 +0.0 +0.0"
			for _, line := range strings.Split(out, "\n") {
				if strings.Join(strings.Fields(line), " ") == want {
					return
				}
			}
			t.Fatalf("no row %q in:\n%s", want, out)
		}},
		{name: "json", args: []string{"-replay", path, "-json"}, check: func(t *testing.T, out string) {
			var r sim.ReplayResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.Policy != "default" || r.All.Hub != r.All.Sim || r.All.Sim.Count != 5 || r.Dispatches != nil || r.All.Differs {
				t.Fatalf("%+v", r)
			}
		}},
		{name: "json with tasks and a policy", args: []string{"-replay", path, "-json", "-tasks", "-policy", "least_conn"}, check: func(t *testing.T, out string) {
			var r sim.ReplayResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if r.Policy != "least_conn" || len(r.Dispatches) != 5 || r.All.Sim.MeanMs != 0 || !r.All.Differs {
				t.Fatalf("%+v", r)
			}
		}},
		{name: "missing file", args: []string{"-replay", filepath.Join(dir, "none.json")}, wantErr: "no such file"},
		{name: "invalid trace", args: []string{"-replay", bad}, wantErr: "judges: none"},
		{name: "unknown policy", args: []string{"-replay", path, "-policy", "nope"}, wantErr: "unknown policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = runReplay(o, &out)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			default:
				tc.check(t, out.String())
			}
		})
	}
}

// TestTraceScenario: -trace reads a recorded run as one scenario at its
// recorded times, every task measured, labelled with its realised load.
func TestTraceScenario(t *testing.T) {
	tr := schedtrace.Trace{Judges: []schedtrace.Judge{{ID: "a", Slots: 2, Speed: 1}}}
	for i := range 11 {
		tr.Tasks = append(tr.Tasks, schedtrace.Task{SubmissionID: int64(i + 1), AtMs: int64(i) * 1000, ProblemID: int64(i % 3),
			Language: "cpp", Priority: 1, WorkMs: 500})
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	var buf bytes.Buffer
	if err := schedtrace.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, tl, rho, err := traceScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	// 11 × 0.5 s of work over 10 s on 2 slots of speed 1.
	if sc.Name != "trace" || len(sc.Arrivals.Replay) != 11 || tl.Warmup != 0 || tl.Measured != 11 || rho != 0.28 {
		t.Fatalf("scenario %s, %d jobs, timeline %+v, ρ %v", sc.Name, len(sc.Arrivals.Replay), tl, rho)
	}
	if _, _, _, err := traceScenario(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}

	// What `verdict-stack export-trace` writes (a scenario file replaying
	// a trace) is read the same way, recorded times to verdict included.
	tr.Tasks[0].VerdictMs, tr.Tasks[0].Verdict = 1500, "AC"
	tr.Tasks[1].VerdictMs = 4000
	b, err := schedtrace.Scenario(tr, schedtrace.ScenarioOptions{Name: "exported"})
	if err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(dir, "exported.json")
	if err := os.WriteFile(exported, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, tl, rho, err = traceScenario(exported)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "exported" || len(sc.Arrivals.Replay) != 11 || tl.Measured != 11 || rho != 0.28 {
		t.Fatalf("scenario %s, %d jobs, timeline %+v, ρ %v", sc.Name, len(sc.Arrivals.Replay), tl, rho)
	}
	if n, mean, p99 := recorded(sc); n != 2 || mean != 2.25 || math.Abs(p99-2.985) > 1e-9 {
		t.Fatalf("recorded: %d, mean %v, p99 %v", n, mean, p99)
	}
	scaled, err := schedtrace.Scenario(tr, schedtrace.ScenarioOptions{ScaleToLoad: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exported, scaled, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := traceScenario(exported); err == nil || !strings.Contains(err.Error(), "scale_to_load is on") {
		t.Fatalf("a scaled trace: %v", err)
	}
	if err := os.WriteFile(exported, []byte(`{"name": "x", "arrivals": {"burst": {"problem_rank": 1, "factor": 2, "at": 1, "length_s": 1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := traceScenario(exported); err == nil || !strings.Contains(err.Error(), "without arrivals.trace") {
		t.Fatalf("a scenario without a trace: %v", err)
	}
}

// TestSaveAndReportFrom: -save keeps what the report needs and -from
// writes the same report from it without running the grid.
func TestSaveAndReportFrom(t *testing.T) {
	dir := t.TempDir()
	out, saved := filepath.Join(dir, "a.md"), filepath.Join(dir, "a.gob")
	o, err := parseFlags([]string{"-quick", "-seeds", "1", "-scenarios", "steady", "-loads", "0.5,0.85", "-policies", "default,pull,bound",
		"-ablation=false", "-sweeps=false", "-out", out, "-save", saved}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "b.md")
	if o, err = parseFlags([]string{"-from", saved, "-out", again}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := runFrom(o); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(b), "](b/", "](a/"); got != string(a) || !strings.Contains(got, "| default |") {
		t.Fatalf("the report from -from differs from the run's")
	}
	if _, err := parseFlags([]string{"-from", saved, "-seeds", "3"}, io.Discard); err == nil {
		t.Fatal("-from took -seeds")
	}
}
