#include <stdio.h>
#include <limits.h>

static long long v[5000];

int main(void)
{
	int n, i, j;
	long long best = LLONG_MIN;
	if (scanf("%d", &n) != 1)
		return 1;
	for (i = 0; i < n; i++)
		scanf("%lld", &v[i]);
	/* every start, every end: quadratic */
	for (i = 0; i < n; i++) {
		long long s = 0;
		for (j = i; j < n; j++) {
			s += v[j];
			if (s > best)
				best = s;
		}
	}
	printf("%lld\n", best);
	return 0;
}
