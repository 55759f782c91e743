//go:build linux

package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Programs for the interaction tests: "inter" asks, "sol" answers.
const (
	// interEcho sends n numbers one at a time and checks that each comes
	// back doubled; it reports on stderr and exits 0 when all did.
	interEcho = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv){
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 1; i <= n; i++) {
		printf("%d\n", i); fflush(stdout);
		int x; if (scanf("%d", &x) != 1) { fprintf(stderr, "eof at %d\n", i); return 1; }
		if (x != 2*i) { fprintf(stderr, "bad %d at %d\n", x, i); return 1; }
	}
	fprintf(stderr, "all %d ok\n", n);
	return 0;
}
`
	solDouble = `#include <stdio.h>
int main(void){ int x; while (scanf("%d", &x) == 1) { printf("%d\n", 2*x); fflush(stdout); } return 0; }
`
	// solFlood writes without ever reading.
	solFlood = `#include <string.h>
#include <unistd.h>
int main(void){ char b[65536]; memset(b, '7', sizeof b); for (;;) if (write(1, b, sizeof b) < 0) return 9; }
`
	// solSilent reads and never answers.
	solSilent = `#include <stdio.h>
int main(void){ char b[64]; while (fgets(b, sizeof b, stdin)); for (;;) ; }
`
	// interOne asks once, takes one answer and exits.
	interOne = `#include <stdio.h>
int main(void){ printf("1\n"); fflush(stdout); int x; return scanf("%d", &x) == 1 ? 0 : 1; }
`
	// solChatty answers, then keeps writing after the interactor is gone.
	solChatty = `#include <stdio.h>
#include <unistd.h>
int main(void){ int x; if (scanf("%d", &x) != 1) return 2; printf("%d\n", 2*x); fflush(stdout);
	sleep(1); for (int i = 0; i < 100000; i++) { printf("more\n"); fflush(stdout); } return 0; }
`
	// solBurn answers, then burns CPU after the interactor is gone (a
	// while, then exits).
	solBurn = `#include <stdio.h>
#include <time.h>
int main(void){ int x; if (scanf("%d", &x) != 1) return 2; printf("%d\n", 2*x); fflush(stdout);
	fclose(stdout); volatile unsigned long k = 0; clock_t t0 = clock();
	while (clock() - t0 < 300 * (CLOCKS_PER_SEC / 1000)) k++; return 0; }
`
	// interBurn burns CPU before asking: none of it is the solution's.
	interBurn = `#include <stdio.h>
#include <time.h>
int main(void){ volatile unsigned long k = 0; clock_t t0 = clock();
	while (clock() - t0 < 400 * (CLOCKS_PER_SEC / 1000)) k++;
	printf("1\n"); fflush(stdout); int x; return scanf("%d", &x) == 1 && x == 2 ? 0 : 1; }
