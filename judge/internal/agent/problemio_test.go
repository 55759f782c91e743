package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// problemSub is one task of a problem-type test and what it must get.
type problemSub struct {
	name, lang, src string
	want            protocol.Verdict
	msg             string // in the first case with the verdict (the compile message for SE)
	mut             func(*protocol.Task)
}

// judgeAll sends every task to one agent (through the fake hub) and
// checks verdicts and messages; it returns the results by name.
func judgeAll(t *testing.T, pkg testpkg.Package, mod func(*Config), common func(*protocol.Task), subs []problemSub) map[string]protocol.Result {
	t.Helper()
	h := newFakeHub(t)
	hash := h.addPackage(pkg)
	startAgent(t, h, "", mod)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	tasks := make([]protocol.Task, len(subs))
	for i, s := range subs {
		tasks[i] = mkTask(1, hash, s.lang, s.src, func(t *protocol.Task) {
			if common != nil {
				common(t)
			}
			if s.mut != nil {
				s.mut(t)
			}
		})
		if err := tasks[i].Validate(); err != nil {
			t.Fatalf("%s: task: %v", s.name, err)
		}
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
		if r.Verdict == protocol.VerdictSE || r.Verdict == protocol.VerdictCE {
			if !strings.Contains(r.CompileMessage, s.msg) {
				t.Errorf("%s: message %q does not mention %q", s.name, r.CompileMessage, s.msg)
			}
			continue
		}
		for _, cr := range r.Cases {
			if cr.Verdict == r.Verdict {
				if !strings.Contains(cr.Message, s.msg) {
					t.Errorf("%s: case %d's message %q does not mention %q", s.name, cr.Case, cr.Message, s.msg)
				}
				break
			}
		}
	}
	return out
}

const (
	// fileAplusb reads input.txt and writes output.txt.
	fileAplusb = `#include <cstdio>
int main() {
	FILE *in = std::fopen("input.txt", "r"), *out = std::fopen("output.txt", "w");
	int a, b; if (!in || !out || std::fscanf(in, "%d %d", &a, &b) != 2) return 1;
	std::fprintf(out, "%d\n", a + b);
}
`
	// stdoutAplusb reads input.txt and answers on stdout.
	stdoutAplusb = `#include <cstdio>
int main() {
	FILE *in = std::fopen("input.txt", "r");
	int a, b; if (!in || std::fscanf(in, "%d %d", &a, &b) != 2) return 1;
	std::printf("%d\n", a + b);
}
`
	// symlinkOut tries to swap output.txt for a symlink to a host file
	// holding the answer's shape, then writes nothing itself.
	symlinkOut = `#include <cstdio>
#include <unistd.h>
int main() {
	unlink("output.txt");
	if (symlink("/proc/self/cwd/input.txt", "output.txt") == 0) return 0;
	if (symlink("/tmp/x", "out2.txt") == 0) return 0;
	std::printf("3\n");
	return 0;
}
`
	// floodFile writes 4 MiB to output.txt (the limit is 1 MiB).
	floodFile = `#include <cstdio>
int main() {
	FILE *out = std::fopen("output.txt", "w");
	static char buf[1 << 16];
	for (int i = 0; i < 64; i++) std::fwrite(buf, 1, sizeof buf, out);
	std::fclose(out);
}
`
	// pyFile: the same in Python, reading with open().
	pyFile = "a, b = map(int, open('input.txt').read().split())\nopen('output.txt', 'w').write(str(a + b) + '\\n')\n"
)

