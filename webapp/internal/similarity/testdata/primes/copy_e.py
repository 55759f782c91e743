import sys


def run():
    limit = int(sys.stdin.readline())
    print(count_them(limit))


def count_them(limit):
    if limit < 2:
        return 0
    flags = bytearray([1]) * (limit + 1)
    flags[0] = flags[1] = 0
    p = 2
    while p * p <= limit:
        if flags[p]:
            flags[p * p::p] = bytearray(len(range(p * p, limit + 1, p)))
        p += 1
    return sum(flags)


run()
