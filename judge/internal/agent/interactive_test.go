package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// miniTestlib is a tiny testlib-compatible header written for these tests
// (not testlib itself): registerInteraction, the inf/ouf/ans streams with
// readInt and readToken, tout, and quitf with testlib's exit codes. Real
// packages bring their own testlib.h.
const miniTestlib = `#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstdarg>
#include <string>
#include <fstream>
enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3 };
[[noreturn]] inline void quitf(TResult r, const char *fmt, ...) {
	va_list ap; va_start(ap, fmt);
	std::fprintf(stderr, "%s ", r == _ok ? "ok" : r == _wa ? "wrong answer" : r == _pe ? "wrong output format" : "FAIL");
	std::vfprintf(stderr, fmt, ap); std::fputc('\n', stderr); va_end(ap);
	std::exit(r);
}
struct InStream {
	FILE *f = nullptr; TResult onEof = _fail;
	std::string readToken() {
		std::string s; int c;
		while ((c = std::fgetc(f)) != EOF && std::isspace(c)) {}
		if (c == EOF) quitf(onEof, "unexpected end of file");
		while (c != EOF && !std::isspace(c)) { if (s.size() > 1000) quitf(onEof, "token too long"); s += (char)c; c = std::fgetc(f); }
		return s;
	}
	int readInt() {
		std::string s = readToken(); char *end; long v = std::strtol(s.c_str(), &end, 10);
		if (*end) quitf(onEof, "expected an integer, found %s", s.c_str());
		return (int)v;
	}
};
inline InStream inf, ouf, ans;
inline std::ofstream tout;
inline void registerInteraction(int argc, char **argv) {
	if (argc < 4) quitf(_fail, "usage: interactor input output answer");
	inf.f = std::fopen(argv[1], "r"); ans.f = std::fopen(argv[3], "r"); ouf.f = stdin; ouf.onEof = _pe;
	tout.open(argv[2]);
	if (!inf.f || !ans.f || !tout) quitf(_fail, "cannot open the files");
}
`

// guessInteractor (testlib convention): the input is "lo hi secret"; it
// tells the solution "lo hi", answers "? x" with <, > or =, takes "! x"
// and allows 20 questions. It writes the number of questions to tout.
const guessInteractor = `#include "testlib.h"
int main(int argc, char **argv) {
	registerInteraction(argc, argv);
	int lo = inf.readInt(), hi = inf.readInt(), secret = inf.readInt();
	int want = ans.readInt();
	if (want != secret) quitf(_fail, "answer file %d, input %d", want, secret);
	std::printf("%d %d\n", lo, hi); std::fflush(stdout);
	for (int q = 0;;) {
		std::string kind = ouf.readToken();
		int x = ouf.readInt();
		if (kind == "!") {
			if (x != secret) quitf(_wa, "guessed %d, the number was %d", x, secret);
			tout << x << "\n";
			quitf(_ok, "guessed %d with %d questions", x, q);
		}
		if (kind != "?") quitf(_pe, "expected ? or !, found %s", kind.c_str());
		if (++q > 20) quitf(_wa, "too many questions (more than 20)");
		std::printf("%s\n", secret < x ? "<" : secret > x ? ">" : "="); std::fflush(stdout);
	}
}
`

// crashInteractor answers nothing: it dies by SIGSEGV at the first
// question.
const crashInteractor = `#include "testlib.h"
int main(int argc, char **argv) {
	registerInteraction(argc, argv);
	std::printf("1 100\n"); std::fflush(stdout);
	ouf.readToken();
	*(volatile int *)0 = 1;
	return 0;
}
`

// kattisGuess (Kattis convention, in C): the same game, but the input is
// only "lo hi" and the secret is in the answer file, which only the
// validator reads; the verdict is exit 42 or 43 and the message goes to
// feedback_dir/judgemessage.txt.
const kattisGuess = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static FILE *msg;
static int verdict(int code, const char *text, int n) { fprintf(msg, text, n); fclose(msg); exit(code); }
int main(int argc, char **argv) {
	if (argc < 4) return 1;
	char path[4096]; snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
	msg = fopen(path, "w"); if (!msg) return 1;
	FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r");
	int lo, hi, secret;
	if (!in || !ans || fscanf(in, "%d %d", &lo, &hi) != 2 || fscanf(ans, "%d", &secret) != 1) return 1;
	printf("%d %d\n", lo, hi); fflush(stdout);
	for (int q = 0;;) {
		char kind[8]; int x;
		if (scanf("%7s %d", kind, &x) != 2) verdict(43, "the solution ended after %d questions", q);
		if (!strcmp(kind, "!")) {
			if (x != secret) verdict(43, "wrong guess %d", x);
			verdict(42, "correct: %d", x);
		}
		if (++q > 20) verdict(43, "too many questions: %d", q);
		printf("%s\n", secret < x ? "<" : secret > x ? ">" : "="); fflush(stdout);
	}
}
`

// Solutions, all speaking the guessing game.
const (
	solBinary = `#include <cstdio>
