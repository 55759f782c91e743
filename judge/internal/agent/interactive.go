package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/checker"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// interactiveRunner is what *sandbox.Sandbox offers for interactive
// problems: a solution and an interactor at once, in two slots, connected
// by pipes.
type interactiveRunner interface {
	RunInteractive(ctx context.Context, sol, inter sandbox.Spec) (sandbox.Interaction, error)
}

// interactorBuild is the cache artefact key of the compiled interactor
// (built by the first task, or by a prefetch).
const interactorBuild = "interactor"

// Limits of an interactor's run: its own, beyond the solution's (it must
// outlive the solution, whose limits end a deadlock).
const (
	interactorExtraTime = 10 * time.Second
	interactorMemory    = 512 << 20
	interactorOutput    = 64 << 20 // its output file (testlib's tout)
)

// Kattis output validator exit codes.
const (
	kattisAccepted    = 42
	kattisWrongAnswer = 43
)

// interactorPlace is where the interactor of the agent's slot runs: the
// slot's companion (sandbox slot slot+MaxParallel) when the sandbox has
// one per agent slot (judge agent makes 2×parallel slots), else any other
// free slot (the sandbox takes both slots of an interaction at once). It
// shares the solution's CPU: it is judge work, and other slots' CPUs stay
// theirs.
func (a *Agent) interactorPlace(slot int, sol place) place {
	sr, ok := a.cfg.Runner.(slotRunner)
	if !ok || sr.Slots() < 2*a.cfg.MaxParallel {
		p := place{cpu: sol.cpu, uid: sandboxUID, gid: sandboxUID}
		if ok && sr.Slots() > 1 {
			p.uid, p.gid = -1, -1 // unknown until the sandbox picks it
		}
		return p
	}
	return a.placeIn(slot%a.cfg.MaxParallel+a.cfg.MaxParallel, sol.cpu)
}

// buildInteractor compiles the package's interactor (with the files it
// includes; or a program in another language of the judge's table:
// buildProgram) in the sandbox, in a work dir of its own, and keeps it in
// dir.
func (a *Agent) buildInteractor(ctx context.Context, at place, dataDir, dir string, m testpkg.Manifest) (string, error) {
	if m.InteractorLanguage != "" {
		return a.buildProgram(ctx, at, dataDir, dir, m.InteractorLanguage, m.Interactor, m.InteractorFiles)
	}
	return buildIn(dir, at.uid, checkerBuildBytes(dataDir, append([]string{m.Interactor}, m.InteractorFiles...)...), func(w string) (string, error) {
		return a.compileInteractor(ctx, at, dataDir, w, m)
	})
}

// compileInteractor compiles the interactor in dir.
func (a *Agent) compileInteractor(ctx context.Context, at place, dataDir, dir string, m testpkg.Manifest) (string, error) {
	hint, err := a.copySources(dataDir, dir, m.Interactor, m.InteractorFiles)
	if err != nil {
		return "", err
	}
	if err := sandbox.ChownTree(dir, at.uid, at.gid); err != nil {
		return "", err
	}
	argv := []string{"g++", "-std=c++17", "-O2", "-pipe", "-I.", "-o", "interactor", m.Interactor}
	if m.Interactor == testpkg.InteractorC {
		argv = []string{"gcc", "-std=gnu11", "-O2", "-pipe", "-I.", "-o", "interactor", m.Interactor, "-lm"}
	}
	r, err := a.cfg.Runner.Run(ctx, sandbox.Spec{
		Argv: argv, Dir: dir, Profile: sandbox.ProfileCompile, CPU: at.cpu, Slot: at.slot,
		Limits: sandbox.Limits{CPU: checkerCompileTime, Wall: 3 * checkerCompileTime, Memory: checkerCompileMemory,
			AddressSpace: -1, Stack: 64 << 20, Output: 1 << 20, Stderr: 16 << 10},
	})
	if err != nil {
		return "", fmt.Errorf("compile: %w", err)
	}
	if r.Status != sandbox.StatusOK {
		return "", compileFailure(r, hint)
	}
	if err := sandbox.ChownTree(dir, 0, 0); err != nil {
		return "", err
	}
	return filepath.Join(dir, "interactor"), nil
}

// interaction is what every case of an interactive task shares.
type interaction struct {
	m          testpkg.Manifest
	bin        string       // the compiled interactor
	checkerBin string       // a special judge of the interactor's output file (testlib convention), or ""
	sol        sandbox.Spec // the solution's run, stdin and stdout unset
	at, iat    place        // the solution's (and checker's) place, the interactor's
	scratch    string
	scoreMax   float64 // the case's maximum in a scoring validator's score.txt (caseScoreMax)
}