`
)

func interactPrograms(t *testing.T) string {
	t.Helper()
	dir := workDir(t)
	for name, src := range map[string]string{"inter": interEcho, "double": solDouble, "flood": solFlood, "silent": solSilent,
		"one": interOne, "chatty": solChatty, "burn": solBurn, "interburn": interBurn} {
		buildC(t, dir, name, src, false)
	}
	return dir
}

// TestInteractPingPong: a thousand round trips through the two pipes,
// each program in its own slot and uid, both ending by themselves.
func TestInteractPingPong(t *testing.T) {
	dir := interactPrograms(t)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		r, err := testSB.RunInteractive(ctx,
			Spec{Argv: []string{"./double"}, Dir: dir, Limits: Limits{CPU: 2 * time.Second}},
			Spec{Argv: []string{"./inter", "1000"}, Dir: dir, Limits: Limits{CPU: 5 * time.Second}})
		if err != nil {
			t.Fatalf("run %d: %v %+v", i, err, r)
		}
		if r.Solution.Status != StatusOK || r.Interactor.Status != StatusOK || !strings.Contains(r.Interactor.Stderr, "all 1000 ok") {
			t.Fatalf("run %d: solution %+v\ninteractor %+v", i, r.Solution, r.Interactor)
		}
		if r.Solution.Slot == r.Interactor.Slot || r.Solution.UID == r.Interactor.UID {
			t.Fatalf("same slot or uid: %d/%d %d/%d", r.Solution.Slot, r.Interactor.Slot, r.Solution.UID, r.Interactor.UID)
		}
		if r.Interactor.Stdout != "" || r.Solution.Stdout != "" {
			t.Errorf("stdout captured: %q %q", r.Solution.Stdout, r.Interactor.Stdout)
		}
	}
	// Pinned slots are honoured, either way round.
	one, zero := 1, 0
	r, err := testSB.RunInteractive(ctx,
		Spec{Argv: []string{"./double"}, Dir: dir, Slot: &one},
		Spec{Argv: []string{"./inter", "10"}, Dir: dir, Slot: &zero})
	if err != nil || r.Solution.Slot != 1 || r.Interactor.Slot != 0 || r.Interactor.Status != StatusOK {
		t.Fatalf("pinned: %v %+v", err, r)
	}
}

// TestInteractEnds: whoever stops, the other ends promptly: by EOF, by
// SIGPIPE, or by its own wall-time limit when it waits for nothing.
func TestInteractEnds(t *testing.T) {
	dir := interactPrograms(t)
	ctx := context.Background()
	// A wall limit far above what the runs need: it only bounds a run
	// gone wrong. At 2 s, the clean-clone CI of 2026-12-04 (the suite
	// compiling its binaries beside) started the interactor so late that
	// the flooding solution hit its wall limit first.
	lim := Limits{CPU: time.Second, Wall: 5 * time.Second}

	// The solution floods a pipe the interactor reads once: the
	// interactor exits, the solution's next write gets SIGPIPE.
	start := time.Now()
	r, err := testSB.RunInteractive(ctx, Spec{Argv: []string{"./flood"}, Dir: dir, Limits: lim},
		Spec{Argv: []string{"./one"}, Dir: dir, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if r.Solution.Status != StatusRuntimeError || r.Solution.SignalName != "SIGPIPE" || !r.InteractorFirst {
		t.Errorf("flood: solution %+v, interactor first %v", r.Solution, r.InteractorFirst)
	}
	// Promptly: by SIGPIPE (above), long before either wall limit; the
	// bound is the limit, not a speed target (two sandbox starts under
	// -race beside the whole suite took 1.16 s once).
	if el := time.Since(start); el >= emuScale()*lim.Wall {
		t.Errorf("flood took %v, the wall limit %v", el, lim.Wall)
	}

	// The solution answers nothing: the interactor waits, and the
	// solution's wall limit (it burns no CPU reading) ends both.
	r, err = testSB.RunInteractive(ctx, Spec{Argv: []string{"./silent"}, Dir: dir, Limits: Limits{CPU: 5 * time.Second, Wall: time.Second}},
		Spec{Argv: []string{"./inter", "5"}, Dir: dir, Limits: Limits{CPU: 5 * time.Second, Wall: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	// Both wait to read (a deadlock): the solution's wall limit ends it,
	// then the interactor reads EOF.
	if r.Solution.Status != StatusWallTimeLimit || r.InteractorFirst {
		t.Errorf("silent: solution %+v, interactor first %v", r.Solution, r.InteractorFirst)
	}
	if r.Interactor.Status != StatusRuntimeError || !strings.Contains(r.Interactor.Stderr, "eof at 1") || r.Interactor.WallMs > 3000 {
		t.Errorf("silent: the interactor did not read EOF promptly: %+v", r.Interactor)
	}

	// The solution writes after the interactor is gone: SIGPIPE.
	r, err = testSB.RunInteractive(ctx, Spec{Argv: []string{"./chatty"}, Dir: dir, Limits: lim},
		Spec{Argv: []string{"./one"}, Dir: dir, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if r.Interactor.Status != StatusOK || r.Solution.SignalName != "SIGPIPE" || !r.InteractorFirst {
		t.Errorf("chatty: %+v", r)
	}
}

// TestInteractAccounting: each program's CPU time is its own: the
// interactor's burn is not the solution's, and the solution's burn after
// the interactor exited is counted in full.
func TestInteractAccounting(t *testing.T) {
	dir := interactPrograms(t)
	ctx := context.Background()
	r, err := testSB.RunInteractive(ctx, Spec{Argv: []string{"./double"}, Dir: dir},
		Spec{Argv: []string{"./interburn"}, Dir: dir})
	if err != nil || r.Interactor.Status != StatusOK || r.Solution.Status != StatusOK {
		t.Fatalf("%v %+v", err, r)
	}
	if r.Interactor.CPUMs < 390 || r.Solution.CPUMs > 100+emuSlack().Milliseconds() {
		t.Errorf("cpu: interactor %d ms (burnt 400), solution %d ms (burnt none)", r.Interactor.CPUMs, r.Solution.CPUMs)
	}
	if r.Solution.WallMs < 390 {
		t.Errorf("solution wall %d ms: it waited 400 ms for the question", r.Solution.WallMs)
	}
	r, err = testSB.RunInteractive(ctx, Spec{Argv: []string{"./burn"}, Dir: dir},
		Spec{Argv: []string{"./one"}, Dir: dir})
	if err != nil || r.Interactor.Status != StatusOK || r.Solution.Status != StatusOK || !r.InteractorFirst {
		t.Fatalf("%v %+v", err, r)
	}
	if r.Solution.CPUMs < 290 || r.Solution.WallMs < 290 || r.Interactor.CPUMs > 100+emuSlack().Milliseconds() {
		t.Errorf("cpu: solution %d ms / wall %d ms (burnt 300 after the interactor ended), interactor %d ms",
			r.Solution.CPUMs, r.Solution.WallMs, r.Interactor.CPUMs)
	}
	// A CPU limit still applies after the interactor is gone.
	r, err = testSB.RunInteractive(ctx, Spec{Argv: []string{"./burn"}, Dir: dir, Limits: Limits{CPU: 100 * time.Millisecond}},
		Spec{Argv: []string{"./one"}, Dir: dir})
	if err != nil || r.Solution.Status != StatusTimeLimit {
		t.Fatalf("%v %+v", err, r.Solution)
	}
}

// TestInteractInvalid: specs that cannot be an interaction are refused
// before anything runs.
func TestInteractInvalid(t *testing.T) {
	dir := interactPrograms(t)
	ctx := context.Background()
	zero := 0
	cases := map[string][2]Spec{
		"stdin file": {{Argv: []string{"./double"}, Dir: dir, StdinFile: "/dev/null"}, {Argv: []string{"./one"}, Dir: dir}},
		"stdout":     {{Argv: []string{"./double"}, Dir: dir}, {Argv: []string{"./one"}, Dir: dir, StdoutFile: dir + "/x"}},
		"same slot":  {{Argv: []string{"./double"}, Dir: dir, Slot: &zero}, {Argv: []string{"./one"}, Dir: dir, Slot: &zero}},
		"no argv":    {{Dir: dir}, {Argv: []string{"./one"}, Dir: dir}},
	}
	for name, c := range cases {
		r, err := testSB.RunInteractive(ctx, c[0], c[1])
		if !errors.Is(err, ErrInvalidSpec) || r.Solution.Status != StatusSandboxError || r.Interactor.Status != StatusSandboxError {
			t.Errorf("%s: %v %+v", name, err, r)
		}
	}
	one, err := New(Config{Slots: 1, Prewarm: -1, CgroupParent: testCgroupParent, UIDBase: oneSlotUID + 5, GIDBase: oneSlotUID + 5})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, err := one.RunInteractive(ctx, Spec{Argv: []string{"./double"}, Dir: dir}, Spec{Argv: []string{"./one"}, Dir: dir}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("one slot: %v", err)
	}
}

// TestInteractConcurrent: two interactions and plain runs at once on a
// two-slot sandbox: each interaction takes both slots together, nobody
// waits for a half-taken pair.
func TestInteractConcurrent(t *testing.T) {
	dir := interactPrograms(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errs := make(chan error, 6)
	for i := 0; i < 3; i++ {
		go func() {
			r, err := testSB.RunInteractive(ctx, Spec{Argv: []string{"./double"}, Dir: dir}, Spec{Argv: []string{"./inter", "200"}, Dir: dir})
			if err == nil && r.Interactor.Status != StatusOK {
				err = errors.New("interactor " + string(r.Interactor.Status) + ": " + r.Interactor.Stderr)
			}
			errs <- err
		}()
		go func() {
			r, err := testSB.Run(ctx, Spec{Argv: []string{"./double"}, Dir: dir, Stdin: strings.NewReader("21\n")})
			if err == nil && r.Stdout != "42\n" {
				err = errors.New("plain run: " + r.Stdout)
			}
			errs <- err
		}()
	}
	for i := 0; i < 6; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
