package lifecycle

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBackoffDelay(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		b    Backoff
		n    int
		want time.Duration
	}{
		{Backoff{Min: 100 * ms, Max: time.Second}, 0, 100 * ms},
		{Backoff{Min: 100 * ms, Max: time.Second}, 1, 200 * ms},
		{Backoff{Min: 100 * ms, Max: time.Second}, 3, 800 * ms},
		{Backoff{Min: 100 * ms, Max: time.Second}, 4, time.Second},
		{Backoff{Min: 100 * ms, Max: time.Second}, 1000, time.Second},
		{Backoff{Min: 50 * ms, Max: 50 * ms}, 5, 50 * ms},
		{Backoff{Min: 300 * ms, Max: 100 * ms}, 2, 300 * ms}, // Max below Min
		{Backoff{Min: 4 * time.Second}, 3, DefaultBackoff.Max},
		{Backoff{}, 0, DefaultBackoff.Min},
		{Backoff{}, 1, 2 * DefaultBackoff.Min},
	} {
		if got := tc.b.Delay(tc.n); got != tc.want {
			t.Errorf("%+v.Delay(%d) = %v, want %v", tc.b, tc.n, got, tc.want)
		}
	}
}

// journal records what steps did, in order.
type journal struct {
	mu sync.Mutex
	ev []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.ev = append(j.ev, s)
	j.mu.Unlock()
}

func (j *journal) get() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.ev)
}

// until is a step that runs until stopped and returns err then.
func (j *journal) until(name string, err error) func(context.Context) error {
	return func(ctx context.Context) error {
		j.add(name + " started")
		<-ctx.Done()
		j.add(name + " stopped")
		return err
	}
}

func TestRunDrainsInOrder(t *testing.T) {
	var j journal
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	delay := 150 * time.Millisecond
	go func() {
		done <- Run(ctx, nil,
			Step{Name: "registry", OnStop: func() { j.add("not ready") }, Run: j.until("registry", nil), Delay: delay},
			Step{Name: "http", Run: j.until("http", context.Canceled)}, // its own ctx error: a clean stop
			Step{Name: "jobs", Run: j.until("jobs", nil)},
		)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(j.get()) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(j.get()); n != 3 {
		t.Fatalf("steps did not all start: %v", j.get())
	}
	cancel()
	start := time.Now()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil after a stop by ctx", err)
	}
	if took := time.Since(start); took < delay {
		t.Fatalf("drain took %v, less than the %v delay", took, delay)
	}
	want := []string{"not ready", "registry stopped", "http stopped", "jobs stopped"}
	if got := j.get()[3:]; !slices.Equal(got, want) {
		t.Fatalf("drain = %v, want %v", got, want)
	}
}

func TestRunStopsWhenAStepFails(t *testing.T) {
	var j journal
	boom := errors.New("boom")
	late := errors.New("late")
	start := time.Now()
	err := Run(context.Background(), nil,
		Step{Name: "registry", Run: j.until("registry", nil), Delay: time.Hour},
		Step{Name: "http", Run: func(context.Context) error { return boom }},
		Step{Name: "jobs", Run: j.until("jobs", late)}, // an error while stopping comes second
	)
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want %v", err, boom)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the drain delay was not skipped after a failure: %v", took)
	}
	if ev := j.get(); !slices.Contains(ev, "registry stopped") || !slices.Contains(ev, "jobs stopped") {
		t.Fatalf("steps not stopped: %v", ev)
	}
}

func TestRunReturnsAnErrorWhileStopping(t *testing.T) {
	var j journal
	late := errors.New("shutdown timed out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, nil, Step{Name: "http", Run: j.until("http", late)}); !errors.Is(err, late) {
		t.Fatalf("Run = %v, want %v", err, late)
	}
}

func TestRunStopsWhenAStepReturns(t *testing.T) {
	var j journal
	called := false
	err := Run(context.Background(), nil,
		Step{Name: "hook", OnStop: func() { called = true }, Delay: time.Hour},
		Step{Name: "a", Run: func(context.Context) error { return nil }},
		Step{Name: "b", Run: j.until("b", nil)},
	)
	if err != nil || !called || !slices.Contains(j.get(), "b stopped") {
		t.Fatalf("Run = %v, hook called %v, journal %v; want nil, true, b stopped", err, called, j.get())
	}
}

func TestServeDrainsRequestsInFlight(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	inHandler := make(chan struct{})
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		close(inHandler)
		<-release
		_, _ = io.WriteString(w, "done")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(srv, ln, 5*time.Second)(ctx) }()

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	body := make(chan string, 1)
	go func() {
		res, err := client.Get("http://" + addr + "/slow")
		if err != nil {
			body <- "error: " + err.Error()
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		body <- string(b)
	}()
	<-inHandler
	cancel() // Shutdown starts with a request in flight
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break // the listener is closed
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting after the stop")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	if got := <-body; got != "done" {
		t.Fatalf("request in flight got %q, want done", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
}

func TestServeReportsAShutdownTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inHandler := make(chan struct{})
	release := make(chan struct{})
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(inHandler)
		<-release
	})}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(srv, ln, 50*time.Millisecond)(ctx) }()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	got := make(chan struct{})
	go func() {
		defer close(got)
		if res, err := client.Get("http://" + ln.Addr().String()); err == nil {
			res.Body.Close()
		}
	}()
	<-inHandler
	cancel()
	err = <-served
	close(release)
	<-got
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Serve = %v, want a shutdown deadline error", err)
	}
}

func TestRetry(t *testing.T) {
	tries := 0
	err := Retry(context.Background(), Backoff{Min: time.Millisecond, Max: 4 * time.Millisecond}, nil, "test",
		func(context.Context) error {
			if tries++; tries < 4 {
				return errors.New("not yet")
			}
			return nil
		})
	if err != nil || tries != 4 {
		t.Fatalf("Retry = %v after %d tries, want nil after 4", err, tries)
	}

	ctx, cancel := context.WithCancel(context.Background())
	tries = 0
	err = Retry(ctx, Backoff{Min: time.Millisecond}, nil, "test", func(context.Context) error {
		if tries++; tries == 3 {
			cancel()
		}
		return errors.New("never")
	})
	if !errors.Is(err, context.Canceled) || tries != 3 {
		t.Fatalf("Retry = %v after %d tries, want context.Canceled after 3", err, tries)
	}
}
