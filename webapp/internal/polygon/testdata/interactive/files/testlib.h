// A tiny testlib-compatible header written for Verdict's Polygon fixtures
// (not testlib itself): registerTestlibCmd, registerInteraction,
// registerValidation, the inf/ouf/ans streams with readInt, readSpace,
// readEoln and readEof, tout, and quitf with testlib's exit codes. Real
// Polygon packages carry their own files/testlib.h.
#pragma once
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3 };
[[noreturn]] inline void quitf(TResult r, const char *fmt, ...) {
	va_list ap; va_start(ap, fmt);
	std::fprintf(stderr, "%s ", r == _ok ? "ok" : r == _wa ? "wrong answer" : r == _pe ? "wrong output format" : "FAIL");
	std::vfprintf(stderr, fmt, ap); std::fputc('\n', stderr); va_end(ap);
	std::exit(r);
}
struct InStream {
	FILE *f = nullptr; TResult onEof = _fail; bool strict = false;
	int peek() { int c = std::fgetc(f); if (c != EOF) std::ungetc(c, f); return c; }
	void skip() { if (!strict) while (peek() != EOF && std::isspace(peek())) std::fgetc(f); }
	std::string readToken() {
		skip(); std::string s;
		while (peek() != EOF && !std::isspace(peek())) s += (char)std::fgetc(f);
		if (s.empty()) quitf(onEof, "expected a token");
		return s;
	}
	long long readLong() {
		std::string s = readToken(); char *end; long long v = std::strtoll(s.c_str(), &end, 10);
		if (*end || s == "-") quitf(onEof, "expected an integer, found %s", s.c_str());
		return v;
	}
	int readInt() { return (int)readLong(); }
	int readInt(int lo, int hi, const char *name) {
		long long v = readLong();
		if (v < lo || v > hi) quitf(_fail, "%s = %lld is not in [%d, %d]", name, v, lo, hi);
		return (int)v;
	}
	void readSpace() { if (std::fgetc(f) != ' ') quitf(_fail, "expected a space"); }
	void readEoln() { if (std::fgetc(f) != '\n') quitf(_fail, "expected the end of the line"); }
	void readEof() { skip(); if (std::fgetc(f) != EOF) quitf(_fail, "expected the end of the file"); }
};
inline InStream inf, ouf, ans;
inline std::ofstream tout;
inline void registerTestlibCmd(int argc, char **argv) {
	if (argc < 4) quitf(_fail, "usage: checker input output answer");
	inf.f = std::fopen(argv[1], "r"); ouf.f = std::fopen(argv[2], "r"); ans.f = std::fopen(argv[3], "r"); ouf.onEof = _pe;
	if (!inf.f || !ouf.f || !ans.f) quitf(_fail, "cannot open the files");
}
inline void registerInteraction(int argc, char **argv) {
	if (argc < 4) quitf(_fail, "usage: interactor input output answer");
	inf.f = std::fopen(argv[1], "r"); ans.f = std::fopen(argv[3], "r"); ouf.f = stdin; ouf.onEof = _pe;
	tout.open(argv[2]);
	if (!inf.f || !ans.f || !tout) quitf(_fail, "cannot open the files");
}
inline void registerValidation(int, char **) { inf.f = stdin; inf.strict = true; }
