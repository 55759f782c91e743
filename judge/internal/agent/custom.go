package agent

import (
	"context"
	"os"
	"path/filepath"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/checker"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// customRun runs a compiled custom run (protocol.CustomRun): once on the
// user's input, then on each sample the task carries, compared with its
// answer by the task's built-in checker. Nothing of the problem's test
// data is on this judge for it: the inputs come in the task. run is the
// sandbox spec of the program (limits, dir, slot) without stdin and
// stdout; scratch is the judge's own directory (the program cannot reach
// it), where inputs, answers and outputs go.
func (a *Agent) customRun(ctx context.Context, t protocol.Task, run sandbox.Spec, at place, scratch string, res protocol.Result,
	sysErr func(string, ...any) (protocol.Result, error)) (protocol.Result, error) {
	run.Limits.Stderr = protocol.MaxCustomStderr
	type job struct {
		c         int
		in, ans   string
		flags     []string // the icpc checker's
		hasAnswer bool
	}
	jobs := []job{{c: 0, in: t.Custom.Input}}
	for _, s := range t.Custom.Samples {
		jobs = append(jobs, job{c: s.Case, in: s.Input, ans: s.Answer, flags: s.Flags, hasAnswer: true})
	}
	res.Verdict = protocol.VerdictAC
	for i, j := range jobs {
		in := filepath.Join(scratch, "input")
		out := filepath.Join(scratch, "output")
		ans := filepath.Join(scratch, "answer")
		for _, f := range []string{in, out, ans} {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				return sysErr("custom run: %v", err)
			}
		}
		if err := os.WriteFile(in, []byte(j.in), 0o644); err != nil {
			return sysErr("custom run: write input: %v", err)
		}
		spec := run
		spec.StdinFile, spec.StdoutFile = in, out
		// A file I/O problem's program reads and writes its named files
		// in a custom run too (problemio.go); what it wrote is shown as
		// its output.
		fio, err := prepareFileIO(t.IO, &spec, run.Dir, scratch, at)
		if err != nil {
			return sysErr("custom run %d: file I/O: %v", i+1, err)
		}
		r, err := a.cfg.Runner.Run(ctx, spec)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil || r.Status == sandbox.StatusSandboxError {
			return sysErr("custom run %d: sandbox: %v %s", i+1, err, r.Error)
		}
		ioVerdict, ioMessage := protocol.VerdictAC, ""
		if fio.output != "" {
			if ioVerdict, ioMessage, err = fio.collect(out, t.Limits.OutputBytes); err != nil {
				return sysErr("custom run %d: file I/O: %v", i+1, err)
			}
		}
		if err := fio.cleanup(); err != nil {
			return sysErr("custom run %d: file I/O: %v", i+1, err)
		}
		o := protocol.CustomOutput{Case: j.c, CPUMs: r.CPUMs, WallMs: r.WallMs, MemoryKiB: r.MemoryKB, ExitCode: r.ExitCode,
			StderrTruncated: r.StderrTruncated}
		var cut bool
		o.Stderr, cut = cutUTF8(r.Stderr, protocol.MaxCustomStderr)
		o.StderrTruncated = o.StderrTruncated || cut
		o.Stdout, o.StdoutTruncated = cutUTF8(headOf(scratch, "output", protocol.MaxCustomOutput+1), protocol.MaxCustomOutput)
		o.Verdict, o.Message = runVerdict(r, out, t.Limits.OutputBytes)
		if o.Verdict == protocol.VerdictAC && ioVerdict != protocol.VerdictAC {
			o.Verdict, o.Message = ioVerdict, ioMessage
		}
		if o.Verdict == protocol.VerdictAC && j.hasAnswer {
			if err := os.WriteFile(ans, []byte(j.ans), 0o644); err != nil {
				return sysErr("custom run: write answer: %v", err)
			}
			var co checker.Outcome
			co, err = checkFiles(t.Checker, j.flags, out, ans)
			if err != nil {
				return sysErr("custom run %d: checker: %v", i+1, err)
			}
			if co.Verdict == protocol.VerdictSE {
				return sysErr("custom run %d: %s", i+1, co.Message)
			}
			o.Verdict, o.Message = co.Verdict, co.Message
		}
		o.Message = truncate.Marked(o.Message, protocol.MaxCaseMessage)
		if o.Verdict != protocol.VerdictAC && res.Verdict == protocol.VerdictAC {
			res.Verdict = o.Verdict
		}
		res.Custom = append(res.Custom, o)
	}
	if len(res.Custom) != len(jobs) {
		return sysErr("custom run: %d outcomes for %d runs", len(res.Custom), len(jobs))
	}
	return res, nil
}

// cutUTF8 returns at most n bytes of s, not splitting a UTF-8 sequence,
// and whether anything was cut.
func cutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], true
}
