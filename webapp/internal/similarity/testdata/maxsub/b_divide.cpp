#include <cstdio>
#include <algorithm>

const long long NEG = -(1LL << 60);
long long arr[200005];

// Divide and conquer: the best sum crossing the middle, then each half.
long long crossing(int l, int m, int r) {
    long long s = 0, left = NEG, right = NEG;
    for (int i = m; i >= l; --i) { s += arr[i]; left = std::max(left, s); }
    s = 0;
    for (int i = m + 1; i <= r; ++i) { s += arr[i]; right = std::max(right, s); }
    return left + right;
}

long long best(int l, int r) {
    if (l == r) return arr[l];
    int m = (l + r) / 2;
    return std::max({best(l, m), best(m + 1, r), crossing(l, m, r)});
}

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; ++i) scanf("%lld", &arr[i]);
    printf("%lld\n", best(0, n - 1));
}
