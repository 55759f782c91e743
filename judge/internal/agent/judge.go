package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/cache"
	"github.com/verdict-oj/verdict/judge/internal/checker"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// sandboxUID is the user programs run as when the Runner has no slots of
// its own (not a *sandbox.Sandbox).
const sandboxUID = 65534

// slotRunner is what *sandbox.Sandbox offers beyond Runner: slots, each
// with its own uid and gid.
type slotRunner interface {
	Slots() int
	SlotUser(slot int) (uid, gid int)
}

// place is where a run goes: its sandbox slot (whose uid and gid must be
// able to write what the run writes) and CPU.
type place struct {
	cpu      *int
	slot     *int
	uid, gid int
}

// slotPlace is the place of the agent's slot: the sandbox slot of the
// same number (modulo the sandbox's slots) and the slot's CPU.
func (a *Agent) slotPlace(slot int) place {
	return a.placeIn(slot, a.slotCPU(slot))
}

func (a *Agent) placeIn(slot int, cpu *int) place {
	sr, ok := a.cfg.Runner.(slotRunner)
	if !ok || sr.Slots() <= 0 {
		return place{cpu: cpu, uid: sandboxUID, gid: sandboxUID}
	}
	s := slot % sr.Slots()
	uid, gid := sr.SlotUser(s)
	return place{cpu: cpu, slot: &s, uid: uid, gid: gid}
}

// Limits of a special judge's compile and run.
const (
	checkerCompileTime = 30 * time.Second
	checkerRunTime     = 10 * time.Second
	checkerMemory      = 512 << 20
	// checkerCompileMemory: a checker's or interactor's compile.
	checkerCompileMemory = 1 << 30
)

// checkerBuild is the cache artefact key of the compiled special judge
// (built by the first task, or by a prefetch).
const checkerBuild = "checker"

