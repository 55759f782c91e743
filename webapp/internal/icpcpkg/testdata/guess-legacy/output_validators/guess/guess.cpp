// guess.cpp: a scoring Kattis output validator (written for Verdict's
// tests). The answer file holds the case's number and its maximum score;
// the team prints a guess, which scores the maximum less its distance,
// written to score.txt (exit 42), or nothing when that leaves no score
// (exit 43, the reason in judgemessage.txt).
#include <cmath>
#include <cstdio>
#include <string>

static void put(const std::string &dir, const char *name, const std::string &text) {
    std::FILE *f = std::fopen((dir + name).c_str(), "w");
    if (f) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) return 1;
    std::string fb = argv[3];
    std::FILE *ans = std::fopen(argv[2], "r");
    double want, max, got;
    if (!ans || std::fscanf(ans, "%lf %lf", &want, &max) != 2) return 1;
    if (std::scanf("%lf", &got) != 1) {
        put(fb, "judgemessage.txt", "no number\n");
        return 43;
    }
    double score = max - std::fabs(got - want);
    if (score <= 0) {
        put(fb, "judgemessage.txt", "too far from the number\n");
        return 43;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f\n", score);
    put(fb, "score.txt", buf);
    return 42;
}
