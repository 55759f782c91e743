#include <bits/stdc++.h>
using namespace std;

// Count the primes up to n with the sieve of Eratosthenes.
vector<bool> sieve(int n) {
    vector<bool> composite(n + 1, false);
    composite[0] = true;
    if (n >= 1) composite[1] = true;
    for (long long i = 2; i * i <= n; i++) {
        if (!composite[i]) {
            for (long long j = i * i; j <= n; j += i) {
                composite[j] = true;
            }
        }
    }
    return composite;
}

int countPrimes(const vector<bool>& composite) {
    int c = 0;
    for (size_t i = 0; i < composite.size(); i++) {
        if (!composite[i]) c++;
    }
    return c;
}

int main() {
    int n;
    cin >> n;
    vector<bool> composite = sieve(n);
    cout << countPrimes(composite) << endl;
    return 0;
}