#include <cstring>
int main() {
	int lo, hi; if (std::scanf("%d %d", &lo, &hi) != 2) return 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2; std::printf("? %d\n", mid); std::fflush(stdout);
		char r[4]; if (std::scanf("%3s", r) != 1) return 1;
		if (r[0] == '=') { lo = hi = mid; break; }
		if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
	}
	std::printf("! %d\n", lo); std::fflush(stdout);
}
`
	solBinaryPy = `lo, hi = map(int, input().split())
while lo < hi:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    r = input().strip()
    if r == "=":
        lo = hi = mid
    elif r == "<":
        hi = mid - 1
    else:
        lo = mid + 1
print("!", lo, flush=True)
`
	solLinear = `#include <cstdio>
int main() {
	int lo, hi; if (std::scanf("%d %d", &lo, &hi) != 2) return 1;
	for (int x = lo; x <= hi; x++) {
		std::printf("? %d\n", x); std::fflush(stdout);
		char r[4]; if (std::scanf("%3s", r) != 1) return 1;
		if (r[0] == '=') { std::printf("! %d\n", x); std::fflush(stdout); return 0; }
	}
}
`
	solSilent = `#include <cstdio>
int main() { int lo, hi, x; std::scanf("%d %d", &lo, &hi); std::scanf("%d", &x); return 0; }
`
	solFlood = `#include <cstdio>
int main() { for (;;) std::fputs("? 1\n", stdout); }
`
	solCrash = `#include <cstdio>
#include <cstdlib>
int main() { int lo, hi; std::scanf("%d %d", &lo, &hi); std::abort(); }
`
	solChatty = `#include <cstdio>
#include <unistd.h>
int main() {
	int lo, hi; if (std::scanf("%d %d", &lo, &hi) != 2) return 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2; std::printf("? %d\n", mid); std::fflush(stdout);
		char r[4]; if (std::scanf("%3s", r) != 1) return 1;
		if (r[0] == '=') { lo = hi = mid; break; }
		if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
	}
	std::printf("! %d\n", lo); std::fflush(stdout);
	usleep(300000);
	for (int i = 0; i < 1000000; i++) { std::printf("? 1\n"); std::fflush(stdout); }
}
`
	// solQuits reads the range and exits without a word (the interactor
	// reads EOF; had it written first, SIGPIPE: "stopped reading").
	solQuits = `#include <cstdio>
