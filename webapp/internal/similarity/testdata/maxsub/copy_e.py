import sys

# maximum subarray


def main():
    arr = get_input()
    if not arr:
        return
    res = solve(arr)
    print(res)


def solve(arr):
    top = arr[0]
    acc = 0
    for item in arr:
        acc = max(item, acc + item)
        if acc > top:
            top = acc
    return top


def get_input():
    tokens = sys.stdin.read().split()
    count = int(tokens[0])
    return [int(t) for t in tokens[1:1 + count]]


if __name__ == "__main__":
    main()
