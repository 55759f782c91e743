// Package blob is the content-addressed store of test data packages: a
// blob's name is the hex SHA-256 of its bytes, so a name never changes
// meaning, writers never conflict, and readers (judges) can cache forever
// and verify what they fetched.
//
// Store is the contract; Dir keeps blobs on the local filesystem (the
// default) and S3 in a bucket of any S3-compatible object store (Amazon
// S3, MinIO, Ceph RGW, …) through minio-go, chosen by configuration
// (ParseS3URL reads the web node's --blob-s3 URL). Open returns an Object
// that reads, seeks and so serves HTTP ranges; with S3 it streams the
// object through the web node, so the judge token still guards every
// download.
package blob
