n = int(input())
found = []
for x in range(2, n + 1):
    ok = True
    for p in found:
        if p * p > x:
            break
        if x % p == 0:
            ok = False
            break
    if ok:
        found.append(x)
print(len(found))
