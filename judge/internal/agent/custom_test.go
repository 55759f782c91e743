package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

var nextCustomRun = protocol.CustomRunIDBase + 1000

func mkCustom(source, input string, samples []protocol.SampleCase, mut ...func(*protocol.Task)) protocol.Task {
	nextCustomRun++
	t := protocol.Task{
		TaskRef:   protocol.TaskRef{SubmissionID: nextCustomRun, Attempt: 1},
		ProblemID: 7, Language: "py3", Source: source,
		Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 64 << 10, OutputBytes: 1 << 20},
		Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault},
		Priority: protocol.PriorityCustom,
		Custom:   &protocol.CustomRun{Input: input, Samples: samples},
	}
	for _, m := range mut {
		m(&t)
	}
	return t
}

// TestCustomRun runs custom runs through the fake hub: the output, stderr,
// time and memory of a run on the user's input, the samples compared with
// their answers, the limits (time, memory, output, stderr bounded), and
// that the judge fetches no test data for any of it.
func TestCustomRun(t *testing.T) {
	h := newFakeHub(t)
	h.acks.Store(true)
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)

	double := "import sys\nfor l in sys.stdin:\n    print(int(l) * 2)\nprint('debug line', file=sys.stderr)\n"
	tasks := map[string]protocol.Task{
		"echo": mkCustom(double, "21\n", []protocol.SampleCase{
			{Case: 1, Input: "1\n", Answer: "2\n"},
			{Case: 3, Input: "5\n", Answer: "11\n"},
		}),
		"tle":   mkCustom("while True:\n    pass\n", "", nil, func(t *protocol.Task) { t.Limits.TimeMs = 300 }),
		"mle":   mkCustom("x=[]\nwhile True:\n    x.append(bytearray(1<<20))\n", "", nil),
		"flood": mkCustom("import sys\nsys.stdout.write('y' * (200 << 10))\nsys.stderr.write('e' * (100 << 10))\n", "", nil),
		"ole":   mkCustom("import sys\nwhile True:\n    sys.stdout.write('z' * 65536)\n", "", nil, func(t *protocol.Task) { t.Limits.OutputBytes = 256 << 10 }),
		"ce":    mkCustom("#include <nothing>\nint main(){}\n", "", nil, func(t *protocol.Task) { t.Language = "cpp17" }),
		"stdin": mkCustom("print(input()[::-1])\n", "olleh\n", nil),
		"crash": mkCustom("import sys\nsys.exit(3)\n", "", nil),
	}
	for _, tk := range tasks {
		h.send(protocol.TypeTask, tk)
	}
	got := map[string]protocol.Result{}
	for name, tk := range tasks {
		got[name] = c.result(tk.TaskRef, 90*time.Second)
	}

	echo := got["echo"]
	if echo.Verdict != protocol.VerdictWA || len(echo.Custom) != 3 {
		t.Fatalf("echo: %s with %d runs, want WA (sample 3 is wrong) with 3: %+v", echo.Verdict, len(echo.Custom), echo)
	}
	in, s1, s3 := echo.Custom[0], echo.Custom[1], echo.Custom[2]
	if in.Case != 0 || in.Verdict != protocol.VerdictAC || in.Stdout != "42\n" || in.Stderr != "debug line\n" || in.WallMs <= 0 || in.MemoryKiB <= 0 {
		t.Errorf("run on the input = %+v, want AC, stdout 42, stderr, time and memory", in)
	}
	if s1.Case != 1 || s1.Verdict != protocol.VerdictAC || s1.Stdout != "2\n" {
		t.Errorf("sample 1 = %+v, want AC with 2", s1)
	}
	if s3.Case != 3 || s3.Verdict != protocol.VerdictWA || s3.Stdout != "10\n" {
		t.Errorf("sample 3 = %+v, want WA with 10", s3)
	}
	if r := got["stdin"]; r.Verdict != protocol.VerdictAC || r.Custom[0].Stdout != "hello\n" {
		t.Errorf("stdin: %+v", r)
	}
	for name, want := range map[string]protocol.Verdict{"tle": protocol.VerdictTLE, "mle": protocol.VerdictMLE, "ole": protocol.VerdictOLE, "crash": protocol.VerdictRE} {
		r := got[name]
		if r.Verdict != want || len(r.Custom) != 1 || r.Custom[0].Verdict != want {
			t.Errorf("%s: %+v, want %s", name, r, want)
		}
	}
	if r := got["crash"]; r.Custom[0].ExitCode != 3 {
		t.Errorf("crash: exit code %d, want 3", r.Custom[0].ExitCode)
	}
	fl := got["flood"].Custom[0]
	if fl.Verdict != protocol.VerdictAC || len(fl.Stdout) != protocol.MaxCustomOutput || !fl.StdoutTruncated ||
		len(fl.Stderr) > protocol.MaxCustomStderr || !fl.StderrTruncated || strings.Trim(fl.Stdout, "y") != "" {
		t.Errorf("flood: verdict %s, stdout %d bytes (cut %v), stderr %d bytes (cut %v); want both bounded and marked",
			fl.Verdict, len(fl.Stdout), fl.StdoutTruncated, len(fl.Stderr), fl.StderrTruncated)
	}
	if ol := got["ole"].Custom[0]; len(ol.Stdout) > protocol.MaxCustomOutput {
		t.Errorf("ole: %d bytes of stdout sent", len(ol.Stdout))
	}
	if r := got["ce"]; r.Verdict != protocol.VerdictCE || r.CompileMessage == "" || len(r.Custom) != 0 {
		t.Errorf("ce: %+v", r)
	}
	for name, r := range got {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: invalid result: %v", name, err)
		}
	}
	if n := h.fetches.Load(); n != 0 {
		t.Errorf("the judge fetched test data %d times for custom runs, want never", n)
	}
}