// interactCase runs one case: the solution against the interactor, then,
// if the interactor accepted and the task has a special judge, the
// checker on the interactor's output file. It fills cr's measurements
// (the solution's own). An error is a judge failure.
func (a *Agent) interactCase(ctx context.Context, ix interaction, in, ans string, cr *protocol.CaseResult) (checker.Outcome, error) {
	ir, ok := a.cfg.Runner.(interactiveRunner)
	if !ok {
		return checker.Outcome{}, errors.New("this judge's runner cannot run interactive problems")
	}
	dir := filepath.Join(ix.scratch, "interact")
	// A tmpfs (workdir.go): the files below are copies, its output or
	// feedback is charged to the interactor.
	if err := resetWorkDir(dir, 0, programFiles(ix.bin)+filesSize(in, ans)+interactorMemory); err != nil {
		return checker.Outcome{}, err
	}
	defer func() { _ = sandbox.RemoveAll(dir) }()
	for name, src := range map[string]string{"input": in, "answer": ans} {
		if err := linkOrCopy(src, filepath.Join(dir, name)); err != nil {
			return checker.Outcome{}, err
		}
	}
	prog, env, lim, err := a.programRun(ix.bin, dir, "interactor", ix.m.InteractorLanguage, ix.m.Interactor,
		ix.sol.Limits.CPU+interactorExtraTime, interactorMemory)
	if err != nil {
		return checker.Outcome{}, err
	}
	// The one place the interactor writes: its output file (testlib) or
	// its feedback directory (Kattis), owned by its slot's uid in a
	// directory it cannot write. With no pinned slot its uid is unknown:
	// then writable by all (the directory is the judge's, outside /w of
	// any other run).
	kattis := ix.m.InteractorConvention == testpkg.ConventionKattis
	owner := func(path string, anyone os.FileMode) error {
		if ix.iat.uid < 0 {
			return os.Chmod(path, anyone)
		}
		return os.Chown(path, ix.iat.uid, ix.iat.gid)
	}
	var argv []string
	if kattis {
		fb := filepath.Join(dir, "feedback")
		if err := os.Mkdir(fb, 0o755); err != nil {
			return checker.Outcome{}, err
		}
		if err := owner(fb, 0o777); err != nil {
			return checker.Outcome{}, err
		}
		argv = append(append(prog, "input", "answer", "feedback/"), ix.m.InteractorArgs...)
	} else {
		f, err := os.OpenFile(filepath.Join(dir, "output"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return checker.Outcome{}, err
		}
		_ = f.Close()
		if err := owner(filepath.Join(dir, "output"), 0o666); err != nil {
			return checker.Outcome{}, err
		}
		argv = append(append(prog, "input", "output", "answer"), ix.m.InteractorArgs...)
	}
	solWall := ix.sol.Limits.Wall
	if solWall <= 0 {
		solWall = 2*ix.sol.Limits.CPU + time.Second // the sandbox's default
	}
	// A language's scaling (lim) on top of the interactor's own limits:
	// its wall time grows by what the CPU limit did.
	lim.Wall = solWall + interactorExtraTime + (lim.CPU - (ix.sol.Limits.CPU + interactorExtraTime))
	lim.Output, lim.Stderr = interactorOutput, 64<<10
	inter := sandbox.Spec{
		Argv: argv, Env: env, Dir: dir, Profile: sandbox.ProfileRun, CPU: ix.iat.cpu, Slot: ix.iat.slot,
		Limits: lim,
	}
	x, err := ir.RunInteractive(ctx, ix.sol, inter)
	if ctx.Err() != nil {
		return checker.Outcome{}, ctx.Err()
	}
	cr.CPUMs, cr.WallMs, cr.MemoryKiB = x.Solution.CPUMs, x.Solution.WallMs, x.Solution.MemoryKB
	if err != nil || x.Solution.Status == sandbox.StatusSandboxError || x.Interactor.Status == sandbox.StatusSandboxError {
		return checker.Outcome{}, fmt.Errorf("sandbox: %v %s %s", err, x.Solution.Error, x.Interactor.Error)
	}
	report := x.Interactor.Stderr
	if kattis {
		report = feedbackMessage(filepath.Join(dir, "feedback"))
	}
	o := interactionOutcome(x, ix.m.InteractorConvention, report)
	if kattis && ix.m.KattisScore {
		o = withKattisScore(o, filepath.Join(dir, "feedback"), ix.scoreMax)
	}
	if o.Verdict == protocol.VerdictAC && ix.checkerBin != "" && !kattis {
		// The interactor's output file, judged by the package's checker.
		co, err := a.runChecker(ctx, ix.at, ix.checkerBin, ix.m, in, filepath.Join(dir, "output"), ans, ix.scratch, ix.scoreMax)
		if err != nil {
			return checker.Outcome{}, fmt.Errorf("checker: %w", err)
		}
		if co.Verdict == protocol.VerdictSE {
			return co, nil
		}
		co.Fraction *= o.Fraction
		o = co
	}
	return o, nil
}

// feedbackMessage is a Kattis validator's message: teammessage.txt (for
// the contestant) else judgemessage.txt, read beneath the feedback
// directory without following symlinks, bounded.
func feedbackMessage(dir string) string {
	for _, name := range []string{"teammessage.txt", "judgemessage.txt"} {
		if b, _, err := sandbox.ReadFileBeneath(dir, name, protocol.MaxCaseMessage); err == nil && strings.TrimSpace(string(b)) != "" {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// interactionOutcome decides a case from the two runs (report: the
// interactor's message). In order:
//
//  1. The interactor's failure is a judge failure (SE), never the
//     contestant's: a sandbox error, its own limits, a crash, testlib's
//     exit 3 (or an unknown code), an exit other than 42/43 (Kattis). An
//     interactor killed by SIGPIPE is not a failure: the solution stopped
//     reading (it exited, or closed its stdin); the interactor then gives
//     no verdict.
//  2. The solution's limits (CPU, wall — a solution that waits for an
//     interactor that waits too ends here —, memory, output, forbidden
//     calls): that verdict, whatever the interactor said.
//  3. A solution that crashed (not by SIGPIPE) before the interactor
//     ended: RE (the interactor then read EOF and complained).
//  4. The interactor's wrong answer, presentation error or partial
//     points: its verdict.
//  5. A solution killed by SIGPIPE: it wrote after the interactor had
//     finished (or stopped reading): WA.
//  6. A solution that crashed after the interactor ended: RE.
//  7. An interactor without a verdict (SIGPIPE): WA, the solution
//     stopped reading before the end of the interaction.
//  8. Else the interactor's verdict: accepted.
func interactionOutcome(x sandbox.Interaction, convention, report string) checker.Outcome {
	sol, it := x.Solution, x.Interactor
	report = strings.TrimSpace(report)
	var verdict *checker.Outcome
	switch {
	case it.Status == sandbox.StatusRuntimeError && it.SignalName == "SIGPIPE":
	case it.Status == sandbox.StatusOK, it.Status == sandbox.StatusRuntimeError && it.Signal == 0:
		o := interactorExit(convention, it.ExitCode, report)
		if o.Verdict == protocol.VerdictSE {
			return o
		}
		verdict = &o
	default:
		msg := fmt.Sprintf("interactor failed: %s", it.Status)
		if it.SignalName != "" {
			msg += " (" + it.SignalName + ")"
		}
		if it.Syscall != "" {
			msg += " (system call " + it.Syscall + ")"
		}
		return checker.Outcome{Verdict: protocol.VerdictSE, Message: msg}
	}
	switch sol.Status {
	case sandbox.StatusTimeLimit, sandbox.StatusWallTimeLimit, sandbox.StatusMemoryLimit,
		sandbox.StatusOutputLimit, sandbox.StatusForbiddenSyscall:
		v, msg := runVerdict(sol, "", 0)
		return checker.Outcome{Verdict: v, Message: msg}
	}
	crashed := sol.Status == sandbox.StatusRuntimeError
	sigpipe := crashed && sol.SignalName == "SIGPIPE"
	if crashed && !sigpipe && !x.InteractorFirst {
		v, msg := runVerdict(sol, "", 0)
		return checker.Outcome{Verdict: v, Message: msg}
	}
	if verdict != nil && verdict.Verdict != protocol.VerdictAC {
		return *verdict
	}
	switch {
	case sigpipe:
		return checker.Outcome{Verdict: protocol.VerdictWA, Message: "the solution wrote after the interactor had finished"}
	case crashed:
		v, msg := runVerdict(sol, "", 0)
		return checker.Outcome{Verdict: v, Message: msg}
	case verdict == nil:
		return checker.Outcome{Verdict: protocol.VerdictWA, Message: "the solution stopped reading before the interaction was over"}
	}
	return *verdict
}

// interactorExit reads an interactor's exit code in its convention.
func interactorExit(convention string, code int, report string) checker.Outcome {
	if convention == testpkg.ConventionKattis {
		switch code {
		case kattisAccepted:
			return checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 1, Message: report}
		case kattisWrongAnswer:
			return checker.Outcome{Verdict: protocol.VerdictWA, Message: report}
		}
		return checker.Outcome{Verdict: protocol.VerdictSE, Message: fmt.Sprintf("interactor (output validator) exited with code %d, not 42 or 43: %s", code, report)}
	}
	o := checker.Special(code, report)
	if o.Verdict == protocol.VerdictSE {
		o.Message = "interactor: " + o.Message
	}
	return o
}
