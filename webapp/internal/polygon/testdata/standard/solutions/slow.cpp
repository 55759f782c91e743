#include <cstdio>
int main() { long long a, b; std::scanf("%lld %lld", &a, &b); long long s = 0; for (long long i = 0; i < a + b; i++) s++; std::printf("%lld\n", s); }
