package truncate_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/truncate"
)

func TestUTF8(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"", 0, ""},
		{"short", 20, "short"},
		{"exact", 5, "exact"},
		{"abcdef", 3, "abc"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"aé", 2, "a"},         // é is 2 bytes: not split
		{"aé", 3, "aé"},        // fits
		{"aéb", 3, "aé"},       // a whole é at the end is kept
		{"a€b", 2, "a"},        // € is 3 bytes
		{"a€b", 3, "a"},        // cut inside €
		{"a€b", 4, "a€"},       // right after it
		{"😀😀", 5, "😀"},         // 4-byte runes
		{"😀😀", 3, ""},          // no whole rune fits
		{"a\xffb", 2, "a\xff"}, // an invalid byte is a rune of its own
		{"a\x80\x80\x80\x80\x80b", 4, "a\x80\x80\x80"}, // a run of stray continuation bytes is cut through
	}
	for _, tc := range cases {
		if got := truncate.UTF8(tc.s, tc.n); got != tc.want {
			t.Errorf("UTF8(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestMarked(t *testing.T) {
	m := truncate.Mark
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 20, "short"},
		{strings.Repeat("x", 30), 30, strings.Repeat("x", 30)},
		{strings.Repeat("x", 31), 30, strings.Repeat("x", 30-len(m)) + m},
		{strings.Repeat("ab", 20), len(m) + 3, "aba" + m},
		{"é" + strings.Repeat("é", 20), len(m) + 3, "é" + m},           // 3 bytes of room: one é
		{strings.Repeat("é", 20), len(m) + 1, m},                       // no room for one é
		{strings.Repeat("x", 40), len(m), strings.Repeat("x", len(m))}, // too short for the mark: a bare cut
		{strings.Repeat("é", 40), 3, "é"},
	}
	for _, tc := range cases {
		got := truncate.Marked(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Marked(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// check holds for UTF8 and Marked alike: s itself when it fits, otherwise
// at most n bytes, a prefix of s (then mark) that does not split a rune
// and is the longest such one.
func check(t *testing.T, name, s string, n int, got, mark string) {
	t.Helper()
	if len(s) <= n {
		if got != s {
			t.Fatalf("%s(%q, %d) = %q, want s unchanged", name, s, n, got)
		}
		return
	}
	if len(got) > max(n, 0) {
		t.Fatalf("%s(%q, %d) = %q: %d bytes", name, s, n, got, len(got))
	}
	body, ok := strings.CutSuffix(got, mark)
	if !ok || mark == "" {
		body = got
	}
	if !strings.HasPrefix(s, body) {
		t.Fatalf("%s(%q, %d) = %q: not a prefix of s", name, s, n, got)
	}
	if utf8.ValidString(s) && !utf8.ValidString(got) {
		t.Fatalf("%s(%q, %d) = %q: invalid UTF-8 from a valid text", name, s, n, got)
	}
	// Longest: the next rune of s would not have fitted.
	if utf8.ValidString(s) && ok {
		_, size := utf8.DecodeRuneInString(s[len(body):])
		if len(body)+size+len(mark) <= n {
			t.Fatalf("%s(%q, %d) = %q: the next rune fits too", name, s, n, got)
		}
	}
}

func FuzzUTF8(f *testing.F) {
	for _, s := range []string{"", "abc", "aé€😀", "a\xffb\x80", strings.Repeat("é", 50)} {
		for _, n := range []int{0, 1, 2, 3, 5, 17, 64} {
			f.Add(s, n)
		}
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1 << 12
		check(t, "UTF8", s, n, truncate.UTF8(s, n), "")
		check(t, "Marked", s, n, truncate.Marked(s, n), truncate.Mark)
	})
}
