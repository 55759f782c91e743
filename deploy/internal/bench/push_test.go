package bench

import (
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestStreamTime(t *testing.T) {
	got, err := StreamTime("1764471234567-3")
	if err != nil || !got.Equal(time.UnixMilli(1764471234567)) {
		t.Fatalf("StreamTime = %v, %v", got, err)
	}
	for _, bad := range []string{"", "12", "x-1", "-1"} {
		if _, err := StreamTime(bad); err == nil {
			t.Errorf("StreamTime(%q): no error", bad)
		}
	}
}

func TestBoardShows(t *testing.T) {
	board := func(state string) []byte {
		b, err := protocol.Marshal(protocol.TypeSnapshot, "", protocol.Snapshot{
			Channel: protocol.Channel{Kind: protocol.ChannelContest, ID: 3}, Seq: 9, State: []byte(state)})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		msg  []byte
		want bool
	}{
		{"judged attempt", board(`{"rule":"icpc","rows":[{"user":"bench001","problems":{"A":{"attempts":1}}}]}`), true},
		{"still pending", board(`{"rows":[{"user":"bench001","problems":{"A":{"attempts":1,"pending":1}}}]}`), false},
		{"pending only", board(`{"rows":[{"user":"bench001","problems":{"A":{"attempts":0,"pending":1}}}]}`), false},
		{"another user", board(`{"rows":[{"user":"bench002","problems":{"A":{"attempts":1}}}]}`), false},
		{"empty board", board(`{}`), false},
		{"not a live message", []byte(`{"rows":[]}`), false},
	}
	for _, tt := range tests {
		if got := boardShows(tt.msg, "bench001"); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
