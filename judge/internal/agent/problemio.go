package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/internal/truncate"
	"github.com/verdict-oj/verdict/judge/internal/checker"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// DefaultTestlibDir is where `judge agent` looks for testlib.h unless
// --testlib-dir says otherwise (docs/problems.md: an admin puts the
// header there).
const DefaultTestlibDir = "/usr/local/include"

// capabilities are the pseudo-languages this judge offers in hello:
// output-only checking always, testlib when its include directory has
// the header.
func (a *Agent) capabilities() []protocol.Language {
	out := []protocol.Language{{ID: protocol.LanguageOutputs, Version: "verdict"}}
	if h, err := a.testlibHash(); err == nil {
		out = append(out, protocol.Language{ID: protocol.LanguageTestlib, Version: "sha256:" + h})
	}
	return out
}

// testlibHash is the hash of the judge's testlib.h (an error when it has
// none).
func (a *Agent) testlibHash() (string, error) {
	if a.cfg.TestlibDir == "" {
		return "", errors.New("no testlib include directory configured")
	}
	f, err := os.Open(filepath.Join(a.cfg.TestlibDir, testpkg.TestlibHeader))
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, testpkg.MaxCheckerSize)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// copySources copies a checker's or interactor's source and the files the
// package compiles with it into dir. A source that includes testlib.h
// without the package carrying it gets the judge's copy (the package's
// own always wins). Without either, the compile goes ahead (a toolchain
// may have the header on its own include path); the returned hint then
// explains a failure.
func (a *Agent) copySources(dataDir, dir, src string, files []string) (hint string, err error) {
	has := false
	for _, f := range append([]string{src}, files...) {
		if err := copyFileMode(filepath.Join(dataDir, f), filepath.Join(dir, f), 0o644); err != nil {
			return "", err
		}
		has = has || f == testpkg.TestlibHeader
	}
	if has {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(dataDir, src))
	if err != nil {
		return "", err
	}
	if !testpkg.IncludesTestlib(b) {
		return "", nil
	}
	if a.cfg.TestlibDir == "" {
		return fmt.Sprintf("%s includes %s: the package has none and this judge has no testlib include directory (judge agent --testlib-dir)",
			src, testpkg.TestlibHeader), nil
	}
	err = copyFileMode(filepath.Join(a.cfg.TestlibDir, testpkg.TestlibHeader), filepath.Join(dir, testpkg.TestlibHeader), 0o644)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("%s includes %s: the package has none and this judge's include directory %s has none (judge agent --testlib-dir)",
			src, testpkg.TestlibHeader, a.cfg.TestlibDir), nil
	}
	return "", err
}

// compileFailure explains a checker's or interactor's failed compile,
// with copySources' hint first when there is one.
func compileFailure(r sandbox.Result, hint string) error {
	msg := truncate.Marked(compileMessage(r), 4<<10)
	if hint != "" {
		return fmt.Errorf("does not compile: %s; %s", hint, msg)
	}
	return fmt.Errorf("does not compile: %s", msg)
}

// buildChecker compiles the package's checker (C++ or C, with the files
// the manifest names and testlib.h as copySources finds it; or a program
// in another language of the judge's table: buildProgram) in the
// sandbox, in a work dir of its own, and keeps it in dir.
func (a *Agent) buildChecker(ctx context.Context, at place, dataDir, dir string, m testpkg.Manifest) (string, error) {
	name := m.Checker
	if name == "" {
		name = testpkg.CheckerName
	}
	if m.CheckerLanguage != "" {
		return a.buildProgram(ctx, at, dataDir, dir, m.CheckerLanguage, name, m.CheckerFiles)
	}
	return buildIn(dir, at.uid, checkerBuildBytes(dataDir, append([]string{name}, m.CheckerFiles...)...), func(w string) (string, error) {
		return a.compileChecker(ctx, at, dataDir, w, m, name)
	})
}

