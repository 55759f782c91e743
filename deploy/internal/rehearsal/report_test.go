package rehearsal

import (
	"testing"
	"time"
)

func TestRunDelay(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"123456 7890 42\n", 7890},
		{"1 2000000000 3", 2 * time.Second},
		{"", 0},
		{"123", 0},
		{"1 x 3", 0},
		{"1 -5 3", 0},
	} {
		if got := runDelay([]byte(tc.in)); got != tc.want {
			t.Errorf("runDelay(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
