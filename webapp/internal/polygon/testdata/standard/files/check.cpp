#include "testlib.h"
// Compares one signed 64-bit integer (the shape of testlib's std::ncmp).
int main(int argc, char *argv[]) {
	registerTestlibCmd(argc, argv);
	long long want = ans.readLong(), got = ouf.readLong();
	if (want != got) quitf(_wa, "expected %lld, found %lld", want, got);
	quitf(_ok, "%lld", got);
}
