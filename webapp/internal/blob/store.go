package blob

import (
	"context"
	"io"
	"time"
)

// Store is a content-addressed blob store: Dir (the local filesystem, the
// default) and S3 (S3-compatible object storage) implement it, and one
// contract test suite runs against both. It is declared here rather than
// by each user because the web node, the demo loader and that suite share
// it.
type Store interface {
	// Put stores r's bytes and returns their hash and size; storing a
	// blob that exists is a no-op. A reader never sees a partial blob.
	Put(ctx context.Context, r io.Reader) (hash string, size int64, err error)
	// PutBytes stores b and returns its hash.
	PutBytes(ctx context.Context, b []byte) (string, error)
	// Open returns the blob named h: ErrBadHash when h is not a hash,
	// ErrNotFound when no blob has it. The caller closes the Object.
	Open(ctx context.Context, h string) (*Object, error)
	// Has reports whether the blob named h exists (ErrBadHash as Open).
	Has(ctx context.Context, h string) (bool, error)
}

var (
	_ Store = (*Dir)(nil)
	_ Store = (*S3)(nil)
)

// Object is an open blob: read it, seek in it (http.ServeContent serves
// ranges from it), close it.
type Object struct {
	rsc     io.ReadSeekCloser
	Size    int64     // bytes
	ModTime time.Time // when it was stored
}

// Read reads the blob.
func (o *Object) Read(p []byte) (int, error) { return o.rsc.Read(p) }

// Seek moves the read position, as io.Seeker.
func (o *Object) Seek(offset int64, whence int) (int64, error) { return o.rsc.Seek(offset, whence) }

// Close releases the blob (its file or its HTTP response).
func (o *Object) Close() error { return o.rsc.Close() }
