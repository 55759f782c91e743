#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    long n;
    if (scanf("%ld", &n) != 1 || n < 2) { puts("0"); return 0; }
    /* odd-only sieve: bit k stands for 2k+1 */
    long half = (n - 1) / 2;
    unsigned char *dead = calloc(half + 1, 1);
    long count = 1; /* the prime 2 */
    for (long k = 1; k <= half; k++) {
        if (dead[k]) continue;
        count++;
        long p = 2 * k + 1;
        for (long m = (p * p - 1) / 2; m <= half; m += p) dead[m] = 1;
    }
    printf("%ld\n", count);
    free(dead);
    return 0;
}
