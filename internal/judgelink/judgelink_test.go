package judgelink_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/judgelink"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// The reconnect policy: delays double from Min to Max, reset after a
// welcomed session, a drain's retry-after replaces one delay, and a stop
// code ends the loop.
func TestReconnectBacksOffAndStops(t *testing.T) {
	var waits []time.Duration
	type step struct {
		connected bool
		err       error
	}
	steps := []step{
		{false, errors.New("refused")},   // wait Min
		{false, errors.New("refused")},   // 2 Min
		{false, errors.New("refused")},   // 4 Min = Max
		{false, errors.New("refused")},   // Max
		{true, errors.New("dropped")},    // reset: Min
		{true, errors.New("hub drains")}, // retry-after
		{false, &judgelink.StopError{Code: protocol.CloseBadToken, Reason: "bad token"}},
	}
	i := 0
	retryAfter := time.Duration(0)
	r := judgelink.Reconnect{
		Min: time.Millisecond, Max: 4 * time.Millisecond,
		Jitter: func(d time.Duration) time.Duration { waits = append(waits, d); return d },
		RetryAfter: func() time.Duration {
			ra := retryAfter
			retryAfter = 0
			return ra
		},
	}
	err := r.Run(context.Background(), func(context.Context) (bool, error) {
		s := steps[i]
		i++
		if i == 6 {
			retryAfter = 7 * time.Millisecond
		}
		return s.connected, s.err
	})
	var stop *judgelink.StopError
	if !errors.As(err, &stop) || stop.Code != protocol.CloseBadToken {
		t.Fatalf("Run = %v, want the bad_token StopError", err)
	}
	if !strings.Contains(err.Error(), "check the judge id and token") {
		t.Fatalf("StopError %q gives no hint", err)
	}
	// The last two: the reset delay, replaced by the retry-after plus
	// jitter(Min).
	want := []time.Duration{1, 2, 4, 4, 1, 1, 1}
	if len(waits) != len(want) {
		t.Fatalf("waits %v, want %v (ms)", waits, want)
	}
	for k := range want {
		if waits[k] != want[k]*time.Millisecond {
			t.Fatalf("waits %v, want %v (ms)", waits, want)
		}
	}
}

func TestDrainedAfterOwnDrainIsNoError(t *testing.T) {
	drained := &judgelink.StopError{Code: protocol.CloseDrained, Reason: "drained"}
	for _, tc := range []struct {
		draining bool
		want     bool // a StopError comes back
	}{{true, false}, {false, true}} {
		r := judgelink.Reconnect{Min: time.Millisecond, Max: time.Millisecond, Draining: func() bool { return tc.draining }}
		err := r.Run(context.Background(), func(context.Context) (bool, error) { return true, drained })
		if (err != nil) != tc.want {
			t.Errorf("draining %v: Run = %v", tc.draining, err)
		}
	}
}

func TestRunEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := judgelink.Reconnect{Min: time.Hour, Max: time.Hour}.Run(ctx, func(context.Context) (bool, error) {
		n++
		cancel()
		return false, errors.New("down")
	})
	if err != nil || n != 1 {
		t.Fatalf("Run = %v after %d sessions, want nil after 1", err, n)
	}
}

func TestJitterStaysInRange(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 2, time.Second} {
		for range 100 {
			if j := judgelink.Jitter(d); j < d/2 || j > d {
				t.Fatalf("Jitter(%v) = %v, outside [d/2, d]", d, j)
			}
		}
	}
}

func TestDispatchCallsTheHandlerOfEachType(t *testing.T) {
	var got []string
	h := judgelink.Handlers{
		Task:      func(protocol.Task) { got = append(got, "task") },
		BadTask:   func(protocol.Envelope, error) { got = append(got, "bad task") },
		Evict:     func(protocol.Evict) { got = append(got, "evict") },
		Prefetch:  func(protocol.Prefetch) { got = append(got, "prefetch") },
		Drain:     func(protocol.Drain) { got = append(got, "drain") },
		Cancel:    func(protocol.Cancel) { got = append(got, "cancel") },
		ResultAck: func(protocol.ResultAck) { got = append(got, "ack") },
	}
	for _, env := range []protocol.Envelope{
		{Type: protocol.TypeTask, Data: []byte(`{"submission_id":1}`)}, // does not validate
		{Type: protocol.TypeEvict, Data: []byte(`{"problem_id":3}`)},
		{Type: protocol.TypeCancel, Data: []byte(`{}`)},                    // invalid: dropped
		{Type: protocol.TypeDrain, Data: []byte(`{"retry_after_ms":"x"}`)}, // still a drain
		{Type: protocol.TypeResultAck, Data: []byte(`{"submission_id":1,"attempt":1}`)},
		{Type: protocol.TypeWelcome, Data: []byte(`{}`)},
	} {
		h.Dispatch(env)
	}
	want := "bad task,evict,drain,ack"
	if strings.Join(got, ",") != want {
		t.Fatalf("handled %v, want %s", got, want)
	}
}
