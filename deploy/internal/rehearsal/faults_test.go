package rehearsal

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// A fault with an aftermath (the web node down for faultWebDownFor) must
// not hold back the plan's later faults: each starts at its own time.
// The first fault here returns only once the last has started, so played
// one after another they would wait for each other until the deadline.
func TestPlayFaultsStartsEachAtItsTime(t *testing.T) {
	faults := []Fault{{At: 0, Kind: FaultKillWeb}, {At: time.Millisecond, Kind: FaultKillJudge}, {At: 2 * time.Millisecond, Kind: FaultRedis}}
	start := time.Now()
	at := func(d time.Duration) time.Time { return start.Add(d) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lastStarted := make(chan struct{})
	var mu sync.Mutex
	var played []FaultKind
	playFaults(ctx, faults, at, func(ctx context.Context, f Fault) {
		mu.Lock()
		played = append(played, f.Kind)
		mu.Unlock()
		switch f.Kind {
		case FaultKillWeb:
			select { // down until the others have come
			case <-lastStarted:
			case <-ctx.Done():
			}
		case FaultRedis:
			close(lastStarted)
		}
	})
	if ctx.Err() != nil {
		t.Fatalf("the faults waited for each other: %v played by the deadline", played)
	}
	// Each in a goroutine of its own: the order they record themselves in
	// is the scheduler's.
	slices.Sort(played)
	if want := []FaultKind{FaultKillJudge, FaultKillWeb, FaultRedis}; !slices.Equal(played, want) {
		t.Fatalf("played %v, want each of the three once", played)
	}
}

// A cancelled rehearsal plays no fault still due, and playFaults returns
// once the ones started have.
func TestPlayFaultsStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	var played []FaultKind
	done := make(chan struct{})
	go func() {
		defer close(done)
		playFaults(ctx, []Fault{{At: 0, Kind: FaultKillWeb}, {At: time.Hour, Kind: FaultRedis}},
			func(d time.Duration) time.Time { return start.Add(d) },
			func(ctx context.Context, f Fault) {
				played = append(played, f.Kind) // one goroutine at a time here: the second never starts
				cancel()
				<-ctx.Done()
			})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("playFaults did not return after the cancel")
	}
	if len(played) != 1 || played[0] != FaultKillWeb {
		t.Errorf("played %v, want only the fault already due", played)
	}
}
