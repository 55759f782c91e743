#include <bits/stdc++.h>
using namespace std;

// Kadane's algorithm with the subarray bounds.
struct Best {
    long long sum;
    int from, to;
};

vector<long long> readAll(int n) {
    vector<long long> a(n);
    for (int i = 0; i < n; i++) {
        cin >> a[i];
    }
    return a;
}

Best kadane(const vector<long long>& a) {
    Best best{a[0], 0, 0};
    long long cur = 0;
    int start = 0;
    for (int i = 0; i < (int)a.size(); i++) {
        if (cur <= 0) {
            cur = a[i];
            start = i;
        } else {
            cur += a[i];
        }
        if (cur > best.sum) {
            best.sum = cur;
            best.from = start;
            best.to = i;
        }
    }
    return best;
}

void report(const Best& b) {
    cout << b.sum << "\n";
    cout << b.from + 1 << " " << b.to + 1 << "\n";
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    if (!(cin >> n)) return 0;
    vector<long long> a = readAll(n);
    Best b = kadane(a);
    report(b);
    return 0;
}
