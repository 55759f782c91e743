#include "testlib.h"
// Reads the interactor's output (the guess) and the answer.
int main(int argc, char *argv[]) {
	registerTestlibCmd(argc, argv);
	int want = ans.readInt(), got = ouf.readInt();
	if (want != got) quitf(_wa, "guessed %d, the number was %d", got, want);
	quitf(_ok, "guessed %d", got);
}