// TestFileIO: a problem that reads input.txt and writes output.txt,
// through the real agent and sandbox: a program doing so is accepted (C++
// and Python); one that answers on stdout instead never wrote its output
// file (WA, "no output file"); one that tries to replace the output file
// by a symlink cannot (the sandbox forbids symlink: RE; unlinking fails,
// the work dir is the judge's: WA); one
// that writes past the output limit gets OLE; stdin holds nothing when
// the input is a file. Input from a file with output on stdout is
// accepted.
func TestFileIO(t *testing.T) {
	both := func(t *protocol.Task) { t.IO = &protocol.FileIO{InputFile: "input.txt", OutputFile: "output.txt"} }
	judgeAll(t, aplusb(), nil, both, []problemSub{
		{"reads and writes files", "cpp17", fileAplusb, protocol.VerdictAC, "", nil},
		{"python", "py3", pyFile, protocol.VerdictAC, "", nil},
		{"stdout instead", "cpp17", stdoutAplusb, protocol.VerdictWA, "no output file output.txt", nil},
		{"symlink", "cpp17", symlinkOut, protocol.VerdictRE, "forbidden system call symlink", nil},
		{"unlink", "py3", "import os\ntry:\n    os.unlink('output.txt')\nexcept OSError as e:\n    print(e.errno)\n", protocol.VerdictWA, "no output file", nil},
		{"flood", "cpp17", floodFile, protocol.VerdictOLE, "", nil},
		{"stdin is empty", "py3", "a, b = map(int, input().split())\nopen('output.txt','w').write(str(a+b))\n", protocol.VerdictRE, "", nil},
		{"input file, stdout", "cpp17", stdoutAplusb, protocol.VerdictAC, "", func(t *protocol.Task) {
			t.IO = &protocol.FileIO{InputFile: "input.txt"}
		}},
		{"output file only", "py3", "a, b = map(int, input().split())\nopen('out.txt','w').write(str(a+b))\n", protocol.VerdictAC, "", func(t *protocol.Task) {
			t.IO = &protocol.FileIO{OutputFile: "out.txt"}
		}},
		{"name of the program's own file", "py3", pyFile, protocol.VerdictSE, "file of the compiled program", func(t *protocol.Task) {
			t.IO = &protocol.FileIO{InputFile: "main.py"}
		}},
	})
}

