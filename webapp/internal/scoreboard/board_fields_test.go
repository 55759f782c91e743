package scoreboard

import (
	"path"
	"strings"
	"testing"
)

// The four field prefixes are distinct, and viewsAndUsers (a Redis glob,
// here checked as the same glob by path.Match) takes the views' and the
// users' fields and no other.
func TestFieldPrefixes(t *testing.T) {
	prefixes := []string{fieldEntries, fieldVersion, fieldViews, fieldUser}
	for _, mark := range []string{fieldBuilt, fieldSeq, fieldGen} {
		for _, p := range prefixes {
			if strings.HasPrefix(mark, p) {
				t.Errorf("the mark %q has a cell's prefix %q", mark, p)
			}
		}
		if ok, _ := path.Match(viewsAndUsers, mark); ok {
			t.Errorf("pattern %q matches the mark %q", viewsAndUsers, mark)
		}
	}
	for i, p := range prefixes {
		for _, q := range prefixes[i+1:] {
			if p == q || len(p) == 0 {
				t.Fatalf("prefixes %q and %q", p, q)
			}
		}
		ok, err := path.Match(viewsAndUsers, p+"3:4")
		if err != nil {
			t.Fatal(err)
		}
		if want := p == fieldViews || p == fieldUser; ok != want {
			t.Errorf("pattern %q matches %q: %v, want %v", viewsAndUsers, p+"3:4", ok, want)
		}
	}
}
