package hub

import (
	"slices"
	"testing"
)

// TestHeartbeatEvictionsPruneTheCacheView: the hashes a heartbeat lists
// as evicted leave the hub's view of the judge's cache (the affinity view
// the policy reads through hasData, and the confirmed holds), except the
// data of a task still assigned to the judge, which it fetches again.
func TestHeartbeatEvictionsPruneTheCacheView(t *testing.T) {
	tests := []struct {
		name     string
		cached   []string
		assigned []string // data of the tasks assigned to the judge
		evicted  []string
		want     []string // cached afterwards
	}{
		{"an eviction leaves the view", []string{"a", "b", "c"}, nil, []string{"b"}, []string{"a", "c"}},
		{"several", []string{"a", "b", "c"}, nil, []string{"c", "a"}, []string{"b"}},
		{"nothing evicted", []string{"a"}, nil, nil, []string{"a"}},
		{"unknown hashes are ignored", []string{"a"}, nil, []string{"z"}, []string{"a"}},
		{"the data of an assigned task stays", []string{"a", "b"}, []string{"b"}, []string{"a", "b"}, []string{"b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := &judgeConn{cached: map[string]bool{}, holds: map[string]bool{}, assigned: map[int64]*assignment{}}
			for _, h := range tc.cached {
				j.cached[h], j.holds[h] = true, true
			}
			for i, h := range tc.assigned {
				j.assigned[int64(i+1)] = &assignment{attempt: 1, hash: h}
			}
			j.noteEvicted(tc.evicted)
			var got, held []string
			for h := range j.cached {
				if j.hasData(h) {
					got = append(got, h)
				}
			}
			for h := range j.holds {
				held = append(held, h)
			}
			slices.Sort(got)
			slices.Sort(held)
			if !slices.Equal(got, tc.want) || !slices.Equal(held, tc.want) {
				t.Fatalf("after evicting %v: cached %v, holds %v, want %v", tc.evicted, got, held, tc.want)
			}
		})
	}
}
