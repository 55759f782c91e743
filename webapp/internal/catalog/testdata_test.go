package catalog

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/zipbomb"
)

func zipOf(t *testing.T, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(f[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckTestdata(t *testing.T) {
	good := zipOf(t, [2]string{"1.in", "1 2\n"}, [2]string{"1.ans", "3\n"})
	withChecker := zipOf(t, [2]string{"1.in", "1 2\n"}, [2]string{"1.ans", "3\n"}, [2]string{testpkg.CheckerName, "int main(){}"})
	if m, err := CheckTestdata(good, false); err != nil || len(m.Cases) != 1 {
		t.Fatalf("a good package: %+v, %v", m, err)
	}
	if m, err := CheckTestdata(withChecker, true); err != nil || m.Checker == "" {
		t.Fatalf("a package with its checker: %+v, %v", m, err)
	}
	// Just over the limit unpacked: the limit's worth of zeros, and a byte.
	big, err := zipbomb.Zip(zipbomb.Entry{Name: "1.in", Zeros: testpkg.MaxUnpackedBytes}, zipbomb.Entry{Name: "1.ans", Data: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		zip      []byte
		checker  bool
		tooLarge bool
		msg      string
	}{
		{"empty", nil, false, false, "is empty"},
		{"not a zip", []byte("hello"), false, false, "invalid test data package: not a zip"},
		{"no checker for a special checker", good, true, false, "needs checker.cpp"},
		{"a stray file", zipOf(t, [2]string{"1.in", ""}, [2]string{"1.ans", ""}, [2]string{"x.txt", ""}), false, false, "x.txt: unexpected file"},
		{"over the unpacked limit", big, false, true, "at most 512 MiB unpacked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckTestdata(tc.zip, tc.checker)
			te, ok := errors.AsType[*TestdataError](err)
			if !ok || !errors.Is(err, ErrTestdata) || te.Field != "file" || te.TooLarge != tc.tooLarge || !strings.Contains(te.Message, tc.msg) {
				t.Fatalf("err = %#v, want a refusal on file (too large: %v) saying %q", err, tc.tooLarge, tc.msg)
			}
		})
	}
}
