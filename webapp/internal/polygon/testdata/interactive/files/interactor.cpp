#include "testlib.h"
// The input is "lo hi secret": the interactor tells the solution "lo hi",
// answers "? x" with <, > or =, takes "! x", allows 20 questions, and
// writes the guess to its output file for the checker.
int main(int argc, char *argv[]) {
	registerInteraction(argc, argv);
	int lo = inf.readInt(), hi = inf.readInt(), secret = inf.readInt();
	if (ans.readInt() != secret) quitf(_fail, "the answer file disagrees with the input");
	std::printf("%d %d\n", lo, hi);
	std::fflush(stdout);
	for (int q = 0;;) {
		std::string kind = ouf.readToken();
		int x = ouf.readInt();
		if (kind == "!") {
			tout << x << "\n";
			quitf(_ok, "%d questions", q);
		}
		if (kind != "?") quitf(_pe, "expected ? or !, found %s", kind.c_str());
		if (++q > 20) quitf(_wa, "too many questions (more than 20)");
		std::printf("%s\n", secret < x ? "<" : secret > x ? ">" : "=");
		std::fflush(stdout);
	}
}
