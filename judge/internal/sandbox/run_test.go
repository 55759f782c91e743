//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const helloSrc = `#include <stdio.h>
int main(void){ char name[64]; if (scanf("%63s", name) != 1) return 2; printf("hello %s\n", name); return 0; }
`

// TestCompileThenRun compiles with gcc inside the sandbox (compile
// profile: fork and exec allowed) and runs the result (run profile).
func TestCompileThenRun(t *testing.T) {
	dir := workDir(t)
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(helloSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := testSB.Run(context.Background(), Spec{
		Argv:    []string{"gcc", "-O2", "-o", "main", "main.c"},
		Env:     []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp"},
		Dir:     dir,
		Profile: ProfileCompile,
		Limits:  Limits{CPU: 10 * time.Second, Memory: 512 << 20},
	})
	if err != nil || r.Status != StatusOK {
		t.Fatalf("compile: %v %s %s\n%s", err, r.Status, r.Error, r.Stderr)
	}
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"./main"}, Dir: dir, Stdin: strings.NewReader("verdict\n")})
	if err != nil || r.Status != StatusOK || r.Stdout != "hello verdict\n" {
		t.Fatalf("run: %v %+v", err, r)
	}
	// stdin from a file, stdout to a file
	in := filepath.Join(t.TempDir(), "in")
	out := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(in, []byte("file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu := 0
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"./main"}, Dir: dir, StdinFile: in, StdoutFile: out, CPU: &cpu})
	if err != nil || r.Status != StatusOK {
		t.Fatalf("run with files: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(out); string(b) != "hello file\n" {
		t.Errorf("stdout file = %q", b)
	}
}

// TestCompileBomb: a compiler fed an endless include ends as a limit,
// never a hung judge.
func TestCompileBomb(t *testing.T) {
	dir := workDir(t)
	if err := os.WriteFile(filepath.Join(dir, "bomb.c"), []byte("#include \"/dev/zero\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := testSB.Run(context.Background(), Spec{
		Argv:    []string{"gcc", "-c", "bomb.c"},
		Dir:     dir,
		Profile: ProfileCompile,
		Limits:  Limits{CPU: 2 * time.Second, Wall: 4 * time.Second, Memory: 128 << 20},
	})
	if err != nil {
		t.Fatal(err)
	}
	switch r.Status {
	case StatusTimeLimit, StatusMemoryLimit, StatusOutputLimit, StatusWallTimeLimit, StatusRuntimeError:
	default:
		t.Errorf("compile bomb: %s", r.Status)
	}
	if took := time.Since(start); took > 7*time.Second {
		t.Errorf("compile bomb took %v", took)
	}
	t.Logf("compile bomb: %s cpu=%dms mem=%dKiB", r.Status, r.CPUMs, r.MemoryKB)
}

func TestPython(t *testing.T) {
	r, err := testSB.Run(context.Background(), Spec{
		Argv:   []string{"python3", "-c", "import sys; print(sum(map(int, sys.stdin.read().split())))"},
		Dir:    workDir(t),
		Stdin:  strings.NewReader("1 2 3 4\n"),
		Limits: Limits{Memory: 128 << 20, CPU: emuScale() * time.Second},
	})
	if err != nil || r.Status != StatusOK || r.Stdout != "10\n" {
		t.Fatalf("python: %v %+v", err, r)
	}
}

// TestConcurrentRuns: more runs than slots at once; each is measured on
// its own.
func TestConcurrentRuns(t *testing.T) {
	dir := workDir(t)
	buildC(t, dir, "burn", burnSrc, true)
	var wg sync.WaitGroup
	errs := make(chan string, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./burn", "50"}, Dir: dir})
			if err != nil || r.Status != StatusOK || !withinCPU(r.CPU, 50*time.Millisecond) {
				errs <- r.Status.String() + " " + r.CPU.String()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent run: %s", e)
	}
}

func TestStartFailures(t *testing.T) {
	r, err := testSB.Run(context.Background(), Spec{Argv: []string{"./missing"}, Dir: workDir(t)})
	if err == nil || r.Status != StatusSandboxError || !strings.Contains(r.Error, "execve") {
		t.Errorf("missing program: %v %+v", err, r)
	}
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "/nonexistent-dir"})
	if err == nil || r.Status != StatusSandboxError {
		t.Errorf("missing dir: %v %+v", err, r)
	}
	// The sandbox still works afterwards.
	r, err = testSB.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: workDir(t)})
	if err != nil || r.Status != StatusOK {
		t.Errorf("after failures: %v %+v", err, r)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := testSB.Run(ctx, Spec{Argv: []string{"sleep", "10"}, Dir: workDir(t), Limits: Limits{CPU: 5 * time.Second}})
	if err == nil || r.Status != StatusSandboxError {
		t.Errorf("cancelled run: %v %+v", err, r)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancel took %v", took)
	}
}
