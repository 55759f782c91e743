package truncate

import "unicode/utf8"

// Mark ends a text Marked cut.
const Mark = "\n… (truncated)"

// UTF8 returns s cut to at most n bytes, on a rune boundary: the whole of
// s if it fits. Invalid bytes count as runes of their own.
func UTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return s[:boundary(s, n)]
}

// Marked is UTF8 that ends a cut text with Mark, all of it within n
// bytes (for n shorter than Mark, a bare cut).
func Marked(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= len(Mark) {
		return UTF8(s, n)
	}
	return s[:boundary(s, n-len(Mark))] + Mark
}

// boundary is the largest cut k ≤ n (n < len(s)) that does not split a
// UTF-8 sequence: s[k] starts a rune. In invalid text a run of
// continuation bytes longer than any sequence is cut through at n.
func boundary(s string, n int) int {
	for k := n; k >= 0 && k > n-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			return k
		}
	}
	return n
}
