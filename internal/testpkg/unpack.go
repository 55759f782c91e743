package testpkg

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrTooLarge is wrapped (together with ErrInvalid) when a package unpacks
// to more bytes or files than UnpackLimits allow: a zip bomb or simply too
// much data for this judge.
var ErrTooLarge = errors.New("testpkg: package too large")

// UnpackLimits bound what Unpack writes. Zero values take the defaults.
type UnpackLimits struct {
	// MaxBytes is the total of the unpacked files. Default 2 GiB.
	MaxBytes int64
	// MaxFiles is the number of entries. Default 100000.
	MaxFiles int
}

func (l UnpackLimits) withDefaults() UnpackLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 2 << 30
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = 100000
	}
	return l
}

// Unpack validates the package in zr (size bytes, e.g. an *os.File) like
// Read and writes its files into dir, which must exist and be empty. It
// never writes outside dir: entry names are checked to be plain top-level
// names (Read's rule), and files are created with O_EXCL|O_NOFOLLOW so a
// duplicate name or a planted symlink fails instead of being followed. The
// bytes actually decompressed are counted against lim (the sizes a zip
// header claims are not trusted), so a zip bomb stops at lim.MaxBytes.
// Files are written 0644. On error dir may hold a partial unpack; the
// caller removes it.
func Unpack(zr io.ReaderAt, size int64, dir string, lim UnpackLimits) (Manifest, error) {
	lim = lim.withDefaults()
	m, zf, err := readZip(zr, size)
	if err != nil {
		return Manifest{}, err
	}
	if len(zf.File) > lim.MaxFiles {
		return Manifest{}, fmt.Errorf("%w: %w: %d entries, limit %d", ErrInvalid, ErrTooLarge, len(zf.File), lim.MaxFiles)
	}
	budget := lim.MaxBytes
	for _, f := range zf.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue // a directory entry; Read allows and ignores them
		}
		if !safeName(name) {
			return Manifest{}, fmt.Errorf("%w: %s: not a plain file name", ErrInvalid, name)
		}
		n, err := unpackFile(f, filepath.Join(dir, name), budget)
		if err != nil {
			return Manifest{}, err
		}
		budget -= n
	}
	return m, nil
}

// safeName reports whether name is a plain top-level file name.
func safeName(name string) bool {
	return name != "" && name != "." && name != ".." &&
		!strings.ContainsAny(name, "/\\\x00") && filepath.Base(name) == name
}

func unpackFile(f *zip.File, dst string, budget int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrInvalid, f.Name, err)
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return 0, fmt.Errorf("%w: %s: appears twice in the zip", ErrInvalid, f.Name)
		}
		return 0, fmt.Errorf("testpkg unpack %s: %w", f.Name, err)
	}
	// One byte past the budget tells "exactly at the limit" from "over".
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	cerr := out.Close()
	if err != nil {
		return n, fmt.Errorf("%w: %s: %w", ErrInvalid, f.Name, err)
	}
	if cerr != nil {
		return n, fmt.Errorf("testpkg unpack %s: %w", f.Name, cerr)
	}
	if n > budget {
		return n, fmt.Errorf("%w: %w: %s passes the unpacked size limit", ErrInvalid, ErrTooLarge, f.Name)
	}
	return n, nil
}
