package queue

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/boarddoc"
)

// testBoard is a board of users × problems as a web node publishes it.
func testBoard(users, problems int) []byte {
	d := boarddoc.Doc{Rule: "icpc", Full: true}
	for u := range users {
		r := boarddoc.Row{Rank: u + 1, User: "contestant" + strconv.Itoa(u), UserID: int64(u + 100), DisplayName: "Contestant " + strconv.Itoa(u),
			Solved: u % problems, Penalty: u * 7 % 500, Problems: map[string]boarddoc.DocCell{}}
		for p := range problems {
			c := boarddoc.DocCell{Attempts: (u + p) % 4}
			if c.Attempts > 0 && (u+p)%3 == 0 {
				m := u % 300
				c.Solved, c.TimeMin = true, &m
			}
			r.Problems[string(rune('A'+p))] = c
		}
		d.Rows = append(d.Rows, r)
	}
	b, _ := json.Marshal(d)
	return b
}

func TestPackDoc(t *testing.T) {
	small := []byte(`{"rows":[]}`)
	if got := packDoc(small); string(got) != string(small) {
		t.Errorf("a small document stored as %q", got)
	}
	if packDoc(nil) != nil {
		t.Error("no state stored as something")
	}
	board := testBoard(3000, 6)
	packed := packDoc(board)
	if !strings.HasPrefix(string(packed), gzipMagic) || len(packed) > len(board)/5 {
		t.Fatalf("a %d-byte board stored as %d bytes (gzip %v)", len(board), len(packed), strings.HasPrefix(string(packed), gzipMagic))
	}
	t.Logf("a 3,000 x 6 board: %d bytes of JSON, %d stored", len(board), len(packed))
	state, gz, err := unpackDoc(string(packed))
	if err != nil || string(state) != string(board) || string(gz) != string(packed) {
		t.Fatalf("unpacked: %d bytes, stream %d, %v", len(state), len(gz), err)
	}
	// A pooled writer leaves nothing of one document in the next.
	again, _, err := unpackDoc(string(packDoc(testBoard(10, 40))))
	if err != nil || string(again) != string(testBoard(10, 40)) {
		t.Fatalf("the next document: %d bytes, %v", len(again), err)
	}
	for _, tc := range []struct{ name, stored string }{
		{"cut short", string(packed[:len(packed)/2])},
		{"only the magic", gzipMagic},
		{"its checksum wrong", string(packed[:len(packed)-8]) + "\x00\x00\x00\x00" + string(packed[len(packed)-4:])},
	} {
		if state, _, err := unpackDoc(tc.stored); err == nil {
			t.Errorf("%s: %d bytes, no error", tc.name, len(state))
		}
	}
	// A stream whose stated size lies reads as what it holds.
	lying := string(packed[:len(packed)-4]) + "\xff\xff\xff\x7f"
	if _, _, err := unpackDoc(lying); err == nil {
		t.Error("a stream whose size lies: no error")
	}
}

// BenchmarkDocPack: what storing a 3,000 x 6 board compressed costs its
// publisher (Pack) and each reader (Unpack), per publish.
func BenchmarkDocPack(b *testing.B) {
	board := testBoard(3000, 6)
	packed := string(packDoc(board))
	b.Run("Pack", func(b *testing.B) {
		b.SetBytes(int64(len(board)))
		for b.Loop() {
			packDoc(board)
		}
	})
	b.Run("Unpack", func(b *testing.B) {
		b.SetBytes(int64(len(board)))
		for b.Loop() {
			if _, _, err := unpackDoc(packed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
