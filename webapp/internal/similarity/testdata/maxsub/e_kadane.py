import sys


def read_numbers():
    data = sys.stdin.read().split()
    n = int(data[0])
    return [int(x) for x in data[1:1 + n]]


def max_subarray(values):
    best = values[0]
    current = 0
    for x in values:
        current = max(x, current + x)
        if current > best:
            best = current
    return best


def main():
    values = read_numbers()
    if not values:
        return
    answer = max_subarray(values)
    print(answer)


if __name__ == "__main__":
    main()
