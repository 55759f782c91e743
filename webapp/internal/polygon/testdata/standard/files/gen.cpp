#include <cstdio>
#include <cstdlib>
int main(int argc, char *argv[]) {
	long long hi = std::atoll(argv[1]), seed = std::atoll(argv[2]);
	std::printf("%lld %lld\n", hi - seed + 1, seed);
}
