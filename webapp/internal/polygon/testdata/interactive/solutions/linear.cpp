#include <cstdio>
int main() {
	int lo, hi; std::scanf("%d %d", &lo, &hi);
	for (int x = lo; x <= hi; x++) {
		char r[4]; std::printf("? %d\n", x); std::fflush(stdout); std::scanf("%3s", r);
		if (r[0] == '=') { std::printf("! %d\n", x); std::fflush(stdout); return 0; }
	}
}
