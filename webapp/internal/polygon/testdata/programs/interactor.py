# A testlib-convention interactor in Python 3 for the interactive package:
# `interactor.py input output answer`. The input is "lo hi secret"; it
# tells the solution "lo hi", answers "? x" with <, > or =, takes "! x",
# allows 20 questions and writes the guess to its output file for the
# checker. Exit 0 accepted, 1 wrong answer, 2 presentation error, 3 the
# interactor's own failure.
import sys


def verdict(code, msg):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


with open(sys.argv[1]) as f:
    lo, hi, secret = map(int, f.read().split())
with open(sys.argv[3]) as f:
    if int(f.read().split()[0]) != secret:
        verdict(3, "the answer file disagrees with the input")
print(lo, hi, flush=True)
q = 0
while True:
    line = sys.stdin.readline().split()
    if len(line) != 2:
        verdict(2, "expected ? x or ! x")
    kind, x = line[0], int(line[1])
    if kind == "!":
        with open(sys.argv[2], "w") as out:
            out.write("%d\n" % x)
        verdict(0, "%d questions" % q)
    if kind != "?":
        verdict(2, "expected ? or !, found %s" % kind)
    q += 1
    if q > 20:
        verdict(1, "too many questions (more than 20)")
    print("<" if secret < x else ">" if secret > x else "=", flush=True)
