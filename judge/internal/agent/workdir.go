package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// Every directory a program runs in (a Spec.Dir: the slot's work dir, a
// checker's or interactor's directory, a build's) is a tmpfs of its own
// (sandbox.MakeWorkDir), never a directory of the state dir's file
// system: a run's /proc/self/mountinfo then reads "/ /w ... tmpfs w" and
// names no host path (issue 16). The judge's scratch dir (a program's
// stdout file, the compiler's output) stays on disk: a page of a tmpfs is
// charged to whoever writes it, and a program's output is not its memory.
//
// Sizes: a tmpfs is a cap, not a reservation. What a run writes there is
// charged to its memory limit (as its /tmp), so the cap is that limit plus
// what the judge itself copies in (the source, a build cache's seed, a
// file-IO input, a checker's files); see the callers.

// workSlack is room for what the judge writes besides the bounded copies
// (sources, small files).
const workSlack = 64 << 20

// resetWorkDir makes dir a fresh work dir owned by uid (and the group of
// the same number) of at most bytes.
func resetWorkDir(dir string, uid int, bytes int64) error {
	uid = max(uid, 0)
	return sandbox.MakeWorkDir(dir, uid, uid, sandbox.WorkDirLimits{Bytes: bytes + workSlack})
}

// filesSize is the total size of the regular files named (missing ones
// count 0).
func filesSize(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// buildIn runs build in a fresh work dir under dir (dir/w) and copies
// the artefact it returns (a file directly in the work dir) into dir,
// where it stays: a kept build (the test data cache's) lives on disk, its
// compile in a tmpfs. It returns the artefact's path in dir.
func buildIn(dir string, uid int, bytes int64, build func(w string) (string, error)) (string, error) {
	w := filepath.Join(dir, "w")
	if err := resetWorkDir(w, uid, bytes); err != nil {
		return "", err
	}
	defer func() { _ = sandbox.RemoveAll(w) }()
	built, err := build(w)
	if err != nil {
		return "", err
	}
	name := filepath.Base(built)
	if filepath.Dir(built) != w {
		return "", fmt.Errorf("build output %s: not in %s", built, w)
	}
	// Written by the compile: read beneath w, a regular file only.
	src, err := sandbox.OpenBeneath(w, name)
	if err != nil {
		return "", fmt.Errorf("build output %s: %w", name, err)
	}
	defer src.Close()
	dst := filepath.Join(dir, name)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return dst, nil
}

// checkerBuildBytes bounds a checker's or interactor's build dir: what its
// compile may write (its memory limit) and the sources.
func checkerBuildBytes(dataDir string, files ...string) int64 {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dataDir, f)
	}
	return checkerCompileMemory + filesSize(paths...)
}

// slotWorkBytes bounds a task's work dir: what its compile may write (the
// compile's memory limit), the build cache's seed, what the program may
// write (its memory limit: a file-IO output), and the file-IO input the
// judge copies in (the largest of the task's). dataDir is "" for a custom
// run.
func (a *Agent) slotWorkBytes(l lang.Available, t protocol.Task, m testpkg.Manifest, dataDir string) int64 {
	compile := l.CompileMemoryKiB << 10
	if compile <= 0 {
		compile = 1 << 30
	}
	n := compile + l.MemoryLimit(t.Limits.MemoryKiB<<10) + int64(len(t.Source))
	if a.builds.enabled(l) {
		n += a.builds.max
	}
	if t.IO != nil && t.IO.InputFile != "" {
		var in int64
		if t.Custom != nil {
			in = int64(len(t.Custom.Input))
			for _, s := range t.Custom.Samples {
				in = max(in, int64(len(s.Input)))
			}
		} else if dataDir != "" {
			for _, c := range m.Cases {
				in = max(in, filesSize(filepath.Join(dataDir, c.In)))
			}
		}
		n += in
	}
	return n
}