// compileChecker compiles the checker name in dir.
func (a *Agent) compileChecker(ctx context.Context, at place, dataDir, dir string, m testpkg.Manifest, name string) (string, error) {
	hint, err := a.copySources(dataDir, dir, name, m.CheckerFiles)
	if err != nil {
		return "", err
	}
	if err := sandbox.ChownTree(dir, at.uid, at.gid); err != nil {
		return "", err
	}
	argv := []string{"g++", "-std=c++17", "-O2", "-pipe", "-I.", "-o", "checker", name}
	if name == testpkg.CheckerC {
		argv = []string{"gcc", "-std=gnu11", "-O2", "-pipe", "-I.", "-o", "checker", name, "-lm"}
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
	return filepath.Join(dir, "checker"), nil
}

// runChecker runs a compiled special judge on one case, in its
// convention. The checker sees a fresh directory holding itself, input,
// output and answer (hard links); a Kattis validator gets the output on
// stdin instead and a feedback directory, the one place it may write;
// a scoring one (m.KattisScore) may leave the case's score there, out of
// scoreMax (kattisscore.go).
func (a *Agent) runChecker(ctx context.Context, at place, bin string, m testpkg.Manifest, in, out, ans, scratch string, scoreMax float64) (checker.Outcome, error) {
	dir := filepath.Join(scratch, "check")
	// A tmpfs (workdir.go): the files below are copies, its own writes
	// (feedback) are charged to the checker.
	if err := resetWorkDir(dir, 0, programFiles(bin)+filesSize(in, out, ans)+checkerMemory); err != nil {
		return checker.Outcome{}, err
	}
	defer func() { _ = sandbox.RemoveAll(dir) }()
	kattis := m.CheckerConvention == testpkg.ConventionKattis
	files := map[string]string{"input": in, "answer": ans}
	if !kattis {
		files["output"] = out
	}
	for name, src := range files {
		if err := linkOrCopy(src, filepath.Join(dir, name)); err != nil {
			return checker.Outcome{}, err
		}
	}
	prog, env, lim, err := a.programRun(bin, dir, "checker", m.CheckerLanguage, m.Checker, checkerRunTime, checkerMemory)
	if err != nil {
		return checker.Outcome{}, err
	}
	lim.Output, lim.Stderr = 64<<10, 64<<10
	spec := sandbox.Spec{
		Argv: append(append(slices.Clone(prog), "input", "output", "answer"), m.CheckerArgs...), Env: env, Dir: dir, Profile: sandbox.ProfileRun, CPU: at.cpu, Slot: at.slot,
		Limits: lim,
	}
	if kattis {
		fb := filepath.Join(dir, "feedback")
		if err := os.Mkdir(fb, 0o755); err != nil {
			return checker.Outcome{}, err
		}
		if err := os.Chown(fb, at.uid, at.gid); err != nil {
			return checker.Outcome{}, err
		}
		spec.Argv = append(append(slices.Clone(prog), "input", "answer", "feedback/"), m.CheckerArgs...)
		spec.StdinFile = out
	}
	r, err := a.cfg.Runner.Run(ctx, spec)
	if err != nil {
		return checker.Outcome{}, fmt.Errorf("run: %w", err)
	}
	switch {
	case r.Status == sandbox.StatusOK, r.Status == sandbox.StatusRuntimeError && r.Signal == 0:
		if kattis {
			fb := filepath.Join(dir, "feedback")
			o := kattisChecker(r.ExitCode, feedbackMessage(fb))
			if m.KattisScore {
				o = withKattisScore(o, fb, scoreMax)
			}
			return o, nil
		}
		report := r.Stderr
		if strings.TrimSpace(report) == "" {
			report = r.Stdout
		}
		return checker.Special(r.ExitCode, report), nil
	}
	msg := fmt.Sprintf("special judge failed: %s %s", r.Status, r.SignalName)
	if r.Syscall != "" {
		msg += " (system call " + r.Syscall + ")"
	}
	return checker.Outcome{Verdict: protocol.VerdictSE, Message: msg}, nil
}

// kattisChecker reads a Kattis output validator's exit code: 42 accepted,
// 43 wrong answer, anything else the validator's failure (SE).
func kattisChecker(code int, msg string) checker.Outcome {
	switch code {
	case kattisAccepted:
		return checker.Outcome{Verdict: protocol.VerdictAC, Fraction: 1, Message: msg}
	case kattisWrongAnswer:
		return checker.Outcome{Verdict: protocol.VerdictWA, Message: msg}
	}
	return checker.Outcome{Verdict: protocol.VerdictSE, Message: fmt.Sprintf("output validator exited with code %d, not 42 or 43: %s", code, msg)}
}

// writeOutput writes an output-only submission's output of case c to out
// (the judge's scratch file the checker reads): a case without one is a
// wrong answer, one above the output limit an output limit exceeded.
func writeOutput(out string, outs protocol.Outputs, c int, limit int64) (protocol.Verdict, string, error) {
	b, ok := outs.Of(c)
	if !ok {
		return protocol.VerdictWA, fmt.Sprintf("no output file for case %d", c), nil
	}
	if int64(len(b)) > limit {
		return protocol.VerdictOLE, "", nil
	}
	_ = os.Remove(out)
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return "", "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", "", err
	}
	return protocol.VerdictAC, "", f.Close()
}

