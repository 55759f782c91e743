#include <bits/stdc++.h>
using namespace std;

vector<bool> build(int limit);

int tally(const vector<bool>& mark)
{
    int total = 0;
    for (size_t p = 0; p < mark.size(); p++)
    {
        if (!mark[p]) total++;
    }
    return total;
}

int main()
{
    int limit;
    cin >> limit;
    vector<bool> mark = build(limit);
    cout << tally(mark) << endl;
    return 0;
}

vector<bool> build(int limit)
{
    vector<bool> mark(limit + 1, false);
    mark[0] = true;
    if (limit >= 1) mark[1] = true;
    for (long long p = 2; p * p <= limit; p++)
    {
        if (!mark[p])
        {
            for (long long q = p * p; q <= limit; q += p)
            {
                mark[q] = true;
            }
        }
    }
    return mark;
}
