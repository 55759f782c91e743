// Package cache keeps test data packages on a judge, unpacked, keyed by
// their content hash (hex SHA-256 of the zip). It owns downloading
// (authenticated with the judge token, one download per hash however many
// tasks want it), verifying the hash, unpacking safely (testpkg.Unpack:
// no zip slip, bounded size), bounding the bytes kept (least recently used
// first, never a package in use), eviction on the hub's word, and
// artefacts built once per package (the compiled special judge).
//
// Layout under Config.Dir: <hash>/data/ holds the package's files,
// <hash>/.meta.json marks a complete unpack (written last, renamed into
// place with the directory), <hash>/.build-<key>/ holds built artefacts.
// Anything else (.tmp-*, .gone-*) is a leftover removed at start.
package cache