// TestFileIOCollect: the read-back refuses a symlink or a fifo planted as
// the output file, tells an untouched file from an empty one, and bounds
// the copy.
func TestFileIOCollect(t *testing.T) {
	work, scratch := t.TempDir(), t.TempDir()
	out := filepath.Join(scratch, "output")
	f := fileIO{work: work, output: "output.txt"}
	target := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(target, []byte("3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(work, "output.txt")); err != nil {
		t.Fatal(err)
	}
	if v, msg, err := f.collect(out, 100); err != nil || v != protocol.VerdictWA || !strings.Contains(msg, "not a regular file") {
		t.Errorf("symlink: %s %q %v", v, msg, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("symlink: the target was copied")
	}
	os.Remove(filepath.Join(work, "output.txt"))
	spec := sandbox.Spec{StdinFile: target}
	fio, err := prepareFileIO(&protocol.FileIO{OutputFile: "output.txt"}, &spec, work, scratch, place{uid: os.Getuid(), gid: os.Getgid()})
	if err != nil {
		t.Fatal(err)
	}
	if v, msg, _ := fio.collect(out, 100); v != protocol.VerdictWA || !strings.Contains(msg, "did not write it") {
		t.Errorf("untouched: %s %q", v, msg)
	}
	if err := os.WriteFile(filepath.Join(work, "output.txt"), nil, 0o644); err != nil { // opened with O_TRUNC: written, empty
		t.Fatal(err)
	}
	if v, _, _ := fio.collect(out, 100); v != protocol.VerdictAC {
		t.Errorf("empty but written: %s", v)
	}
	if err := os.WriteFile(filepath.Join(work, "output.txt"), make([]byte, 101), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := fio.collect(out, 100); v != protocol.VerdictOLE {
		t.Errorf("101 bytes, limit 100: %s", v)
	}
	if err := fio.cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(work, "output.txt")); err == nil {
		t.Error("cleanup left output.txt")
	}
}

// outputsOf is an output-only submission's source.
func outputsOf(t *testing.T, files map[int]string) string {
	t.Helper()
	var o protocol.Outputs
	for c := 1; c <= 10; c++ {
		if s, ok := files[c]; ok {
			o.Files = append(o.Files, protocol.OutputFile{Case: c, Data: []byte(s)})
		}
	}
	src, err := protocol.EncodeOutputs(o)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestOutputOnly: output-only tasks (no compile, no run): every output
// right is AC, one wrong is WA on that case, a missing case file is WA
// ("no output file"), an output above the limit OLE; the package's
// special judge checks them when the problem has one. The judge offers
// the outputs capability in hello.
func TestOutputOnly(t *testing.T) {
	ioi := func(t *protocol.Task) { t.Mode = protocol.ModeIOI }
	res := judgeAll(t, aplusb(), nil, ioi, []problemSub{
		{"all right", protocol.LanguageOutputs, outputsOf(t, map[int]string{1: "3\n", 2: "42"}), protocol.VerdictAC, "", nil},
		{"one wrong", protocol.LanguageOutputs, outputsOf(t, map[int]string{1: "3\n", 2: "41\n"}), protocol.VerdictWA, "expected \"42\"", nil},
		{"one missing", protocol.LanguageOutputs, outputsOf(t, map[int]string{2: "42\n"}), protocol.VerdictWA, "no output file for case 1", nil},
		{"too big", protocol.LanguageOutputs, outputsOf(t, map[int]string{1: "3\n", 2: strings.Repeat("4", 200)}), protocol.VerdictOLE, "", func(t *protocol.Task) {
			t.Limits.OutputBytes = 100
		}},
	})
	if r := res["one wrong"]; r.Score != 50 || r.Cases[0].Verdict != protocol.VerdictAC || r.Cases[1].Verdict != protocol.VerdictWA {
		t.Errorf("one wrong: %+v", r)
	}
	if r := res["one missing"]; r.Cases[1].Verdict != protocol.VerdictAC || r.Cases[0].CPUMs != 0 {
		t.Errorf("one missing: %+v", r)
	}
	pkg := aplusb()
	pkg.Checker = []byte(testlibChecker)
	pkg.CheckerOptions.Files = map[string][]byte{testpkg.TestlibHeader: []byte(miniCheckerTestlib)}
	judgeAll(t, pkg, nil, func(t *protocol.Task) { t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial} }, []problemSub{
		{"special judge", protocol.LanguageOutputs, outputsOf(t, map[int]string{1: "3", 2: "42"}), protocol.VerdictAC, "sum 3", nil},
		{"special judge wrong", protocol.LanguageOutputs, outputsOf(t, map[int]string{1: "3", 2: "7"}), protocol.VerdictWA, "expected 42, found 7", nil},
	})

	h := newFakeHub(t)
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	h.mu.Lock()
	hello := h.hellos[0]
	h.mu.Unlock()
	var outputs, testlib bool
	for _, l := range hello.Languages {
		outputs = outputs || l.ID == protocol.LanguageOutputs
		testlib = testlib || l.ID == protocol.LanguageTestlib
	}
	if !outputs || testlib {
		t.Errorf("hello languages %+v: want outputs, and no testlib without an include dir", hello.Languages)
	}
}

// miniCheckerTestlib is the interactive tests' small testlib-compatible
// header (written here, not testlib) with registerTestlibCmd for
// checkers.
const miniCheckerTestlib = miniTestlib + `
inline void registerTestlibCmd(int argc, char **argv) {
	if (argc < 4) quitf(_fail, "usage: checker input output answer");
	inf.f = std::fopen(argv[1], "r"); ouf.f = std::fopen(argv[2], "r"); ans.f = std::fopen(argv[3], "r"); ouf.onEof = _pe;
	if (!inf.f || !ouf.f || !ans.f) quitf(_fail, "cannot open the files");
}
`

// testlibChecker is a testlib checker of a+b.
const testlibChecker = `#include "testlib.h"
int main(int argc, char **argv) {
	registerTestlibCmd(argc, argv);
	int a = inf.readInt(), b = inf.readInt(), want = ans.readInt(), got = ouf.readInt();
	if (want != a + b) quitf(_fail, "answer %d is not %d + %d", want, a, b);
	if (got != want) quitf(_wa, "expected %d, found %d", want, got);
	quitf(_ok, "sum %d", got);
}
`

// kattisValidator is a Kattis output validator of a+b (in C): the team's
// output on stdin, `validator input answer feedback_dir [flags]`; with the
// flag "lenient" a trailing "!" is allowed.
const kattisValidator = `#include <stdio.h>
#include <string.h>
static void msg(const char *dir, const char *name, const char *text, int n) {
	char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w"); if (f) { fprintf(f, text, n); fclose(f); }
}
int main(int argc, char **argv) {
	if (argc < 4) return 1;
	int lenient = argc > 4 && !strcmp(argv[4], "lenient");
	FILE *ans = fopen(argv[2], "r"); int want, got; char extra[8] = "";
	if (!ans || fscanf(ans, "%d", &want) != 1) return 1;
	if (scanf("%d", &got) != 1) { msg(argv[3], "judgemessage.txt", "no number (case answer %d)", want); return 43; }
	if (scanf("%7s", extra) == 1 && !(lenient && !strcmp(extra, "!"))) { msg(argv[3], "judgemessage.txt", "trailing output after %d", got); return 43; }
	if (got != want) { msg(argv[3], "judgemessage.txt", "wrong sum %d", got); return 43; }
	msg(argv[3], "judgemessage.txt", "correct sum %d", got);
	return 42;
}
`

// TestKattisChecker: a Kattis output validator as a problem's checker (an
// ICPC package's custom validation): exit 42 accepts, 43 rejects with its
// judgemessage.txt, the problem's flags come as arguments, any other exit
// is a judge failure (SE), not a verdict.
func TestKattisChecker(t *testing.T) {
	pkg := aplusb()
	pkg.Checker = []byte(kattisValidator)
	pkg.CheckerOptions = testpkg.CheckerOptions{Name: testpkg.CheckerC, Convention: testpkg.ConventionKattis, Args: []string{"lenient"}}
	special := func(t *protocol.Task) { t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial} }
	py := "a, b = map(int, input().split())\nprint(a + b%s)\n"
	judgeAll(t, pkg, nil, special, []problemSub{
		{"accepted", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictAC, "correct sum", nil},
		{"flag", "py3", strings.ReplaceAll(py, "%s", ", '!'"), protocol.VerdictAC, "correct sum", nil},
		{"wrong", "py3", strings.ReplaceAll(py, "%s", " + 1"), protocol.VerdictWA, "wrong sum 4", nil},
		{"trailing", "py3", strings.ReplaceAll(py, "%s", ", '?'"), protocol.VerdictWA, "trailing output", nil},
		{"nothing", "py3", "pass\n", protocol.VerdictWA, "no number", nil},
	})
	// C++ with a header beside it (as an ICPC package's
	// output_validators/<name>/ imports: checker.cpp + checker_files).
	cpp := aplusb()
	cpp.Checker = []byte(`#include "verdict.h"
#include <cstdio>
int main(int argc, char **argv) {
	long want, got; std::FILE *a = std::fopen(argv[2], "r");
	if (!a || std::fscanf(a, "%ld", &want) != 1) return 1;
	if (std::scanf("%ld", &got) != 1 || got != want) { say(argv[3], "rejected"); return WA; }
	say(argv[3], "accepted"); return AC;
}
`)
	cpp.CheckerOptions = testpkg.CheckerOptions{Convention: testpkg.ConventionKattis, Files: map[string][]byte{"verdict.h": []byte(`#pragma once
#include <cstdio>
#include <string>
enum { AC = 42, WA = 43 };
inline void say(const char *dir, const char *m) { std::FILE *f = std::fopen((std::string(dir) + "/judgemessage.txt").c_str(), "w"); if (f) { std::fputs(m, f); std::fclose(f); } }
`)}}
	judgeAll(t, cpp, nil, special, []problemSub{
		{"c++ accepted", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictAC, "accepted", nil},
		{"c++ rejected", "py3", strings.ReplaceAll(py, "%s", " - 1"), protocol.VerdictWA, "rejected", nil},
	})

	broken := aplusb()
	broken.Checker = []byte("int main(void) { return 0; }\n")
	broken.CheckerOptions = testpkg.CheckerOptions{Name: testpkg.CheckerC, Convention: testpkg.ConventionKattis}
	judgeAll(t, broken, nil, special, []problemSub{
		{"exit 0", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictSE, "exited with code 0, not 42 or 43", nil},
	})
}

// TestTestlibIncludeDir: a checker that includes testlib.h compiles with
// the package's own copy when it has one (it wins over the judge's), else
// with the judge's include directory's; with neither it is a system error
// that says so. A judge with the header offers the testlib capability.
func TestTestlibIncludeDir(t *testing.T) {
	special := func(t *protocol.Task) { t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial} }
	src := "a, b = map(int, input().split())\nprint(a + b)\n"
	bare := aplusb()
	bare.Checker = []byte(testlibChecker)
	judgeAll(t, bare, nil, special, []problemSub{
		{"neither", "py3", src, protocol.VerdictSE, "the package has none and this judge has no testlib include directory", nil},
	})

	empty := t.TempDir()
	judgeAll(t, bare, func(c *Config) { c.TestlibDir = empty }, special, []problemSub{
		{"empty dir", "py3", src, protocol.VerdictSE, "include directory " + empty + " has none", nil},
	})

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, testpkg.TestlibHeader), []byte(miniCheckerTestlib), 0o644); err != nil {
		t.Fatal(err)
	}
	withDir := func(c *Config) { c.TestlibDir = dir }
	judgeAll(t, bare, withDir, special, []problemSub{
		{"judge's", "py3", src, protocol.VerdictAC, "sum 3", nil},
	})

	// The package's header wins: the judge's copy here does not compile.
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, testpkg.TestlibHeader), []byte("#error the judge's copy was used\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	own := aplusb()
	own.Checker = []byte(testlibChecker)
	own.CheckerOptions.Files = map[string][]byte{testpkg.TestlibHeader: []byte(miniCheckerTestlib)}
	judgeAll(t, own, func(c *Config) { c.TestlibDir = broken }, special, []problemSub{
		{"package's", "py3", src, protocol.VerdictAC, "sum 3", nil},
	})

	h := newFakeHub(t)
	startAgent(t, h, "", withDir)
	h.waitConn(1, 10*time.Second)
	h.mu.Lock()
	hello := h.hellos[0]
	h.mu.Unlock()
	found := false
	for _, l := range hello.Languages {
		if l.ID == protocol.LanguageTestlib && strings.HasPrefix(l.Version, "sha256:") {
			found = true
		}
	}
	if !found {
		t.Errorf("hello languages %+v: no testlib capability", hello.Languages)
	}
}

