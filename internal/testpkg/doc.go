// Package testpkg builds, reads and unpacks test data packages (shared: the
// web nodes build and validate them, the judges unpack them): a zip holding
// pairs N.in / N.ans (N = 1, 2, … with no gaps), manifest.json describing the
// cases and optional subtasks with points, and optionally checker.cpp, a
// special judge in testlib's convention (the manifest's "checker" names it).
// An interactive problem's package also carries its interactor
// (interactor.cpp or interactor.c, the headers it includes, its convention:
// testlib's or Kattis'; see interactive.go and docs/problems.md).
// Every file sits at the top level of the zip.
//
// Build (or Package.Build) is deterministic (sorted entries, fixed
// timestamps), so the same cases always give the same bytes and therefore
// the same content hash in the blob store. Unpack writes a package into a
// directory without ever writing outside it (zip slip) and counts the bytes
// it really decompresses against a limit (zip bombs).
package testpkg
