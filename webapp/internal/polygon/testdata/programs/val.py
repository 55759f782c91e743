# A testlib-convention validator in Python 3 for the standard package:
# two integers in [0, 10^9], one space, one newline, nothing else. Exit 0
# valid, 3 invalid (testlib's exit for a validation failure).
import re
import sys

data = sys.stdin.buffer.read()
m = re.fullmatch(rb"(0|[1-9][0-9]{0,9}) (0|[1-9][0-9]{0,9})\n", data)
if not m or any(int(v) > 10**9 for v in m.groups()):
    sys.stderr.write("FAIL: want two integers in [0, 1000000000] on one line\n")
    sys.exit(3)
