#include <cstdio>
#include <vector>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<int> lp(n + 1), primes;
    // linear sieve: each composite is crossed out once, by its least prime
    for (int i = 2; i <= n; ++i) {
        if (lp[i] == 0) {
            lp[i] = i;
            primes.push_back(i);
        }
        for (size_t j = 0; j < primes.size() && primes[j] <= lp[i] && (long long)i * primes[j] <= n; ++j)
            lp[i * primes[j]] = primes[j];
    }
    printf("%zu\n", primes.size());
    return 0;
}
