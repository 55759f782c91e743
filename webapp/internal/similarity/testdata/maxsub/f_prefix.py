from itertools import accumulate

n = int(input())
a = list(map(int, input().split()))
prefix = [0] + list(accumulate(a))
lo = prefix[0]
ans = None
for p in prefix[1:]:
    cand = p - lo
    ans = cand if ans is None or cand > ans else ans
    lo = min(lo, p)
print(ans)