int main() { int lo, hi; return std::scanf("%d %d", &lo, &hi) == 2 ? 0 : 1; }
`
)

// outputChecker (the special judge of the interactor's output file): the
// file must hold the answer.
const outputChecker = `#include <cstdio>
int main(int argc, char **argv) {
	FILE *o = std::fopen(argv[2], "r"), *a = std::fopen(argv[3], "r");
	int x, y;
	if (!o || !a || std::fscanf(a, "%d", &y) != 1) return 3;
	if (std::fscanf(o, "%d", &x) != 1 || x != y) { std::fprintf(stderr, "interactor output %d", x); return 1; }
	std::fprintf(stderr, "checked %d", x);
	return 0;
}
`

func guessPkg(interactor string, checker bool) testpkg.Package {
	p := testpkg.Package{
		Cases: []testpkg.Case{{In: []byte("1 100 37\n"), Ans: []byte("37\n")}, {In: []byte("1 1000 1000\n"), Ans: []byte("1000\n")}},
		Interactor: &testpkg.Interactor{Source: []byte(interactor),
			Files: map[string][]byte{"testlib.h": []byte(miniTestlib)}},
	}
	if checker {
		p.Checker = []byte(outputChecker)
	}
	return p
}

func kattisPkg() testpkg.Package {
	return testpkg.Package{
		Cases:      []testpkg.Case{{In: []byte("1 100\n"), Ans: []byte("37\n")}, {In: []byte("1 1000\n"), Ans: []byte("1000\n")}},
		Interactor: &testpkg.Interactor{Name: testpkg.InteractorC, Convention: testpkg.ConventionKattis, Source: []byte(kattisGuess)},
	}
}

type interactiveSub struct {
	name, lang, src string
	want            protocol.Verdict
	msg             string // in the message of the first case with the verdict (the compile message for SE)
	maxWallMs       int64  // bound on that case's wall time (0: none)
}

// judgeInteractive sends every submission to an agent and checks its
// verdict, message and time to result.
func judgeInteractive(t *testing.T, pkg testpkg.Package, parallel int, kind protocol.CheckerKind, subs []interactiveSub) map[string]protocol.Result {
	t.Helper()
	h := newFakeHub(t)
	hash := h.addPackage(pkg)
	startAgent(t, h, "", func(c *Config) { c.MaxParallel = parallel })
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	tasks := make([]protocol.Task, len(subs))
	for i, s := range subs {
		tasks[i] = mkTask(1, hash, s.lang, s.src, func(t *protocol.Task) {
			t.Limits.TimeMs = 500
			t.Checker = protocol.Checker{Kind: kind}
		})
		h.send(protocol.TypeTask, tasks[i])
	}
	out := map[string]protocol.Result{}
	for i, s := range subs {
		r := c.result(tasks[i].TaskRef, 120*time.Second)
		out[s.name] = r
		if r.Verdict != s.want {
			t.Errorf("%s: verdict %s, want %s (%s) %+v", s.name, r.Verdict, s.want, r.CompileMessage, r.Cases)
			continue
		}
		var first *protocol.CaseResult
		for j := range r.Cases {
			if r.Cases[j].Verdict == r.Verdict {
				first = &r.Cases[j]
				break
			}
		}
		switch {
		case r.Verdict == protocol.VerdictSE:
			if !strings.Contains(r.CompileMessage, s.msg) {
				t.Errorf("%s: system error %q does not mention %q", s.name, r.CompileMessage, s.msg)
			}
		case first == nil:
			t.Errorf("%s: no case with verdict %s: %+v", s.name, r.Verdict, r.Cases)
		case !strings.Contains(first.Message, s.msg):
			t.Errorf("%s: case %d's message %q does not mention %q", s.name, first.Case, first.Message, s.msg)
		case s.maxWallMs > 0 && first.WallMs > s.maxWallMs:
			t.Errorf("%s: case %d took %d ms (wall), want at most %d", s.name, first.Case, first.WallMs, s.maxWallMs)
		}
	}
	return out
}

// TestInteractiveTestlib: the guessing game with a testlib-style
// interactor, through the real agent and sandbox: binary search is
// accepted (C++ and Python, two tasks at once on two agent slots sharing
// a two-slot sandbox), the interactor's output file goes on to the
// special judge, too many questions is the interactor's wrong answer, a
// silent solution ends at its wall-time limit, a flood ends promptly as a
// wrong answer, a crash is the solution's runtime error, and writing after
// the interactor has finished is a wrong answer.
func TestInteractiveTestlib(t *testing.T) {
	res := judgeInteractive(t, guessPkg(guessInteractor, true), 2, protocol.CheckerSpecial, []interactiveSub{
		{"binary", "cpp17", solBinary, protocol.VerdictAC, "checked", 0},
		{"binary py", "py3", solBinaryPy, protocol.VerdictAC, "checked", 0},
		{"linear", "cpp17", solLinear, protocol.VerdictWA, "too many questions", 0},
		{"silent", "cpp17", solSilent, protocol.VerdictTLE, "wall-clock", 2600},
		{"flood", "cpp17", solFlood, protocol.VerdictWA, "too many questions", 1000},
		{"crash", "cpp17", solCrash, protocol.VerdictRE, "SIGABRT", 1000},
		{"chatty", "cpp17", solChatty, protocol.VerdictWA, "after the interactor had finished", 0},
		{"quits", "cpp17", solQuits, protocol.VerdictPE, "unexpected end of file", 1000},
	})
	// The solution's own measurements: binary search waits more than it
	// computes.
	for _, cr := range res["binary"].Cases {
		if cr.CPUMs > 200 || cr.MemoryKiB <= 0 || cr.Verdict != protocol.VerdictAC || cr.Score < 0 {
			t.Errorf("binary: case %+v", cr)
		}
	}
}

// TestInteractiveNoChecker: the interactor's verdict is final when the
// task has no special judge (the built-in checkers never see an
// interaction).
func TestInteractiveNoChecker(t *testing.T) {
	judgeInteractive(t, guessPkg(guessInteractor, false), 1, protocol.CheckerDefault, []interactiveSub{
		{"binary", "cpp17", solBinary, protocol.VerdictAC, "guessed", 0},
		{"linear", "cpp17", solLinear, protocol.VerdictWA, "too many", 0},
	})
}

// TestInteractiveInteractorFails: an interactor that crashes, or fails
// (testlib's exit 3: its answer file disagrees with its input), is a
// system error, never a verdict against the solution.
func TestInteractiveInteractorFails(t *testing.T) {
	judgeInteractive(t, guessPkg(crashInteractor, false), 1, protocol.CheckerDefault, []interactiveSub{
		{"crash", "cpp17", solBinary, protocol.VerdictSE, "interactor failed: runtime_error (SIGSEGV)", 0},
		{"linear", "cpp17", solLinear, protocol.VerdictSE, "SIGSEGV", 0},
	})
	bad := guessPkg(guessInteractor, false)
	bad.Cases[0].Ans = []byte("38\n")
	judgeInteractive(t, bad, 1, protocol.CheckerDefault, []interactiveSub{
		{"fail", "cpp17", solBinary, protocol.VerdictSE, "interactor: checker failed: FAIL answer file 38", 0},
	})
	broken := guessPkg("int main( { }\n", false)
	judgeInteractive(t, broken, 1, protocol.CheckerDefault, []interactiveSub{
		{"no compile", "cpp17", solBinary, protocol.VerdictSE, "interactor: does not compile", 0},
	})
}

// TestInteractiveKattis: the ICPC/Kattis convention: the output
// validator reads the answer file (the secret is nowhere else), exit 42
// accepts, 43 rejects with its feedback message, anything else is a
// system error.
func TestInteractiveKattis(t *testing.T) {
	judgeInteractive(t, kattisPkg(), 1, protocol.CheckerDefault, []interactiveSub{
		{"binary", "cpp17", solBinary, protocol.VerdictAC, "correct: ", 0},
		{"linear", "cpp17", solLinear, protocol.VerdictWA, "too many questions", 0},
		{"silent", "cpp17", solSilent, protocol.VerdictTLE, "wall-clock", 2600},
		{"flood", "cpp17", solFlood, protocol.VerdictWA, "too many questions", 1000},
		{"quits", "cpp17", solQuits, protocol.VerdictWA, "ended after 0 questions", 1000},
	})
	p := kattisPkg()
	p.Interactor.Source = []byte("int main(void){ return 1; }\n")
	judgeInteractive(t, p, 1, protocol.CheckerDefault, []interactiveSub{
		{"exit 1", "cpp17", solBinary, protocol.VerdictSE, "exited with code 1, not 42 or 43", 0},
	})
}

// TestInteractionOutcome: the order of the rules, on made-up runs.
func TestInteractiveOutcome(t *testing.T) {
	ok := sandbox.Result{Status: sandbox.StatusOK}
	exit := func(code int) sandbox.Result {
		st := sandbox.StatusOK
		if code != 0 {
			st = sandbox.StatusRuntimeError
		}
		return sandbox.Result{Status: st, ExitCode: code}
	}
	sig := func(name string) sandbox.Result {
		return sandbox.Result{Status: sandbox.StatusRuntimeError, ExitCode: -1, Signal: 1, SignalName: name}
	}
	tle := sandbox.Result{Status: sandbox.StatusWallTimeLimit, ExitCode: -1, Signal: 9, SignalName: "SIGKILL"}
	for _, tc := range []struct {
		name       string
		sol, inter sandbox.Result
		interFirst bool
		conv       string
		want       protocol.Verdict
	}{
		{"accepted", ok, exit(0), true, testpkg.ConventionTestlib, protocol.VerdictAC},
		{"kattis accepted", ok, exit(42), true, testpkg.ConventionKattis, protocol.VerdictAC},
		{"kattis exit 0", ok, exit(0), true, testpkg.ConventionKattis, protocol.VerdictSE},
		{"testlib fail", ok, exit(3), true, testpkg.ConventionTestlib, protocol.VerdictSE},
		{"interactor killed", tle, sig("SIGSEGV"), false, testpkg.ConventionTestlib, protocol.VerdictSE},
		{"interactor own limit", ok, sandbox.Result{Status: sandbox.StatusTimeLimit}, false, testpkg.ConventionTestlib, protocol.VerdictSE},
		{"solution limit beats WA", tle, exit(1), false, testpkg.ConventionTestlib, protocol.VerdictTLE},
		{"crash first beats WA", sig("SIGSEGV"), exit(2), false, testpkg.ConventionTestlib, protocol.VerdictRE},
		{"WA first beats crash", sig("SIGSEGV"), exit(1), true, testpkg.ConventionTestlib, protocol.VerdictWA},
		{"sigpipe after WA", sig("SIGPIPE"), exit(1), true, testpkg.ConventionTestlib, protocol.VerdictWA},
		{"sigpipe after AC", sig("SIGPIPE"), exit(0), true, testpkg.ConventionTestlib, protocol.VerdictWA},
		{"crash after AC", exit(4), exit(0), true, testpkg.ConventionTestlib, protocol.VerdictRE},
		{"stopped reading", ok, sig("SIGPIPE"), false, testpkg.ConventionTestlib, protocol.VerdictWA},
		{"crashed, interactor sigpipe", sig("SIGSEGV"), sig("SIGPIPE"), false, testpkg.ConventionTestlib, protocol.VerdictRE},
	} {
		o := interactionOutcome(sandbox.Interaction{Solution: tc.sol, Interactor: tc.inter, InteractorFirst: tc.interFirst}, tc.conv, "report")
		if o.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, o.Verdict, o.Message, tc.want)
		}
	}
}
