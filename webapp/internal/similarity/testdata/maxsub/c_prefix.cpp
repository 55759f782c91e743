#include <bits/stdc++.h>
typedef long long ll;

int main() {
    int n;
    std::cin >> n;
    std::vector<ll> p(n + 1, 0);
    for (int i = 1; i <= n; ++i) {
        ll x;
        std::cin >> x;
        p[i] = p[i - 1] + x;
    }
    // best = max over r of p[r] - min over l < r of p[l]
    ll lowest = p[0], answer = LLONG_MIN;
    for (int r = 1; r <= n; ++r) {
        answer = std::max(answer, p[r] - lowest);
        lowest = std::min(lowest, p[r]);
    }
    std::cout << answer << std::endl;
}