// judge runs the whole pipeline of one task and returns its result. An
// error means no result: the task was cancelled (superseded, or the agent
// stops for good) or must go back to the hub (*rejectError).
func (a *Agent) judge(ctx context.Context, slot int, t *task, log *slog.Logger) (protocol.Result, error) {
	res := protocol.Result{TaskRef: t.TaskRef, JudgeID: a.cfg.JudgeID, Cases: []protocol.CaseResult{}}
	pg := newProgress(a, t.TaskRef)
	defer pg.stop()
	pg.status(protocol.VerdictCompiling)
	sysErr := func(format string, args ...any) (protocol.Result, error) {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		msg := fmt.Sprintf(format, args...)
		log.Error("system error", "err", msg)
		res.Verdict, res.Score = protocol.VerdictSE, 0
		res.CompileMessage = truncate.Marked(msg, protocol.MaxCompileMessage)
		return res, nil
	}

	if t.Validation != nil { // an input validation: no program of a user (validate.go)
		return a.validateInputs(ctx, slot, t, pg, log)
	}

	// An output-only task has no program: the contestant's outputs are
	// its source, checked case by case (problemio.go).
	outputsOnly := t.Language == protocol.LanguageOutputs
	var outs protocol.Outputs
	l, ok := a.langs[t.Language]
	switch {
	case outputsOnly:
		var err error
		if outs, err = protocol.DecodeOutputs(t.Source); err != nil {
			return res, &rejectError{protocol.RejectInvalid, err}
		}
	case !ok:
		return res, &rejectError{protocol.RejectLanguage, fmt.Errorf("language %q", t.Language)}
	}
	// A custom run has no test data (its inputs are in the task): nothing
	// of the problem's package is fetched for it (custom.go).
	var data *cache.Entry
	var m testpkg.Manifest
	if t.Custom == nil {
		var err error
		data, err = a.cache.Get(ctx, t.ProblemID, t.TestData.Hash, t.TestData.URL)
		switch {
		case ctx.Err() != nil:
			return res, ctx.Err()
		case errors.Is(err, cache.ErrDownload), errors.Is(err, cache.ErrClosed):
			return res, &rejectError{protocol.RejectData, err}
		case err != nil: // hash mismatch, invalid package: retrying will not help
			return sysErr("test data %s: %v", t.TestData.Hash, err)
		}
		defer data.Release()
		m = data.Manifest()
	}

	work := filepath.Join(a.cfg.Dir, "work", fmt.Sprintf("slot-%d", slot))
	at := a.slotPlace(slot)
	dataDir := ""
	if data != nil {
		dataDir = data.Dir()
	}
	// A tmpfs of its own (workdir.go): a run's mountinfo names no host path.
	if err := resetWorkDir(work, at.uid, a.slotWorkBytes(l, t.Task, m, dataDir)); err != nil {
		return sysErr("work dir: %v", err)
	}
	// Whatever a compile left there (a chain deeper than the open-file
	// limit, symlinks): removed without following symlinks, two
	// descriptors at most.
	defer removeLogged(log, work)
	scratch := work + "-io" // outputs: the judge's, outside the program's /w
	if err := resetDir(scratch, 0); err != nil {
		return sysErr("scratch dir: %v", err)
	}
	defer removeLogged(log, scratch)

	// Compile.
	var src, class string
	var err error
	if !outputsOnly {
		src, class, err = l.SourceName(t.Source)
		if err != nil {
			res.Verdict, res.CompileMessage = protocol.VerdictCE, err.Error()
			return res, nil
		}
		if err := os.WriteFile(filepath.Join(work, src), []byte(t.Source), 0o644); err != nil {
			return sysErr("write source: %v", err)
		}
	}
	memLimit := l.MemoryLimit(t.Limits.MemoryKiB << 10)
	if len(l.Compile) > 0 && !outputsOnly {
		if a.builds.enabled(l) {
			// The kept cache holds only what the judge's own warm-up
			// compile produced; this compile gets a private copy of it,
			// discarded below: nothing a submission's compile writes
			// reaches another submission.
			a.builds.warm(ctx, l, at.uid, func(dir string) error { return a.warmCompile(ctx, l, at, dir) }, log)
			if err := a.builds.seed(l, work, at.uid); err != nil {
				log.Warn("compiling without the kept build cache", "err", err)
			}
		}
		// The compiler's stdout goes to a file, not to the judge's memory
		// (the file-size limit is large for toolchains' intermediates), in
		// the judge's scratch dir: the compile cannot replace it (by a
		// symlink to a host file, say), and it is read back beneath scratch
		// without following symlinks, bounded.
		const compilerOut = "compiler-stdout"
		r, err := a.cfg.Runner.Run(ctx, a.compileSpec(l, work, src, class, memLimit, at, filepath.Join(scratch, compilerOut)))
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil || r.Status == sandbox.StatusSandboxError {
			return sysErr("compile: sandbox: %v %s", err, r.Error)
		}
		if r.Status != sandbox.StatusOK {
			res.Verdict = protocol.VerdictCE
			r.Stdout = headOf(scratch, compilerOut, protocol.MaxCompileMessage)
			res.CompileMessage = truncate.Marked(compileMessage(r), protocol.MaxCompileMessage)
			return res, nil
		}
		if a.builds.enabled(l) {
			if err := sandbox.RemoveAll(filepath.Join(work, l.BuildCache)); err != nil {
				return sysErr("work dir: %v", err)
			}
		}
	}
	// The program may not change its own files from now on.
	if err := sandbox.ChownTree(work, 0, 0); err != nil {
		return sysErr("work dir: %v", err)
	}

	var checkerBin string
	if t.Checker.Kind == protocol.CheckerSpecial {
		if m.Checker == "" {
			return sysErr("the problem uses a special judge but its test data has no %s", testpkg.CheckerName)
		}
		checkerBin, err = data.Build(ctx, checkerBuild, func(ctx context.Context, dir string) (string, error) {
			return a.buildChecker(ctx, at, data.Dir(), dir, m)
		})
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			return sysErr("special judge: %v", err)
		}
	}
	var ix *interaction
	if m.Interactive && (outputsOnly || t.IO != nil) {
		return sysErr("an interactive problem cannot be output-only or use file I/O")
	}
	if m.Interactive {
		bin, err := data.Build(ctx, interactorBuild, func(ctx context.Context, dir string) (string, error) {
			return a.buildInteractor(ctx, at, data.Dir(), dir, m)
		})
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			return sysErr("interactor: %v", err)
		}
		ix = &interaction{m: m, bin: bin, checkerBin: checkerBin, at: at, iat: a.interactorPlace(slot, at), scratch: scratch}
	}

	pg.status(protocol.VerdictJudging)
	wall := time.Duration(0)
	if t.Limits.WallTimeMs > 0 {
		wall = l.TimeLimit(time.Duration(t.Limits.WallTimeMs) * time.Millisecond)
	}
	lim := sandbox.Limits{
		CPU: l.TimeLimit(time.Duration(t.Limits.TimeMs) * time.Millisecond), Wall: wall,
		Memory: memLimit, Stack: l.StackKiB << 10, Output: t.Limits.OutputBytes, Procs: max(l.Procs, 1),
	}
	if l.UnlimitedAddressSpace {
		lim.AddressSpace = -1
	}
	runArgv := lang.Expand(l.Run, src, class, t.Limits.MemoryKiB<<10)
	if t.Custom != nil {
		run := sandbox.Spec{Argv: runArgv, Env: l.Env, Dir: work, Limits: lim, Profile: sandbox.ProfileRun, CPU: at.cpu, Slot: at.slot}
		return a.customRun(ctx, t.Task, run, at, scratch, res, sysErr)
	}
	fractions := make([]float64, len(m.Cases))
	failed := false
	verdicts := make([]protocol.Verdict, 0, len(m.Cases)) // of the cases so far, for the grading rules
	for i, cf := range m.Cases {
		cr := protocol.CaseResult{Case: i + 1}
		if t.Mode == protocol.ModeICPC && skipCase(m.Grading, failed, verdicts, i+1) {
			cr.Verdict = protocol.VerdictSkipped
			res.Cases = append(res.Cases, cr)
			verdicts = append(verdicts, cr.Verdict)
			continue
		}
		if ix != nil {
			// Interactive: the solution talks to the interactor, which
			// gives the verdict (interactive.go).
			ix.sol = sandbox.Spec{Argv: runArgv, Env: l.Env, Dir: work, Limits: lim, Profile: sandbox.ProfileRun, CPU: at.cpu, Slot: at.slot}
			ix.scoreMax = caseScoreMax(m, i)
			ixc := *ix
			ixc.m = m.ForCase(i) // the case's own validator flags, if any
			o, err := a.interactCase(ctx, ixc, filepath.Join(data.Dir(), cf.In), filepath.Join(data.Dir(), cf.Ans), &cr)
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if err != nil {
				return sysErr("case %d: interactor: %v", i+1, err)
			}
			if o.Verdict == protocol.VerdictSE {
				return sysErr("case %d: %s", i+1, o.Message)
			}
			cr.Verdict, cr.Message, fractions[i] = o.Verdict, truncate.Marked(o.Message, protocol.MaxCaseMessage), o.Fraction
			failed = failed || cr.Verdict != protocol.VerdictAC
			res.Cases = append(res.Cases, cr)
			verdicts = append(verdicts, cr.Verdict)
			pg.add(withScore(cr, CaseScore(t.Mode, m, i, fractions[i])))
			continue
		}
		out := filepath.Join(scratch, "output")
		if outputsOnly {
			// The contestant's output of this case, written by the judge.
			cr.Verdict, cr.Message, err = writeOutput(out, outs, i+1, t.Limits.OutputBytes)
			if err != nil {
				return sysErr("case %d: %v", i+1, err)
			}
		} else {
			spec := sandbox.Spec{
				Argv: runArgv, Env: l.Env, Dir: work, StdinFile: filepath.Join(data.Dir(), cf.In),
				StdoutFile: out, Limits: lim, Profile: sandbox.ProfileRun, CPU: at.cpu, Slot: at.slot,
			}
			fio, err := prepareFileIO(t.IO, &spec, work, scratch, at)
			if err != nil {
				return sysErr("case %d: file I/O: %v", i+1, err)
			}
			r, err := a.cfg.Runner.Run(ctx, spec)
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			cr.CPUMs, cr.WallMs, cr.MemoryKiB = r.CPUMs, r.WallMs, r.MemoryKB
			if err != nil || r.Status == sandbox.StatusSandboxError {
				return sysErr("case %d: sandbox: %v %s", i+1, err, r.Error)
			}
			cr.Verdict, cr.Message = runVerdict(r, fio.outputPath(out), t.Limits.OutputBytes)
			if cr.Verdict == protocol.VerdictAC && fio.output != "" {
				// The program's output file, copied beneath scratch.
				cr.Verdict, cr.Message, err = fio.collect(out, t.Limits.OutputBytes)
				if err != nil {
					return sysErr("case %d: file I/O: %v", i+1, err)
				}
			}
			if err := fio.cleanup(); err != nil {
				return sysErr("case %d: file I/O: %v", i+1, err)
			}
		}
		if cr.Verdict == protocol.VerdictAC {
			var o checker.Outcome
			if checkerBin != "" {
				// The case's own output validator flags, if its group has them.
				o, err = a.runChecker(ctx, at, checkerBin, m.ForCase(i), filepath.Join(data.Dir(), cf.In), out, filepath.Join(data.Dir(), cf.Ans), scratch, caseScoreMax(m, i))
			} else {
				// The built-in checker; icpc with the case's flags.
				o, err = checkFiles(t.Checker, m.ForCase(i).DefaultValidatorFlags, out, filepath.Join(data.Dir(), cf.Ans))
			}
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			if err != nil {
				return sysErr("case %d: checker: %v", i+1, err)
			}
			if o.Verdict == protocol.VerdictSE {
				return sysErr("case %d: %s", i+1, o.Message)
			}
			cr.Verdict, cr.Message, fractions[i] = o.Verdict, o.Message, o.Fraction
		}
		cr.Message = truncate.Marked(cr.Message, protocol.MaxCaseMessage)
		if cr.Verdict != protocol.VerdictAC {
			failed = true
		}
		res.Cases = append(res.Cases, cr)
		verdicts = append(verdicts, cr.Verdict)
		pg.add(withScore(cr, CaseScore(t.Mode, m, i, fractions[i])))
	}
	res.Verdict, res.Score = Score(t.Mode, m, res.Cases, fractions)
	return res, nil
}

