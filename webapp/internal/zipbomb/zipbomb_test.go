package zipbomb

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
)

// Every entry unpacks, through archive/zip (which checks the CRC-32 at
// the end), to exactly what it says: the zeros across and at the MiB
// boundaries, and the data.
func TestZipUnpacksToWhatItSays(t *testing.T) {
	for _, n := range []int64{1, piece - 1, piece, 2*piece + 12345} {
		b, err := Zip(Entry{Name: "1.in", Zeros: n}, Entry{Name: "1.ans", Data: []byte("0\n")})
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%d zeros: %v", n, err)
		}
		if len(zr.File) != 2 || zr.File[0].Name != "1.in" || zr.File[1].Name != "1.ans" {
			t.Fatalf("%d zeros: entries %v", n, zr.File)
		}
		if f := zr.File[0]; f.UncompressedSize64 != uint64(n) || f.Method != zip.Deflate {
			t.Fatalf("%d zeros: header says %d bytes, method %d", n, f.UncompressedSize64, f.Method)
		}
		got := read(t, zr.File[0])
		if int64(len(got)) != n || bytes.IndexFunc(got, func(r rune) bool { return r != 0 }) >= 0 {
			t.Fatalf("%d zeros: unpacked %d bytes, not all zero", n, len(got))
		}
		if got := read(t, zr.File[1]); string(got) != "0\n" {
			t.Fatalf("1.ans = %q", got)
		}
	}
}

// A GiB of zeros is about a MiB of zip, as deflate's best ratio allows.
func TestZipIsSmall(t *testing.T) {
	b, err := Zip(Entry{Name: "1.in", Zeros: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2<<20 {
		t.Fatalf("%d bytes for a GiB of zeros", len(b))
	}
}

func read(t *testing.T, f *zip.File) []byte {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return b
}
