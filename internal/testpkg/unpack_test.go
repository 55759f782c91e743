package testpkg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func unpackBytes(t *testing.T, b []byte, lim UnpackLimits) (string, Manifest, error) {
	t.Helper()
	dir := t.TempDir()
	m, err := Unpack(bytes.NewReader(b), int64(len(b)), dir, lim)
	return dir, m, err
}

func TestUnpack(t *testing.T) {
	pkg, _, err := Package{
		Cases:    []Case{{[]byte("1 2\n"), []byte("3\n")}, {[]byte("5 5\n"), []byte("10\n")}},
		Subtasks: []Subtask{{Name: "all", Points: 100, Cases: []int{1, 2}}},
		Checker:  []byte("// checker\n"),
	}.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir, m, err := unpackBytes(t, pkg, UnpackLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cases) != 2 || m.Checker != CheckerName || len(m.Subtasks) != 1 {
		t.Fatalf("manifest = %+v", m)
	}
	for name, want := range map[string]string{"1.in": "1 2\n", "2.ans": "10\n", "checker.cpp": "// checker\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Fatalf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
}

// rawZip writes entries in order, allowing names Read would refuse.
func rawZip(t *testing.T, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// One compressor reset for each entry, at archive/zip's own level (the
	// same bytes): archive/zip's sync.Pool drops some under -race, and a new
	// compressor per entry, about a megabyte each, took the 10,002-entry zip
	// of TestCheckRefuses about ten seconds.
	fw, _ := flate.NewWriter(io.Discard, 5)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		fw.Reset(w)
		return fw, nil
	})
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e[0], Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestUnpackRefuses(t *testing.T) {
	bomb := strings.Repeat("0", 4<<20) // 4 MiB of zeros deflates to a few KiB
	for _, tc := range []struct {
		name string
		zip  []byte
		lim  UnpackLimits
		want error
		text string
	}{
		{"zip slip", rawZip(t, [2]string{"1.in", ""}, [2]string{"1.ans", ""}, [2]string{"../evil.in", "x"}), UnpackLimits{}, ErrInvalid, "../evil.in"},
		{"absolute", rawZip(t, [2]string{"1.in", ""}, [2]string{"1.ans", ""}, [2]string{"/etc/evil", "x"}), UnpackLimits{}, ErrInvalid, "/etc/evil"},
		{"duplicate", rawZip(t, [2]string{"1.in", "a"}, [2]string{"1.ans", ""}, [2]string{"1.in", "b"}), UnpackLimits{}, ErrInvalid, "twice"},
		{"bomb", rawZip(t, [2]string{"1.in", bomb}, [2]string{"1.ans", ""}), UnpackLimits{MaxBytes: 1 << 20}, ErrTooLarge, "1.in"},
		{"bomb over several files", rawZip(t, [2]string{"1.in", bomb[:600<<10]}, [2]string{"1.ans", bomb[:600<<10]}), UnpackLimits{MaxBytes: 1 << 20}, ErrTooLarge, "1.ans"},
		{"too many files", rawZip(t, [2]string{"1.in", ""}, [2]string{"1.ans", ""}, [2]string{"2.in", ""}, [2]string{"2.ans", ""}), UnpackLimits{MaxFiles: 3}, ErrTooLarge, "entries"},
		{"not a zip", []byte("hello"), UnpackLimits{}, ErrInvalid, "not a zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _, err := unpackBytes(t, tc.zip, tc.lim)
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
			// The upload check refuses what the judge's unpack refuses,
			// with the same error.
			_, cerr := CheckBytes(tc.zip, tc.lim)
			if cerr == nil || cerr.Error() != err.Error() {
				t.Fatalf("Check: %v; Unpack: %v", cerr, err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.in")); err == nil {
				t.Fatal("a file was written outside the directory")
			}
		})
	}
}

func TestUnpackExactlyAtLimit(t *testing.T) {
	z := rawZip(t, [2]string{"1.in", "12345"}, [2]string{"1.ans", "12345"})
	if _, _, err := unpackBytes(t, z, UnpackLimits{MaxBytes: 10}); err != nil {
		t.Fatalf("10 bytes with limit 10: %v", err)
	}
	if _, _, err := unpackBytes(t, z, UnpackLimits{MaxBytes: 9}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("10 bytes with limit 9: %v", err)
	}
}

func TestUnpackDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(outside, filepath.Join(dir, "1.in")); err != nil {
		t.Fatal(err)
	}
	z := rawZip(t, [2]string{"1.in", "x"}, [2]string{"1.ans", ""})
	if _, err := Unpack(bytes.NewReader(z), int64(len(z)), dir, UnpackLimits{}); err == nil {
		t.Fatal("Unpack wrote through a symlink")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the symlink target was created")
	}
}

func TestCheckAcceptsWhatUnpackAccepts(t *testing.T) {
	pkg, _, err := Package{
		Cases:   []Case{{[]byte("1 2\n"), []byte("3\n")}, {[]byte("5 5\n"), []byte("10\n")}},
		Checker: []byte("// checker\n"),
	}.Build()
	if err != nil {
		t.Fatal(err)
	}
	cm, err := CheckBytes(pkg, UnpackLimits{})
	if err != nil {
		t.Fatal(err)
	}
	_, um, err := unpackBytes(t, pkg, UnpackLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cm.Cases) != 2 || len(um.Cases) != 2 || cm.Checker != um.Checker {
		t.Fatalf("Check %+v, Unpack %+v", cm, um)
	}
}

func TestCheckRefuses(t *testing.T) {
	long := strings.Repeat("1", MaxNameLen) + ".in"
	many := make([][2]string, 0, MaxFiles+2)
	for i := range MaxFiles + 2 {
		many = append(many, [2]string{strconv.Itoa(i/2+1) + [2]string{".in", ".ans"}[i%2], ""})
	}
	// A corrupt entry: the checksum of 1.in no longer matches its bytes.
	good := rawZip(t, [2]string{"1.in", "hello hello hello"}, [2]string{"1.ans", "x"})
	corrupt := bytes.Clone(good)
	if i := bytes.Index(corrupt, []byte("1.in")); i < 0 {
		t.Fatal("no local header")
	} else {
		corrupt[i-16] ^= 0xff // the CRC-32 in the local header, and in the central directory:
	}
	if i := bytes.LastIndex(corrupt, []byte("1.in")); i > 0 {
		corrupt[i-30] ^= 0xff
	}
	for _, tc := range []struct {
		name string
		zip  []byte
		want error
		text string
	}{
		{"a long name", rawZip(t, [2]string{"1.in", ""}, [2]string{"1.ans", ""}, [2]string{long, ""}), ErrInvalid, "unexpected file"},
		{"too many files at the shared limit", rawZip(t, many...), ErrTooLarge, "limit 10000"},
		{"a corrupt entry", corrupt, ErrInvalid, "1.in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckBytes(tc.zip, UnpackLimits{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestDefaultLimitsAreTheShared(t *testing.T) {
	if l := (UnpackLimits{}).withDefaults(); l != DefaultLimits() || l.MaxBytes != MaxUnpackedBytes || l.MaxFiles != MaxFiles {
		t.Fatalf("defaults %+v, shared %+v", l, DefaultLimits())
	}
}