// untouched is the modification time of an output file the program has
// not written: writing (or opening with O_TRUNC) moves it.
var untouched = time.Unix(0, 0)

// fileIO is one run's file I/O (a zero value: stdin and stdout).
type fileIO struct {
	work, input, output string
}

// prepareFileIO sets up a case's file I/O in the work dir (owned by
// root: the program cannot create, remove or rename anything there): the
// input as a read-only copy named io.InputFile, the program's stdin then
// /dev/null; an empty io.OutputFile owned by the program's uid, the one
// file it may write, its stdout then going to a scratch file nobody
// reads. A name already taken by the program's own files is an error.
func prepareFileIO(io *protocol.FileIO, spec *sandbox.Spec, work, scratch string, at place) (fileIO, error) {
	f := fileIO{work: work}
	if io == nil {
		return f, nil
	}
	if err := io.Validate(); err != nil {
		return f, err
	}
	for _, name := range []string{io.InputFile, io.OutputFile} {
		if name == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			return f, fmt.Errorf("%q is a file of the compiled program: choose another name", name)
		}
	}
	if io.InputFile != "" {
		if err := copyFileMode(spec.StdinFile, filepath.Join(work, io.InputFile), 0o644); err != nil {
			return f, err
		}
		f.input = io.InputFile
		spec.StdinFile = ""
	}
	if io.OutputFile != "" {
		p := filepath.Join(work, io.OutputFile)
		of, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return f, err
		}
		if err := of.Chown(at.uid, at.gid); err != nil {
			of.Close()
			return f, err
		}
		if err := of.Close(); err != nil {
			return f, err
		}
		if err := os.Chtimes(p, untouched, untouched); err != nil {
			return f, err
		}
		f.output = io.OutputFile
		spec.StdoutFile = filepath.Join(scratch, "stdout")
	}
	return f, nil
}

// outputPath is where the program's output went: its output file, else
// stdout (out).
func (f fileIO) outputPath(out string) string {
	if f.output == "" {
		return out
	}
	return filepath.Join(f.work, f.output)
}

// collect copies the program's output file to out, read beneath the work
// dir without following symlinks, a regular file only, at most limit
// bytes (more is an output limit exceeded). A file the program never
// wrote is a wrong answer: "no output file".
func (f fileIO) collect(out string, limit int64) (protocol.Verdict, string, error) {
	src, err := sandbox.OpenBeneath(f.work, f.output)
	if err != nil {
		return protocol.VerdictWA, fmt.Sprintf("output file %s: not a regular file", f.output), nil
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return "", "", err
	}
	if st.ModTime().Equal(untouched) && st.Size() == 0 {
		return protocol.VerdictWA, fmt.Sprintf("no output file %s: the program did not write it", f.output), nil
	}
	_ = os.Remove(out)
	dst, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return "", "", err
	}
	n, err := io.Copy(dst, io.LimitReader(src, limit+1))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", err
	}
	if n > limit {
		return protocol.VerdictOLE, "", nil
	}
	return protocol.VerdictAC, "", nil
}

// cleanup removes the case's input and output files from the work dir.
func (f fileIO) cleanup() error {
	for _, name := range []string{f.input, f.output} {
		if name == "" {
			continue
		}
		if err := os.Remove(filepath.Join(f.work, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
