// Package blob is the content-addressed store of test data packages: a
// blob's name is the hex SHA-256 of its bytes, so a name never changes
// meaning, writers never conflict, and readers (judges) can cache forever
// and verify what they fetched. Dir keeps blobs on the local filesystem;
// an S3-compatible implementation can satisfy the same methods later.
package blob
