#include <cstdio>
int main() {
	int lo, hi; std::scanf("%d %d", &lo, &hi);
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2; char r[4];
		std::printf("? %d\n", mid); std::fflush(stdout); std::scanf("%3s", r);
		if (r[0] == '=') { lo = hi = mid; break; }
		if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
	}
	std::printf("! %d\n", lo); std::fflush(stdout);
}
