package agent

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// A checker or interactor in a language of the judge's table other than
// C and C++ (testpkg.Manifest.CheckerLanguage, InteractorLanguage):
// compiled once per test data version, like a C++ one, in the sandbox
// with the language's own compile command (py_compile for Python, javac
// for Java: the commands a submission and an input validator get), and
// run with its run command. Its build is a directory (the kept
// artefact): its sources and what the compile wrote beside them (Java's
// classes); a run gets them in its own directory next to the
// convention's files (input, answer, feedback/...), whose names have no
// ending, so only files with one are taken from the build.

// programDir is the kept build of a language program, in the test data
// cache's build directory.
const programDir = "prog"

// buildProgram compiles the program main (with files) of language in a
// fresh work dir below dir and keeps the result in dir/prog, which it
// returns.
func (a *Agent) buildProgram(ctx context.Context, at place, dataDir, dir, language, main string, files []string) (string, error) {
	l, ok := a.langs[language]
	if !ok {
		return "", fmt.Errorf("this judge does not have the language %q of %s", language, main)
	}
	w := filepath.Join(dir, "w")
	if err := resetWorkDir(w, at.uid, checkerBuildBytes(dataDir, append([]string{main}, files...)...)); err != nil {
		return "", err
	}
	defer func() { _ = sandbox.RemoveAll(w) }()
	hint, err := a.copySources(dataDir, w, main, files)
	if err != nil {
		return "", err
	}
	if err := sandbox.ChownTree(w, at.uid, at.gid); err != nil {
		return "", err
	}
	if len(l.Compile) > 0 {
		spec := a.compileSpec(l, w, main, className(main), 256<<20, at, "")
		spec.Argv = programCompileArgv(l, main, files, spec.Argv)
		if spec.Limits.CPU < checkerCompileTime {
			spec.Limits.CPU, spec.Limits.Wall = checkerCompileTime, 3*checkerCompileTime
		}
		r, err := a.cfg.Runner.Run(ctx, spec)
		if err != nil || r.Status == sandbox.StatusSandboxError {
			return "", fmt.Errorf("compile: sandbox: %v %s", err, r.Error)
		}
		if r.Status != sandbox.StatusOK {
			return "", compileFailure(r, hint)
		}
	}
	out := filepath.Join(dir, programDir)
	if err := os.RemoveAll(out); err != nil {
		return "", err
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(w)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.Contains(e.Name(), ".") {
			continue // __pycache__, the convention's names
		}
		if err := copyBeneath(w, e.Name(), filepath.Join(out, e.Name())); err != nil {
			return "", fmt.Errorf("build output %s: %w", e.Name(), err)
		}
	}
	return out, nil
}

// copyBeneath copies the regular file name of dir (written by a
// sandboxed run: opened beneath dir, no symlink followed) to dst.
func copyBeneath(dir, name, dst string) error {
	src, err := sandbox.OpenBeneath(dir, name)
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// programCompileArgv is l's compile command for the program main with
// files: every source of main's language (by its ending; main first,
// then the others by name) where the command names the source, and for
// C and C++ -I. (the headers beside the sources, a judge's testlib.h).
// Input validators and language checkers and interactors share it.
func programCompileArgv(l lang.Available, main string, files []string, argv []string) []string {
	srcs := []string{main}
	for _, name := range slices.Sorted(slices.Values(files)) {
		if sourceKind(filepath.Ext(name)) == sourceKind(filepath.Ext(main)) {
			srcs = append(srcs, name)
		}
	}
	out := make([]string, 0, len(argv)+len(srcs)+1)
	for i, a := range argv {
		switch {
		case a == main:
			out = append(out, srcs...)
		case i == 1 && isCFamily(l.Source):
			out = append(out, "-I.", a)
		default:
			out = append(out, a)
		}
	}
	return out
}

// className is a Java program's class: its main source's name without
// the ending.
func className(main string) string { return strings.TrimSuffix(main, filepath.Ext(main)) }

// programRun is how a checker or interactor runs in dir: for a language
// program (language set), its build (prog) linked into dir and its
// language's run command, environment and limits (a scaled CPU limit,
// its processes, address space and stack); else the compiled binary
// linked as dir/name and run as ./name. cpu and mem are the program's
// own limits before the language's scaling.
func (a *Agent) programRun(prog, dir, name, language, main string, cpu time.Duration, mem int64) ([]string, []string, sandbox.Limits, error) {
	lim := sandbox.Limits{CPU: cpu, Memory: mem}
	if language == "" {
		if err := linkOrCopy(prog, filepath.Join(dir, name)); err != nil {
			return nil, nil, lim, err
		}
		return []string{"./" + name}, nil, lim, nil
	}
	l, ok := a.langs[language]
	if !ok {
		return nil, nil, lim, fmt.Errorf("this judge does not have the language %q of %s", language, main)
	}
	entries, err := os.ReadDir(prog)
	if err != nil {
		return nil, nil, lim, err
	}
	for _, e := range entries {
		if err := linkOrCopy(filepath.Join(prog, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return nil, nil, lim, err
		}
	}
	lim = sandbox.Limits{CPU: l.TimeLimit(cpu), Memory: l.MemoryLimit(mem), Stack: l.StackKiB << 10, Procs: max(l.Procs, 1)}
	if l.UnlimitedAddressSpace {
		lim.AddressSpace = -1
	}
	return lang.Expand(l.Run, main, className(main), mem), l.Env, lim, nil
}

// programFiles is the size of a kept build (a binary, or a language
// program's directory), for a run dir's cap.
func programFiles(prog string) int64 {
	fi, err := os.Stat(prog)
	if err != nil || !fi.IsDir() {
		return filesSize(prog)
	}
	entries, err := os.ReadDir(prog)
	if err != nil {
		return 0
	}
	paths := make([]string, 0, len(entries))
	for _, e := range entries {
		paths = append(paths, filepath.Join(prog, e.Name()))
	}
	return filesSize(paths...)
}
