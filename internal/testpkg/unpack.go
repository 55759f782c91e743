package testpkg

import (
	"archive/zip"
	"bytes"
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

// UnpackLimits bound what Unpack writes and Check reads. Zero values take
// the shared defaults (limits.go): pass UnpackLimits{} on both sides.
type UnpackLimits struct {
	// MaxBytes is the total of the unpacked files. Default
	// MaxUnpackedBytes.
	MaxBytes int64
	// MaxFiles is the number of entries. Default MaxFiles.
	MaxFiles int
}

func (l UnpackLimits) withDefaults() UnpackLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxUnpackedBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = MaxFiles
	}
	return l
}

// Check validates the package in zr (size bytes) exactly as Unpack does
// (the same names, the same limits, every entry decompressed and its
// checksum verified) without writing anything: what Check accepts, Unpack
// accepts. The web node runs it on every upload.
func Check(zr io.ReaderAt, size int64, lim UnpackLimits) (Manifest, error) {
	return walk(zr, size, lim, func(f *zip.File) (io.WriteCloser, error) { return discard{}, nil })
}

// CheckBytes is Check of a package in memory.
func CheckBytes(zipBytes []byte, lim UnpackLimits) (Manifest, error) {
	return Check(bytes.NewReader(zipBytes), int64(len(zipBytes)), lim)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

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
	return walk(zr, size, lim, func(f *zip.File) (io.WriteCloser, error) {
		out, err := os.OpenFile(filepath.Join(dir, f.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%w: %s: appears twice in the zip", ErrInvalid, f.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("testpkg unpack %s: %w", f.Name, err)
		}
		return out, nil
	})
}

// walk is Unpack and Check: it validates the zip and copies every file's
// decompressed bytes to what create gives for it, within lim.
func walk(zr io.ReaderAt, size int64, lim UnpackLimits, create func(*zip.File) (io.WriteCloser, error)) (Manifest, error) {
	lim = lim.withDefaults()
	m, zf, err := readZip(zr, size)
	if err != nil {
		return Manifest{}, err
	}
	if len(zf.File) > lim.MaxFiles {
		return Manifest{}, fmt.Errorf("%w: %w: %d entries in the zip, limit %d", ErrInvalid, ErrTooLarge, len(zf.File), lim.MaxFiles)
	}
	budget := lim.MaxBytes
	seen := make(map[string]bool, len(zf.File))
	for _, f := range zf.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue // a directory entry; Read allows and ignores them
		}
		if !safeName(name) {
			return Manifest{}, fmt.Errorf("%w: %s: not a plain file name", ErrInvalid, name)
		}
		if len(name) > MaxNameLen {
			return Manifest{}, fmt.Errorf("%w: %.64s…: a name longer than %d bytes", ErrInvalid, name, MaxNameLen)
		}
		if seen[name] {
			return Manifest{}, fmt.Errorf("%w: %s: appears twice in the zip", ErrInvalid, name)
		}
		seen[name] = true
		n, err := unpackFile(f, create, budget)
		if err == errOverBudget {
			return Manifest{}, fmt.Errorf("%w: %w: %s: the files unpack to more than %s (the limit)",
				ErrInvalid, ErrTooLarge, name, sizeText(lim.MaxBytes))
		}
		if err != nil {
			return Manifest{}, err
		}
		budget -= n
	}
	return m, nil
}

// errOverBudget: a file passed the remaining byte budget.
var errOverBudget = errors.New("over budget")

// sizeText writes n bytes as "512 MiB", or in bytes when not whole MiB.
func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// safeName reports whether name is a plain top-level file name.
func safeName(name string) bool {
	return name != "" && name != "." && name != ".." &&
		!strings.ContainsAny(name, "/\\\x00") && filepath.Base(name) == name
}

func unpackFile(f *zip.File, create func(*zip.File) (io.WriteCloser, error), budget int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrInvalid, f.Name, err)
	}
	defer rc.Close()
	out, err := create(f)
	if err != nil {
		return 0, err
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
		return n, errOverBudget
	}
	return n, nil
}
