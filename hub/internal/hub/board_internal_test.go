package hub

import (
	"slices"
	"testing"

	"github.com/verdict-oj/verdict/internal/boarddoc"
)

func TestRowsLeft(t *testing.T) {
	doc := func(users ...string) boarddoc.Doc {
		var d boarddoc.Doc
		for _, u := range users {
			d.Rows = append(d.Rows, boarddoc.Row{User: u})
		}
		return d
	}
	tests := []struct {
		prev, next boarddoc.Doc
		want       []string
	}{
		{doc("a", "b"), doc("b", "a", "c"), nil},
		{doc("a", "b", "c"), doc("b"), []string{"a", "c"}},
		{doc("#7"), doc("alice"), []string{"#7"}},
		{doc("a", "b", "c", "d", "e"), doc(), []string{"a", "b", "c"}},
	}
	for _, tc := range tests {
		if got := rowsLeft(tc.prev, tc.next); !slices.Equal(got, tc.want) {
			t.Errorf("rowsLeft(%v, %v) = %v, want %v", tc.prev.Rows, tc.next.Rows, got, tc.want)
		}
	}
}
