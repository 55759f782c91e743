package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/zipbomb"
)

// bombZip is a zip of 1.in (unpacked bytes of zeros) and 1.ans.
func bombZip(t *testing.T, unpacked int64) []byte {
	t.Helper()
	b, err := zipbomb.Zip(zipbomb.Entry{Name: "1.in", Zeros: unpacked}, zipbomb.Entry{Name: "1.ans", Data: []byte("0\n")})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTestdataUploadCheckedAsJudgesUnpack: a package the judges would
// refuse (testpkg's shared limits) is refused at upload with a field error,
// and nothing is stored.
func TestTestdataUploadCheckedAsJudgesUnpack(t *testing.T) {
	se := newStaffEnv(t, nil)
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "echo", "title": "Echo"}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	bomb := bombZip(t, 1<<30)
	if len(bomb) > 2<<20 {
		t.Fatalf("the bomb is %d bytes, want about 1 MB", len(bomb))
	}
	t.Logf("a %d-byte zip that unpacks to 1 GiB", len(bomb))
	many := map[string]string{}
	for i := 1; i <= testpkg.MaxFiles/2+1; i++ {
		many[fmt.Sprintf("%d.in", i)], many[fmt.Sprintf("%d.ans", i)] = "", ""
	}
	for _, tc := range []struct {
		name string
		zip  []byte
		msg  string
	}{
		{"zip bomb", bomb, "too large for the judges (at most 512 MiB unpacked"},
		{"just over the unpacked limit", bombZip(t, testpkg.MaxUnpackedBytes-1), "1.ans: the files unpack to more than 512 MiB"},
		{"too many files", zipOf(t, many), "10002 entries in the zip, limit 10000"},
		{"a name that is not a case", zipOf(t, map[string]string{"1.in": "", "1.ans": "", "notes.txt": "x"}), "notes.txt: unexpected file"},
		{"empty", nil, "is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := se.setter.upload("/api/problems/echo/testdata", "file", tc.zip, "")
			wantErr(t, r, 400, CodeValidation, "file")
			if msg, _ := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q, want it to say %q", msg, tc.msg)
			}
			if n := se.count("testdata_versions"); n != 0 {
				t.Fatalf("%d test data versions stored after a refusal", n)
			}
		})
	}
	// Exactly at the limit is what the judges take: accepted.
	if r := se.setter.upload("/api/problems/echo/testdata", "file", bombZip(t, testpkg.MaxUnpackedBytes-2), ""); r.status != 201 {
		t.Fatalf("a package at the limit: %d %s", r.status, r.raw)
	}
}
