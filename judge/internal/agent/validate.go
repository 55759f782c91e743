package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/cache"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// validatorRunTime bounds one run of an input validator (CPU) when the
// task gives less.
const validatorRunTime = 10 * time.Second

// validateInputs runs an input validation (protocol/validation.go): it
// fetches the test data, compiles the task's validator in the sandbox
// with the compiler of the task's language (its table entry: C, C++,
// Python, Java, Go...) and runs it as that language runs a program on
// every case's input, one CustomOutput per case. A validator
// that does not compile is a CE with the compiler's message; an input it
// refuses (or fails on) is a WA naming the case. A build check
// (BuildOnly) stops after the compile: AC, no outcome.
func (a *Agent) validateInputs(ctx context.Context, slot int, t *task, pg *progress, log *slog.Logger) (protocol.Result, error) {
	res := protocol.Result{TaskRef: t.TaskRef, JudgeID: a.cfg.JudgeID, Cases: []protocol.CaseResult{}}
	sysErr := func(format string, args ...any) (protocol.Result, error) {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		msg := fmt.Sprintf(format, args...)
		log.Error("system error", "err", msg)
		res.Verdict, res.Custom = protocol.VerdictSE, nil
		res.CompileMessage = truncate.Marked(msg, protocol.MaxCompileMessage)
		return res, nil
	}
	v := t.Validation
	if err := v.Validate(); err != nil {
		return res, &rejectError{protocol.RejectInvalid, err}
	}
	data, err := a.cache.Get(ctx, t.ProblemID, t.TestData.Hash, t.TestData.URL)
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.Is(err, cache.ErrGone):
		// The web node has no such test data: the import that queued
		// this check was dropped (its wait ran out, and it deleted the
		// problem). Handed back, the task would bounce between the hub
		// and the judges for good; ended, nobody is waiting for it.
		return sysErr("test data %s: %v: the import that queued this check is gone", t.TestData.Hash, err)
	case errors.Is(err, cache.ErrDownload), errors.Is(err, cache.ErrClosed):
		return res, &rejectError{protocol.RejectData, err}
	case err != nil:
		return sysErr("test data %s: %v", t.TestData.Hash, err)
	}
	defer data.Release()
	m := data.Manifest()

	work := filepath.Join(a.cfg.Dir, "work", fmt.Sprintf("slot-%d", slot))
	at := a.slotPlace(slot)
	// A file system root of its own, like every dir a program runs in
	// (mountinfo shows no host path): the compile's memory plus slack.
	if err := resetWorkDir(work, 0, 1<<30); err != nil {
		return sysErr("work dir: %v", err)
	}
	defer removeLogged(log, work)
	// The sources first, in a directory of their own (copySources reads
	// them from there and adds the judge's testlib.h when needed).
	src := filepath.Join(work, "src")
	build := filepath.Join(work, "build")
	for _, d := range []string{src, build} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return sysErr("work dir: %v", err)
		}
	}
	files := make([]string, 0, len(v.Files))
	if err := os.WriteFile(filepath.Join(src, v.Name), []byte(v.Source), 0o644); err != nil {
		return sysErr("write validator: %v", err)
	}
	for name, b := range v.Files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(b), 0o644); err != nil {
			return sysErr("write validator: %v", err)
		}
		files = append(files, name)
	}
	hint, err := a.copySources(src, build, v.Name, files)
	if err != nil {
		return sysErr("validator sources: %v", err)
	}
	if err := sandbox.ChownTree(build, at.uid, at.gid); err != nil {
		return sysErr("work dir: %v", err)
	}
	l, ok := a.langs[t.Language]
	if !ok {
		return res, &rejectError{protocol.RejectLanguage, fmt.Errorf("language %q", t.Language)}
	}
	class := strings.TrimSuffix(v.Name, filepath.Ext(v.Name))
	if len(l.Compile) > 0 {
		if a.builds.enabled(l) { // Go: a private copy of the kept build cache, as for a submission
			a.builds.warm(ctx, l, at.uid, func(dir string) error { return a.warmCompile(ctx, l, at, dir) }, log)
			if err := a.builds.seed(l, build, at.uid); err != nil {
				log.Warn("compiling without the kept build cache", "err", err)
			}
		}
		spec := a.compileSpec(l, build, v.Name, class, 256<<20, at, "")
		spec.Argv = validatorCompileArgv(l, v, spec.Argv)
		// At least a checker's compile time: a validator may include
		// testlib.h, slow to compile.
		if spec.Limits.CPU < checkerCompileTime {
			spec.Limits.CPU, spec.Limits.Wall = checkerCompileTime, 3*checkerCompileTime
		}
		r, err := a.cfg.Runner.Run(ctx, spec)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil || r.Status == sandbox.StatusSandboxError {
			return sysErr("compile: sandbox: %v %s", err, r.Error)
		}
		if r.Status != sandbox.StatusOK {
			res.Verdict = protocol.VerdictCE
			res.CompileMessage = truncate.Marked(compileFailure(r, hint).Error(), protocol.MaxCompileMessage)
			return res, nil
		}
		if a.builds.enabled(l) {
			if err := sandbox.RemoveAll(filepath.Join(build, l.BuildCache)); err != nil {
				return sysErr("work dir: %v", err)
			}
		}
	}
	if v.BuildOnly { // a build check: it compiles, nothing runs
		res.Verdict, res.Custom = protocol.VerdictAC, []protocol.CustomOutput{}
		return res, nil
	}
	// The validator may not change itself from now on.
	if err := sandbox.ChownTree(build, 0, 0); err != nil {
		return sysErr("work dir: %v", err)
	}

	pg.status(protocol.VerdictJudging)
	cpu := time.Duration(t.Limits.TimeMs) * time.Millisecond
	if cpu < validatorRunTime {
		cpu = validatorRunTime
	}
	mem := t.Limits.MemoryKiB << 10
	if mem < checkerMemory {
		mem = checkerMemory
	}
	lim := sandbox.Limits{CPU: l.TimeLimit(cpu), Memory: l.MemoryLimit(mem), Stack: l.StackKiB << 10,
		Output: 64 << 10, Stderr: 64 << 10, Procs: max(l.Procs, 1)}
	if l.UnlimitedAddressSpace {
		lim.AddressSpace = -1
	}
	runArgv := lang.Expand(l.Run, v.Name, class, mem)
	res.Verdict = protocol.VerdictAC
	for i, cf := range m.Cases {
		args, own := v.CaseArgs[i+1]
		if !own {
			args = v.Args
		}
		spec := sandbox.Spec{
			Argv: append(slices.Clone(runArgv), args...), Env: l.Env, Dir: build, StdinFile: filepath.Join(data.Dir(), cf.In),
			Profile: sandbox.ProfileRun, CPU: at.cpu, Slot: at.slot, Limits: lim,
		}
		r, err := a.cfg.Runner.Run(ctx, spec)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil || r.Status == sandbox.StatusSandboxError {
			return sysErr("input %d: sandbox: %v %s", i+1, err, r.Error)
		}
		o := protocol.CustomOutput{Case: i + 1, CPUMs: r.CPUMs, WallMs: r.WallMs, MemoryKiB: r.MemoryKB, ExitCode: r.ExitCode}
		o.Verdict, o.Message = validatorVerdict(v.Convention, r)
		o.Message = truncate.Marked(o.Message, protocol.MaxCaseMessage)
		if o.Verdict != protocol.VerdictAC {
			res.Verdict = protocol.VerdictWA
		}
		res.Custom = append(res.Custom, o)
	}
	return res, nil
}

