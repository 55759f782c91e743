#include "testlib.h"
int main(int argc, char *argv[]) {
	registerValidation(argc, argv);
	int lo = inf.readInt(1, 1000000, "lo");
	inf.readSpace();
	int hi = inf.readInt(lo, 1000000, "hi");
	inf.readSpace();
	inf.readInt(lo, hi, "secret");
	inf.readEoln();
	inf.readEof();
}
