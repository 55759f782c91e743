package hub

import (
	"testing"
	"time"
)

func TestNoticeTimes(t *testing.T) {
	var n noticeTimes
	enq := time.UnixMilli(1796223600123)
	read := enq.Add(4 * time.Millisecond)
	if _, ok := n.take(1, enq); ok {
		t.Fatal("an empty set took a notice")
	}
	n.add(1, enq, read)
	n.add(2, enq, read.Add(time.Millisecond))
	if _, ok := n.take(1, enq.Add(time.Millisecond)); ok {
		t.Fatal("another enqueue of the same submission (a rejudge's) took the first one's notice")
	}
	if got, ok := n.take(1, enq); !ok || !got.Equal(read) {
		t.Fatalf("take = %v, %v; want %v", got, ok, read)
	}
	if _, ok := n.take(1, enq); ok {
		t.Fatal("a notice was taken twice")
	}
	if n.len() != 1 {
		t.Fatalf("%d remembered; want 1 (submission 2's)", n.len())
	}
}

// What no pass takes (placed before its notice came, or by another hub)
// does not pile up: the old go first, and if the young are too many,
// all of them.
func TestNoticeTimesBounded(t *testing.T) {
	start := time.UnixMilli(1796223600000)
	var n noticeTimes
	for i := range perEnqueueMax {
		n.add(int64(i+1), start, start)
	}
	later := start.Add(perEnqueueKeep + time.Second)
	n.add(1e9, later, later)
	if n.len() != 1 {
		t.Fatalf("%d remembered after the old ones went; want 1", n.len())
	}
	if _, ok := n.take(1e9, later); !ok {
		t.Fatal("the new notice was lost with the old ones")
	}

	var y noticeTimes
	for i := range perEnqueueMax {
		y.add(int64(i+1), start, start)
	}
	y.add(1e9, start, start.Add(time.Second)) // all young: cleared
	if y.len() != 1 {
		t.Fatalf("%d remembered; want 1 (the set cleared, then the new one)", y.len())
	}
	for i := range 3 * perEnqueueMax {
		y.add(int64(i+1), start, start)
		if y.len() > perEnqueueMax {
			t.Fatalf("%d remembered, more than %d", y.len(), perEnqueueMax)
		}
	}
}
