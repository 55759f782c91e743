// Package testpkg builds and reads test data packages (shared: the web nodes
// build and validate them, the judges unpack them): a zip holding pairs
// N.in / N.ans (N = 1, 2, … with no gaps) and manifest.json describing the
// cases and optional subtasks with points. Build is deterministic (sorted
// entries, fixed timestamps), so the same cases always give the same bytes
// and therefore the same content hash in the blob store.
package testpkg
