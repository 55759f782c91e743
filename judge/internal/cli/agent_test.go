package cli

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1", []int{1}, true},
		{"0-3,6", []int{0, 1, 2, 3, 6}, true},
		{" 3 , 1-2 ,2", []int{1, 2, 3}, true},
		{"", nil, false},
		{"a", nil, false},
		{"3-1", nil, false},
		{"-1", nil, false},
		{"1,", nil, false},
		{"0-99999", nil, false},
	} {
		got, err := parseCPUList(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !slices.Equal(got, tc.want)) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