// TestFileIOCustomRun: a custom run of a file I/O problem gets its input
// as the input file, on the user's input and on each sample, and shows
// what the program wrote to its output file; one that never writes it
// gets WA.
func TestFileIOCustomRun(t *testing.T) {
	h := newFakeHub(t)
	startAgent(t, h, "", nil)
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	io := func(t *protocol.Task) { t.IO = &protocol.FileIO{InputFile: "input.txt", OutputFile: "output.txt"} }
	ok := mkCustom(pyFile, "20 22\n", []protocol.SampleCase{{Case: 1, Input: "1 2\n", Answer: "3\n"}}, io)
	silent := mkCustom("print(open('input.txt').read())\n", "1 2\n", nil, io)
	h.send(protocol.TypeTask, ok)
	h.send(protocol.TypeTask, silent)
	r := c.result(ok.TaskRef, 60*time.Second)
	if len(r.Custom) != 2 || r.Custom[0].Stdout != "42\n" || r.Custom[0].Verdict != protocol.VerdictAC || r.Custom[1].Verdict != protocol.VerdictAC {
		t.Errorf("file I/O custom run: %+v", r)
	}
	r = c.result(silent.TaskRef, 60*time.Second)
	if len(r.Custom) != 1 || r.Custom[0].Verdict != protocol.VerdictWA || !strings.Contains(r.Custom[0].Message, "no output file") {
		t.Errorf("silent custom run: %+v", r)
	}
}