// skipCase reports whether an ICPC-mode task skips case c (1-based):
// by the test data's grading rules when it has them (the default
// grader's on_reject, always_accept, ignore_sample; verdicts are the
// cases' before c), else once a case failed.
func skipCase(g *testpkg.Grading, failed bool, verdicts []protocol.Verdict, c int) bool {
	if g != nil {
		return !g.Reached(verdicts, c)
	}
	return failed
}

func (a *Agent) slotCPU(slot int) *int {
	if a.cpus == nil || slot >= len(a.cpus) {
		return nil
	}
	c := a.cpus[slot]
	return &c
}

// runVerdict maps a sandbox status to a case verdict (AC: ran fine, still
// to be checked).
func runVerdict(r sandbox.Result, out string, outLimit int64) (protocol.Verdict, string) {
	// Output that reached the limit decides first: RLIMIT_FSIZE stopped
	// the program (SIGXFSZ, or EFBIG and a non-zero exit for runtimes that
	// ignore the signal, like CPython), and on cgroup v1 the written page
	// cache can also push the memory peak to the limit.
	if r.Status != sandbox.StatusOK && r.Status != sandbox.StatusSandboxError {
		if st, err := os.Stat(out); err == nil && st.Size() >= outLimit {
			return protocol.VerdictOLE, ""
		}
	}
	switch r.Status {
	case sandbox.StatusOK:
		return protocol.VerdictAC, ""
	case sandbox.StatusTimeLimit:
		return protocol.VerdictTLE, "CPU time limit exceeded"
	case sandbox.StatusWallTimeLimit:
		return protocol.VerdictTLE, "wall-clock time limit exceeded"
	case sandbox.StatusMemoryLimit:
		return protocol.VerdictMLE, ""
	case sandbox.StatusOutputLimit:
		return protocol.VerdictOLE, ""
	case sandbox.StatusForbiddenSyscall:
		return protocol.VerdictRE, "forbidden system call " + r.Syscall
	}
	// The JVM reports its heap limit itself.
	if strings.Contains(r.Stderr, "java.lang.OutOfMemoryError") {
		return protocol.VerdictMLE, "java.lang.OutOfMemoryError"
	}
	return protocol.VerdictRE, reMessage(r)
}

