/* Copied verbatim from the issue 11 reference (../shared/bench/floor.c). */
/* The floor: the least work any PICL reader must do - read the file in large blocks and turn every
 * field into a number. Prints lines and the time it took. Build: cc -O2 -o floor floor.c */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"); if (!f) { perror(argv[1]); return 1; }
    static char buf[1 << 20]; size_t n; long lines = 0; double acc = 0, cur = 0, frac = 0; int neg = 0, infrac = 0, innum = 0;
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < n; i++) {
            char c = buf[i];
            if (c >= '0' && c <= '9') { if (infrac) { frac /= 10; cur += (c - '0') * frac; } else cur = cur * 10 + (c - '0'); innum = 1; }
            else if (c == '.') { infrac = 1; frac = 1; }
            else if (c == '-') neg = 1;
            else { if (innum) acc += neg ? -cur : cur; cur = 0; neg = infrac = innum = 0; if (c == '\n') lines++; }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%ld lines %.3f s %.1f Mlines/s (checksum %g)\n", lines, s, lines / s / 1e6, acc);
    return 0;
}