// TestKattisCheckerCaseArgs: a case with validator arguments of its own
// (an ICPC test data group's output_validator_flags,
// testpkg.Package.ValidatorArgs) is checked with them, the others with the
// problem's: the output validator is lenient only on the second case.
func TestKattisCheckerCaseArgs(t *testing.T) {
	pkg := aplusb()
	pkg.ValidatorArgs = map[int][]string{2: {"lenient"}}
	pkg.Checker = []byte(kattisValidator)
	pkg.CheckerOptions = testpkg.CheckerOptions{Name: testpkg.CheckerC, Convention: testpkg.ConventionKattis}
	special := func(t *protocol.Task) { t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial} }
	py := "a, b = map(int, input().split())\nprint(a + b%s)\n"
	res := judgeAll(t, pkg, nil, special, []problemSub{
		{"lenient where the group allows it", "py3", strings.ReplaceAll(py, "%s", ", '!' if a == 20 else ''"), protocol.VerdictAC, "correct sum", nil},
		{"not where it does not", "py3", strings.ReplaceAll(py, "%s", ", '!'"), protocol.VerdictWA, "trailing output", nil},
	})
	if r := res["not where it does not"]; len(r.Cases) != 2 || r.Cases[0].Verdict != protocol.VerdictWA {
		t.Errorf("cases %+v: want the first case rejected", r.Cases)
	}
}
