package agent

import (
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testpkg"
)

// pyKattisValidator is kattisValidator in Python 3, split in two sources
// (main.py imports its helper): exit 42 accepts, 43 rejects, the message
// in feedback_dir/judgemessage.txt, the flag "lenient" allows a trailing
// "!".
const pyKattisValidator = `import sys
from feedback import say
args = sys.argv[1:]
want = int(open(args[1]).read().split()[0])
lenient = "lenient" in args[3:]
team = sys.stdin.read().split()
if not team or not team[0].lstrip("-").isdigit():
    say(args[2], "no number (case answer %d)" % want)
    sys.exit(43)
got = int(team[0])
if team[1:] and not (lenient and team[1:] == ["!"]):
    say(args[2], "trailing output after %d" % got)
    sys.exit(43)
if got != want:
    say(args[2], "wrong sum %d" % got)
    sys.exit(43)
say(args[2], "correct sum %d (python)" % got)
sys.exit(42)
`

const pyFeedback = `import os
def say(d, text):
    with open(os.path.join(d, "judgemessage.txt"), "w") as f:
        f.write(text)
`

// javaKattisValidator accepts the right sum, in Java (its class is its
// file's name). It uses java.io: java.nio's file API opens a socket when
// it loads (an IPv6 probe), which the run profile forbids, as for a
// submission.
const javaKattisValidator = `import java.io.*;
import java.util.*;
public class Validate {
	public static void main(String[] args) throws Exception {
		long want;
		try (BufferedReader r = new BufferedReader(new FileReader(args[1]))) { want = Long.parseLong(r.readLine().trim()); }
		Scanner in = new Scanner(System.in);
		boolean ok = in.hasNextLong() && in.nextLong() == want;
		try (FileWriter w = new FileWriter(new File(args[2], "judgemessage.txt"))) { w.write(ok ? "java: right" : "java: wrong"); }
		System.exit(ok ? 42 : 43);
	}
}
`

// TestKattisCheckerPython: a Kattis output validator in Python 3 (two
// sources) is compiled with the language table's py3 command in the
// sandbox and run with its run command: 42 accepts and 43 rejects, each
// with its feedback message, the flags come as arguments, a syntax error
// is a judge failure (SE) with the compiler's message, an exit other
// than 42/43 too. A Java one (Validate.java) judges the same way.
func TestKattisCheckerPython(t *testing.T) {
	special := func(t *protocol.Task) {
		t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial, Language: "py3"}
	}
	py := "a, b = map(int, input().split())\nprint(a + b%s)\n"
	pkg := aplusb()
	pkg.Checker = []byte(pyKattisValidator)
	pkg.CheckerOptions = testpkg.CheckerOptions{Name: "main.py", Language: "py3", Convention: testpkg.ConventionKattis,
		Files: map[string][]byte{"feedback.py": []byte(pyFeedback)}, Args: []string{"lenient"}}
	judgeAll(t, pkg, nil, special, []problemSub{
		{"accepted", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictAC, "correct sum 3 (python)", nil},
		{"flag", "cpp17", "#include <cstdio>\nint main(){int a,b;std::scanf(\"%d %d\",&a,&b);std::printf(\"%d !\\n\",a+b);}\n",
			protocol.VerdictAC, "correct sum", nil},
		{"wrong", "py3", strings.ReplaceAll(py, "%s", " + 1"), protocol.VerdictWA, "wrong sum 4", nil},
		{"trailing", "py3", strings.ReplaceAll(py, "%s", ", '?'"), protocol.VerdictWA, "trailing output", nil},
		{"nothing", "py3", "pass\n", protocol.VerdictWA, "no number", nil},
	})

	broken := aplusb()
	broken.Checker = []byte("import sys\nif True\n    sys.exit(42)\n")
	broken.CheckerOptions = testpkg.CheckerOptions{Name: "v.py", Language: "py3", Convention: testpkg.ConventionKattis}
	judgeAll(t, broken, nil, special, []problemSub{
		{"syntax error", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictSE, "does not compile", nil},
	})
	zero := aplusb()
	zero.Checker = []byte("import sys\nsys.exit(0)\n")
	zero.CheckerOptions = testpkg.CheckerOptions{Name: "v.py", Language: "py3", Convention: testpkg.ConventionKattis}
	judgeAll(t, zero, nil, special, []problemSub{
		{"exit 0", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictSE, "exited with code 0, not 42 or 43", nil},
	})

	java := aplusb()
	java.Checker = []byte(javaKattisValidator)
	java.CheckerOptions = testpkg.CheckerOptions{Name: "Validate.java", Language: "java17", Convention: testpkg.ConventionKattis}
	judgeAll(t, java, nil, func(t *protocol.Task) {
		t.Checker = protocol.Checker{Kind: protocol.CheckerSpecial, Language: "java17"}
	}, []problemSub{
		{"java accepted", "py3", strings.ReplaceAll(py, "%s", ""), protocol.VerdictAC, "java: right", nil},
		{"java rejected", "py3", strings.ReplaceAll(py, "%s", " - 1"), protocol.VerdictWA, "java: wrong", nil},
	})
}

// pyGuess is kattisGuess in Python 3: the ICPC/Kattis convention's
// interactor (the output validator run interactively), the secret in the
// answer file, 42 / 43 and feedback_dir/judgemessage.txt.
const pyGuess = `import sys
inp, ans, fb = sys.argv[1], sys.argv[2], sys.argv[3]
limit = int(sys.argv[sys.argv.index("max_queries") + 1]) if "max_queries" in sys.argv else 20
def verdict(code, text):
    with open(fb + "/judgemessage.txt", "w") as f:
        f.write(text)
    sys.exit(code)
lo, hi = map(int, open(inp).read().split())
secret = int(open(ans).read())
print(lo, hi, flush=True)
q = 0
while True:
    line = sys.stdin.readline().split()
    if len(line) != 2:
        verdict(43, "the solution ended after %d questions" % q)
    kind, x = line[0], int(line[1])
    if kind == "!":
        if x != secret:
            verdict(43, "wrong guess %d" % x)
        verdict(42, "correct (python): %d" % x)
    q += 1
    if q > limit:
        verdict(43, "too many questions: %d" % q)
    print("<" if secret < x else ">" if secret > x else "=", flush=True)
`

// TestInteractiveKattisPython: a guessing game whose interactor is a
// Python 3 program (prepared with py3's compile command, run with its run
// command and the interactor's limits, scaled as the language's): binary
// search is accepted, a linear search asks too many questions (WA from
// the interactor, its flags read), a silent solution ends at its
// wall-time limit.
func TestInteractiveKattisPython(t *testing.T) {
	pkg := kattisPkg()
	pkg.Interactor = &testpkg.Interactor{Name: "guess.py", Language: "py3", Convention: testpkg.ConventionKattis,
		Source: []byte(pyGuess), Args: []string{"max_queries", "20"}}
	judgeInteractive(t, pkg, 1, protocol.CheckerDefault, []interactiveSub{
		{"binary", "cpp17", solBinary, protocol.VerdictAC, "correct (python): ", 0},
		{"linear", "cpp17", solLinear, protocol.VerdictWA, "too many questions", 0},
		{"silent", "cpp17", solSilent, protocol.VerdictTLE, "wall-clock", 2600},
	})
}
