package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Errors of the store.
var (
	// ErrNotFound: no blob has that hash.
	ErrNotFound = errors.New("blob: not found")
	// ErrBadHash: the name is not a lower-case hex SHA-256.
	ErrBadHash = errors.New("blob: bad hash")
)

// Dir stores blobs as files <root>/sha256/<h[0:2]>/<h>. It is a Store.
type Dir struct {
	root string
}

// NewDir returns a store rooted at dir, creating it if needed.
func NewDir(dir string) (*Dir, error) {
	if dir == "" {
		return nil, fmt.Errorf("blob: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "sha256"), 0o755); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", abs, err)
	}
	return &Dir{root: abs}, nil
}

// ValidHash reports whether h is a lower-case hex SHA-256.
func ValidHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// HashBytes returns the blob name of b.
func HashBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (d *Dir) path(h string) string { return filepath.Join(d.root, "sha256", h[:2], h) }

// Put stores r's bytes and returns their hash and size. Storing a blob that
// exists is a no-op. The file appears atomically (temp file, fsync, rename).
func (d *Dir) Put(ctx context.Context, r io.Reader) (hash string, size int64, err error) {
	tmp, err := os.CreateTemp(d.root, ".put-*")
	if err != nil {
		return "", 0, fmt.Errorf("blob put: %w", err)
	}
	defer func() {
		if tmp != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(tmp, h), ctxReader{ctx, r})
	if err != nil {
		return "", 0, fmt.Errorf("blob put: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, fmt.Errorf("blob put: sync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", 0, fmt.Errorf("blob put: close: %w", err)
	}
	hash = hex.EncodeToString(h.Sum(nil))
	dst := d.path(hash)
	if _, err := os.Stat(dst); err == nil {
		os.Remove(tmp.Name())
		tmp = nil
		return hash, size, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", 0, fmt.Errorf("blob put: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", 0, fmt.Errorf("blob put: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", 0, fmt.Errorf("blob put: %w", err)
	}
	tmp = nil
	return hash, size, nil
}

// PutBytes stores b.
func (d *Dir) PutBytes(ctx context.Context, b []byte) (string, error) {
	h, _, err := d.Put(ctx, bytes.NewReader(b))
	return h, err
}

// Open returns the blob named h, or ErrNotFound.
func (d *Dir) Open(_ context.Context, h string) (*Object, error) {
	if !ValidHash(h) {
		return nil, fmt.Errorf("blob open %q: %w", h, ErrBadHash)
	}
	f, err := os.Open(d.path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob open %s: %w", h, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("blob open %s: %w", h, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("blob open %s: %w", h, err)
	}
	return &Object{rsc: f, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Has reports whether the blob named h exists.
func (d *Dir) Has(_ context.Context, h string) (bool, error) {
	if !ValidHash(h) {
		return false, fmt.Errorf("blob has %q: %w", h, ErrBadHash)
	}
	_, err := os.Stat(d.path(h))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("blob has %s: %w", h, err)
	}
	return true, nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
