package agent

import (
	"cmp"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// kattisInputValidator (Kattis convention): the input is one integer n,
// 1 <= n <= max (its flag), on one line; exit 42 valid, 43 invalid with
// the reason on stderr. Its bound comes from a header compiled with it.
const kattisInputValidator = `#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "bounds.h"
int main(int argc, char **argv) {
	long max = MIN_MAX;
	for (int i = 1; i + 1 < argc; i++) if (!std::strcmp(argv[i], "--max")) max = std::atol(argv[i + 1]);
	long n; char c;
	if (std::scanf("%ld%c", &n, &c) != 2 || c != '\n') { std::fprintf(stderr, "expected one integer and a newline\n"); return 43; }
	if (n < 1 || n > max) { std::fprintf(stderr, "n = %ld is outside [1, %ld]\n", n, max); return 43; }
	if (std::getchar() != EOF) { std::fprintf(stderr, "trailing data after n\n"); return 43; }
	return 42;
}
`

// testlibStyleValidator (testlib convention): exit 0 valid, 3 invalid
// with testlib's "FAIL" message on stderr; it crashes on a 0.
const testlibStyleValidator = `#include <cstdio>
int main() {
	int n;
	if (std::scanf("%d", &n) != 1) { std::fprintf(stderr, "FAIL expected an integer\n"); return 3; }
	if (n == 0) { *(volatile int *)0 = 1; }
	if (n < 0) { std::fprintf(stderr, "FAIL n = %d < 0\n", n); return 3; }
	return 0;
}
`

// pyInputValidator (Kattis convention, Python, two sources): as
// kattisInputValidator, the check in a module beside it.
const pyInputValidator = `import sys
from bounds import check
args = sys.argv[1:]
hi = int(args[args.index("--max") + 1]) if "--max" in args else 10
line = sys.stdin.read()
why = check(line, hi)
if why:
    print(why, file=sys.stderr)
    sys.exit(43)
sys.exit(42)
`

const pyBounds = `def check(text, hi):
    parts = text.split()
    if len(parts) != 1 or text != parts[0] + "\n":
        return "expected one integer and a newline"
    n = int(parts[0])
    if n < 1 or n > hi:
        return "n = %d is outside [1, %d]" % (n, hi)
    return ""
`

// cppMain and cppCheck: a C++ validator of two sources and a header.
const cppMain = `#include <cstdio>
#include "check.h"
int main() { long n; if (std::scanf("%ld", &n) != 1 || !in_range(n)) { std::fprintf(stderr, "n out of range\n"); return 43; } return 42; }
`

const cppCheck = `#include "check.h"
bool in_range(long n) { return n >= 1 && n <= 100; }
`

// javaValidator: a Java validator (Kattis convention), its own class
// name, a helper class in a second file.
const javaValidator = `import java.util.Scanner;
public class Validate {
	public static void main(String[] args) {
		long n = new Scanner(System.in).nextLong();
		if (!Range.ok(n)) { System.err.println("n = " + n + " out of range"); System.exit(43); }
		System.exit(42);
	}
}
`

const javaRange = `public class Range { static boolean ok(long n) { return n >= 1 && n <= 60; } }
`

func numbersPkg(ins ...string) testpkg.Package {
	var p testpkg.Package
	for _, in := range ins {
		p.Cases = append(p.Cases, testpkg.Case{In: []byte(in), Ans: []byte("x\n")})
	}
	return p
}

// TestValidateInputs: an input validation through the real agent and
// sandbox: every input valid is AC with one outcome per input; an invalid
// input is a WA naming it with the validator's message; a validator
// exiting otherwise (Kattis) or crashing is that input's failure; one
// that does not compile is a CE with the compiler's message. A build
// check compiles and runs nothing (AC without outcomes, or the CE).
func TestValidateInputs(t *testing.T) {
	h := newFakeHub(t)
	good := h.addPackage(numbersPkg("1\n", "50\n", "100\n"))
	bad := h.addPackage(numbersPkg("1\n", "101\n", "7 8\n", "0\n", "-4\n"))
	startAgent(t, h, "", func(c *Config) { c.MaxParallel = 2 })
	h.waitConn(1, 10*time.Second)
	c := newCollector(h)
	kattis := &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: protocol.ValidatorCPP,
		Source: kattisInputValidator, Files: map[string]string{"bounds.h": "#define MIN_MAX 10\n"}, Args: []string{"--max", "100"}}
	testlib := &protocol.InputValidation{Convention: protocol.ValidationTestlib, Name: protocol.ValidatorCPP, Source: testlibStyleValidator}
	type want struct {
		verdict protocol.Verdict
		cases   []protocol.Verdict
		msgs    []string // per case, "" for any
		compile string
	}
	for _, tc := range []struct {
		name string
		hash string
		v    *protocol.InputValidation
		want want
		lang string // "" cpp17
	}{
		{"kattis all valid", good, kattis, want{protocol.VerdictAC,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictAC}, nil, ""}, ""},
		{"kattis invalid", bad, kattis, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictWA, protocol.VerdictWA, protocol.VerdictWA},
			[]string{"", "n = 101 is outside [1, 100]", "expected one integer and a newline", "n = 0 is outside", "n = -4"}, ""}, ""},
		{"testlib", bad, testlib, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictRE, protocol.VerdictWA},
			[]string{"", "", "", "the validator failed: killed by SIGSEGV", "FAIL n = -4 < 0"}, ""}, ""},
		{"kattis other exit", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: protocol.ValidatorCPP,
			Source: "int main() { return 0; }\n"}, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictRE, protocol.VerdictRE, protocol.VerdictRE},
			[]string{"exited with code 0, not 42 or 43", "", ""}, ""}, ""},
		{"no compile", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: protocol.ValidatorCPP,
			Source: "int main( {\n"}, want{verdict: protocol.VerdictCE, compile: "does not compile"}, ""},
		{"python, two sources, flags per case", bad, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "validate.py",
			Source: pyInputValidator, Files: map[string]string{"bounds.py": pyBounds}, Args: []string{"--max", "100"},
			CaseArgs: map[int][]string{2: {"--max", "1000"}, 4: {}}}, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictWA, protocol.VerdictWA},
			[]string{"", "", "expected one integer", "n = 0 is outside [1, 10]", "n = -4 is outside [1, 100]"}, ""}, "py3"},
		{"python syntax error", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "validate.py",
			Source: "def (:\n"}, want{verdict: protocol.VerdictCE, compile: "does not compile"}, "py3"},
		{"c++, two sources", bad, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "main.cpp",
			Source: cppMain, Files: map[string]string{"check.cc": cppCheck, "check.h": "bool in_range(long n);\n"}}, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictAC, protocol.VerdictWA, protocol.VerdictWA},
			[]string{"", "n out of range"}, ""}, ""},
		{"build only: compiles, nothing runs", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: protocol.ValidatorCPP,
			Source: "int main() { return 0; }\n", BuildOnly: true}, want{verdict: protocol.VerdictAC}, ""},
		{"build only: a Python syntax error", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "validate.py",
			Source: "import sys\ndef (:\n", BuildOnly: true}, want{verdict: protocol.VerdictCE, compile: "SyntaxError"}, "py3"},
		{"build only: a Java error", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "Validate.java",
			Source: "public class Validate { void f() { int x = \"s\"; } }\n", BuildOnly: true}, want{verdict: protocol.VerdictCE, compile: "incompatible types"}, "java17"},
		// A check queued by an import that was dropped meanwhile (its
		// wait ran out): the web node has no such test data any more. It
		// ends (SE) instead of going back to the hub again and again.
		{"test data gone", strings.Repeat("ab", 32), kattis, want{verdict: protocol.VerdictSE, compile: "the import that queued this check is gone"}, ""},
		{"java, two classes", good, &protocol.InputValidation{Convention: protocol.ValidationKattis, Name: "Validate.java",
			Source: javaValidator, Files: map[string]string{"Range.java": javaRange}}, want{protocol.VerdictWA,
			[]protocol.Verdict{protocol.VerdictAC, protocol.VerdictAC, protocol.VerdictWA},
			[]string{"", "", "n = 100 out of range"}, ""}, "java17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := mkTask(3, tc.hash, cmp.Or(tc.lang, "cpp17"), "", func(x *protocol.Task) {
				x.SubmissionID += protocol.CustomRunIDBase
				x.Priority = protocol.PriorityCustom
				x.Validation = tc.v
			})
			if err := task.Validate(); err != nil {
				t.Fatalf("task: %v", err)
			}
			h.send(protocol.TypeTask, task)
			r := c.result(task.TaskRef, 120*time.Second)
			if r.Verdict != tc.want.verdict {
				t.Fatalf("verdict %s, want %s (%s) %+v", r.Verdict, tc.want.verdict, r.CompileMessage, r.Custom)
			}
			if !strings.Contains(r.CompileMessage, tc.want.compile) {
				t.Errorf("compile message %q does not mention %q", r.CompileMessage, tc.want.compile)
			}
			if len(r.Custom) != len(tc.want.cases) {
				t.Fatalf("%d outcomes, want %d: %+v", len(r.Custom), len(tc.want.cases), r.Custom)
			}
			for i, o := range r.Custom {
				if o.Case != i+1 || o.Verdict != tc.want.cases[i] {
					t.Errorf("outcome %d: case %d %s, want case %d %s (%q)", i, o.Case, o.Verdict, i+1, tc.want.cases[i], o.Message)
				}
				if i < len(tc.want.msgs) && !strings.Contains(o.Message, tc.want.msgs[i]) {
					t.Errorf("outcome %d: message %q does not mention %q", i, o.Message, tc.want.msgs[i])
				}
			}
			if err := r.Validate(); err != nil {
				t.Errorf("result: %v", err)
			}
		})
	}
}
