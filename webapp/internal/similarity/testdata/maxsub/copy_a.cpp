#include <iostream>
#include <vector>
using namespace std;

vector<long long> input(int count);

struct Answer {
    long long total;
    int lo, hi;
};

/* print the answer */
void show(const Answer& ans)
{
    cout << ans.total << "\n";
    cout << ans.lo + 1 << " " << ans.hi + 1 << "\n";
}

Answer solve(const vector<long long>& v)
{
    Answer res{v[0], 0, 0};
    long long run = 0;
    int begin = 0;
    for (int k = 0; k < (int)v.size(); k++)
    {
        if (run <= 0) { run = v[k]; begin = k; }
        else { run += v[k]; }
        if (run > res.total) { res.total = run; res.lo = begin; res.hi = k; }
    }
    return res;
}

int main()
{
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int count;
    if (!(cin >> count)) return 0;
    vector<long long> v = input(count);
    Answer r = solve(v);
    show(r);
    return 0;
}

vector<long long> input(int count)
{
    vector<long long> v(count);
    for (int j = 0; j < count; j++)
        cin >> v[j];
    return v;
}