// validatorCompileArgv is l's compile command for v (programCompileArgv).
func validatorCompileArgv(l lang.Available, v *protocol.InputValidation, argv []string) []string {
	return programCompileArgv(l, v.Name, slices.Collect(maps.Keys(v.Files)), argv)
}

// sourceKind groups the endings of one language's sources (C++ has
// several); any other ending is its own kind.
func sourceKind(ext string) string {
	switch ext {
	case ".cc", ".cpp", ".cxx", ".c++", ".C":
		return ".cpp"
	}
	return ext
}

// isCFamily: a C or C++ language (by its source file's extension).
func isCFamily(source string) bool {
	switch filepath.Ext(source) {
	case ".c", ".cpp", ".cc", ".cxx":
		return true
	}
	return false
}

// validatorVerdict reads one run of an input validator: AC for a valid
// input, WA for an invalid one, the run's own verdict (TLE, MLE, RE) when
// the validator failed; the message is what it wrote (stderr, else
// stdout) or why it failed.
func validatorVerdict(convention string, r sandbox.Result) (protocol.Verdict, string) {
	msg := strings.TrimSpace(r.Stderr)
	if msg == "" {
		msg = strings.TrimSpace(r.Stdout)
	}
	exited := r.Status == sandbox.StatusOK || (r.Status == sandbox.StatusRuntimeError && r.Signal == 0)
	if !exited {
		v, why := runVerdict(r, "", 1<<62)
		if why == "" {
			why = string(r.Status)
		}
		if msg != "" {
			why += "; " + msg
		}
		return v, "the validator failed: " + why
	}
	switch {
	case convention == protocol.ValidationKattis && r.ExitCode == protocol.KattisValid,
		convention == protocol.ValidationTestlib && r.ExitCode == 0:
		return protocol.VerdictAC, msg
	case convention == protocol.ValidationKattis && r.ExitCode != protocol.KattisInvalid:
		why := fmt.Sprintf("the validator exited with code %d, not 42 or 43", r.ExitCode)
		if msg != "" {
			why += "; " + msg
		}
		return protocol.VerdictRE, why
	}
	if msg == "" {
		msg = fmt.Sprintf("exit code %d", r.ExitCode)
	}
	return protocol.VerdictWA, msg
}
