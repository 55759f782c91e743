#include <iostream>

static bool isPrime(int x) {
    if (x < 2) return false;
    if (x % 2 == 0) return x == 2;
    for (int d = 3; d * d <= x; d += 2)
        if (x % d == 0) return false;
    return true;
}

int main() {
    int n, count = 0;
    std::cin >> n;
    for (int x = 2; x <= n; ++x)
        count += isPrime(x);
    std::cout << count << '\n';
}
