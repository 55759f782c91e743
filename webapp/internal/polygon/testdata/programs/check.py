# A testlib-convention checker in Python 3 for the standard package
# (a + b): `check.py input output answer`, exit 0 accepted, 1 wrong
# answer, 2 presentation error; the message on stderr.
import sys


def verdict(code, msg):
    sys.stderr.write(msg + "\n")
    sys.exit(code)


with open(sys.argv[3]) as f:
    want = int(f.read().split()[0])
with open(sys.argv[2]) as f:
    got = f.read().split()
if len(got) != 1:
    verdict(2, "expected one number, found %d tokens" % len(got))
try:
    n = int(got[0])
except ValueError:
    verdict(2, "expected a number, found %r" % got[0][:20])
if n != want:
    verdict(1, "expected %d, found %d" % (want, n))
verdict(0, "%d" % n)
