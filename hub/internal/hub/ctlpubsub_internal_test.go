package hub

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// TestEnqueueWakeDoesNotWaitForBrowserEvents: the browsers' pub/sub reader
// is stuck on a topic's event (a slow handler, a burst of thousands), and
// an enqueue's notice still reaches the hub and is timed: it comes on the
// hub's own connection. On one shared connection it waited behind the
// event.
func TestEnqueueWakeDoesNotWaitForBrowserEvents(t *testing.T) {
	env := testenv.Redis(t)
	reg := prometheus.NewRegistry()
	h, err := New(Config{Redis: env.Client, Names: env.Names, Metrics: reg, Logger: slog.New(slog.DiscardHandler),
		DispatchInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	const topic = "verdict-test-busy-topic"
	stuck, release := make(chan struct{}), make(chan struct{})
	h.ps.handler = func(channel, payload string) {
		if channel == topic {
			close(stuck)
			<-release
			return
		}
		h.onMessage(channel, payload)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	defer func() {
		close(release)
		cancel()
		<-done
	}()
	for deadline := time.Now().Add(5 * time.Second); h.Ready(ctx) != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("hub not ready in 5 s")
		}
	}
	if err := h.ps.subscribe(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Publish(ctx, topic, "x").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stuck:
	case <-time.After(5 * time.Second):
		t.Fatal("the topic's event never reached the browsers' reader")
	}
	err = h.q.Enqueue(ctx, queue.Task{Task: protocol.Task{
		TaskRef: protocol.TaskRef{SubmissionID: 9, Attempt: 1}, ProblemID: 1,
		TestData: protocol.TestData{Hash: "h", URL: "http://x/h"}, Language: "cpp17", Source: "int main(){}",
		Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 65536, OutputBytes: 1 << 20},
		Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: protocol.PriorityContest,
	}, UserID: 7})
	if err != nil {
		t.Fatal(err)
	}
	noticed := func() uint64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == obs.HubQueueNoticeSeconds {
				return mf.GetMetric()[0].GetHistogram().GetSampleCount()
			}
		}
		return 0
	}
	for deadline := time.Now().Add(5 * time.Second); noticed() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the enqueue's notice did not reach the hub while a browser event held the browsers' reader")
		}
	}
}
