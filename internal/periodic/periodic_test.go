package periodic

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestEveryRunsUntilFalse(t *testing.T) {
	var n atomic.Int32
	done := make(chan struct{})
	task := Every(time.Millisecond, func() bool {
		if n.Add(1) == 3 {
			close(done)
			return false
		}
		return true
	})
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("three runs did not happen")
	}
	time.Sleep(20 * time.Millisecond)
	if got := n.Load(); got != 3 {
		t.Errorf("%d runs, want 3 (none after false)", got)
	}
	task.Stop()
	task.Stop() // idempotent
}

// Stop joins a run under way and no run starts after it.
func TestStopJoinsARun(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var ended, runs atomic.Int32
	task := Every(time.Millisecond, func() bool {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
		ended.Add(1)
		return true
	})
	<-started
	stopped := make(chan struct{})
	go func() { task.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a run was under way")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	<-stopped
	if ended.Load() != 1 {
		t.Errorf("%d runs ended at Stop, want 1", ended.Load())
	}
	time.Sleep(20 * time.Millisecond)
	if runs.Load() != 1 {
		t.Errorf("%d runs, want none after Stop", runs.Load())
	}
}

func TestStopBeforeTheFirstRun(t *testing.T) {
	var runs atomic.Int32
	task := Every(10*time.Millisecond, func() bool { runs.Add(1); return true })
	task.Stop()
	time.Sleep(30 * time.Millisecond)
	if runs.Load() != 0 {
		t.Errorf("%d runs after Stop", runs.Load())
	}
	var none *Task
	none.Stop()
}

// EveryFrom runs first after its own delay, then every d after the run
// before it ended.
func TestEveryFromFirstApart(t *testing.T) {
	start := time.Now()
	runs := make(chan time.Duration, 2)
	task := EveryFrom(10*time.Millisecond, 300*time.Millisecond, func() bool {
		runs <- time.Since(start)
		return len(runs) < 2
	})
	defer task.Stop()
	first, second := <-runs, <-runs
	if first < 10*time.Millisecond || first >= 300*time.Millisecond {
		t.Fatalf("first run after %v, want from 10 ms and well before 300 ms", first)
	}
	if second-first < 300*time.Millisecond {
		t.Fatalf("second run %v after the first, want at least 300 ms", second-first)
	}
}