// reMessage explains a runtime error.
func reMessage(r sandbox.Result) string {
	if r.Signal != 0 {
		return "killed by " + r.SignalName
	}
	return fmt.Sprintf("exit code %d", r.ExitCode)
}

// headOf returns up to n bytes from the start of dir/name, opened beneath
// dir without following symlinks, a regular file only ("" otherwise).
func headOf(dir, name string, n int) string {
	b, _, err := sandbox.ReadFileBeneath(dir, name, int64(n))
	if err != nil {
		return ""
	}
	return string(b)
}

// removeLogged removes a tree the sandbox could write (see sandbox.RemoveAll).
func removeLogged(log *slog.Logger, dir string) {
	if err := sandbox.RemoveAll(dir); err != nil {
		log.Error("remove work dir", "dir", dir, "err", err)
	}
}

// compileSpec is the sandbox run of l's compiler in work.
func (a *Agent) compileSpec(l lang.Available, work, src, class string, memLimit int64, at place, stdoutFile string) sandbox.Spec {
	ct := time.Duration(l.CompileTimeMs) * time.Millisecond
	if ct <= 0 {
		ct = 10 * time.Second
	}
	cm := l.CompileMemoryKiB << 10
	if cm <= 0 {
		cm = 1 << 30
	}
	cf := l.CompileFileKiB << 10
	if cf <= 0 {
		cf = lang.DefaultCompileFileKiB << 10
	}
	return sandbox.Spec{
		Argv: lang.Expand(l.Compile, src, class, memLimit), Env: l.Env, Dir: work,
		Profile: sandbox.ProfileCompile, CPU: at.cpu, Slot: at.slot, StdoutFile: stdoutFile,
		Limits: sandbox.Limits{CPU: ct, Wall: 3 * ct, Memory: cm, AddressSpace: -1, Stack: 64 << 20,
			Output: cf, Stderr: protocol.MaxCompileMessage, Procs: max(l.CompileProcs, 0)},
	}
}

