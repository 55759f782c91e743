import sys


def primes_up_to(n):
    if n < 2:
        return 0
    is_prime = bytearray([1]) * (n + 1)
    is_prime[0] = is_prime[1] = 0
    i = 2
    while i * i <= n:
        if is_prime[i]:
            is_prime[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
        i += 1
    return sum(is_prime)


def main():
    n = int(sys.stdin.readline())
    print(primes_up_to(n))


main()
