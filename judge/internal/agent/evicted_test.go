package agent

import (
	"slices"
	"testing"
)

// TestHeartbeatReportsEvictions: each heartbeat lists the hashes the hub
// was told of (hello, earlier heartbeats) that the cache no longer holds,
// each once.
func TestHeartbeatReportsEvictions(t *testing.T) {
	a := &Agent{}
	a.reported = map[string]bool{"a": true, "b": true, "c": true} // hello's list
	for _, step := range []struct {
		cached, want []string
	}{
		{[]string{"a", "b", "c"}, nil},
		{[]string{"a", "c", "d"}, []string{"b"}}, // b evicted, d fetched
		{[]string{"a", "c", "d"}, nil},           // reported once
		{[]string{}, []string{"a", "c", "d"}},    // everything gone
	} {
		a.mu.Lock()
		got := a.evicted(step.cached)
		a.mu.Unlock()
		if !slices.Equal(got, step.want) {
			t.Fatalf("cached %v: evicted %v, want %v", step.cached, got, step.want)
		}
	}
}