// warmCompile compiles l's BuildCacheWarm source in dir (the judge's own
// code), filling dir/<BuildCache> with what the toolchain builds for it.
func (a *Agent) warmCompile(ctx context.Context, l lang.Available, at place, dir string) error {
	src, class, err := l.SourceName(l.BuildCacheWarm)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, src), []byte(l.BuildCacheWarm), 0o644); err != nil {
		return err
	}
	cache := filepath.Join(dir, l.BuildCache)
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	if err := os.Chown(cache, at.uid, at.gid); err != nil {
		return err
	}
	r, err := a.cfg.Runner.Run(ctx, a.compileSpec(l, dir, src, class, 256<<20, at, ""))
	if err != nil {
		return fmt.Errorf("warm-up compile: %w", err)
	}
	if r.Status != sandbox.StatusOK {
		return fmt.Errorf("warm-up compile: %s: %s", r.Status, truncate.Marked(compileMessage(r), 4<<10))
	}
	return nil
}

func compileMessage(r sandbox.Result) string {
	var b strings.Builder
	switch r.Status {
	case sandbox.StatusTimeLimit, sandbox.StatusWallTimeLimit:
		b.WriteString("compilation time limit exceeded\n")
	case sandbox.StatusMemoryLimit:
		b.WriteString("compilation memory limit exceeded\n")
	case sandbox.StatusOutputLimit:
		b.WriteString("compiler output limit exceeded\n")
	case sandbox.StatusForbiddenSyscall:
		b.WriteString("the compiler made a forbidden system call: " + r.Syscall + "\n")
	}
	b.WriteString(r.Stdout)
	b.WriteString(r.Stderr)
	return strings.TrimSpace(b.String())
}

// checkFiles runs the built-in checker c on the files; flags are the
// icpc checker's.
func checkFiles(c protocol.Checker, flags []string, out, ans string) (checker.Outcome, error) {
	// out was written by the program (through a descriptor the judge
	// opened in its scratch dir): a regular file, never a symlink.
	of, err := sandbox.OpenBeneath(filepath.Dir(out), filepath.Base(out))
	if err != nil {
		return checker.Outcome{}, err
	}
	defer of.Close()
	af, err := os.Open(ans)
	if err != nil {
		return checker.Outcome{}, err
	}
	defer af.Close()
	return checker.Check(c.Kind, c.Tolerance, flags, of, af)
}

// resetDir makes dir empty, owned by uid (and the group of the same
// number: a slot's uid and gid are paired), mode 0755.
func resetDir(dir string, uid int) error {
	if err := sandbox.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	return os.Chown(dir, uid, uid)
}

func copyFile(src, dst string) error { return copyFileMode(src, dst, 0o755) }

// copyFileMode copies src to a new file dst with permissions mode.
func copyFileMode(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(src, dst)
}

// progress batches finished cases: the first case of a batch starts a
// timer of ProgressBatchInterval; the batch goes out when it fires, and
// whatever is left goes out before the result.
type progress struct {
	a   *Agent
	ref protocol.TaskRef

	mu      sync.Mutex
	pending []protocol.CaseResult
	timer   *time.Timer
}

func newProgress(a *Agent, ref protocol.TaskRef) *progress { return &progress{a: a, ref: ref} }

func (p *progress) status(v protocol.Verdict) {
	p.flush()
	p.a.send(protocol.TypeProgress, protocol.Progress{TaskRef: p.ref, Status: v, Cases: []protocol.CaseResult{}})
}

func (p *progress) add(c protocol.CaseResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pending = append(p.pending, c)
	if p.timer == nil {
		p.timer = time.AfterFunc(protocol.ProgressBatchInterval, p.flush)
	}
}

func (p *progress) flush() {
	p.mu.Lock()
	cases := p.pending
	p.pending = nil
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.mu.Unlock()
	if len(cases) > 0 {
		p.a.send(protocol.TypeProgress, protocol.Progress{TaskRef: p.ref, Status: protocol.VerdictJudging, Cases: cases})
	}
}

// stop sends what is pending (the result follows).
func (p *progress) stop() { p.flush() }
