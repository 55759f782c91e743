package server

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// TestDrainOrder: on stop the node first fails /readyz and leaves the
// registry while still serving (the drain delay, for the edge to stop
// routing here), and only then closes its listener.
func TestDrainOrder(t *testing.T) {
	const delay = time.Second
	e := newEnv(t, func(c *Config) { c.DrainDelay = delay })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, ln) }()
	registered := func() bool {
		m, _, err := registry.Live(context.Background(), e.rdb, e.names, rkeys.RoleWeb, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return len(m) == 1
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	readyz := func() int {
		res, err := client.Get("http://" + addr + "/readyz")
		if err != nil {
			return 0 // not listening
		}
		res.Body.Close()
		return res.StatusCode
	}
	deadline := time.Now().Add(5 * time.Second)
	for !registered() || readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("node never registered and ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := time.Now()
	cancel()
	for registered() {
		if time.Since(stopped) > delay/2 {
			t.Fatal("still registered well into the drain")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := readyz(); code != http.StatusServiceUnavailable || time.Since(stopped) >= delay {
		t.Fatalf("during the drain delay /readyz = %d after %v, want 503 within %v", code, time.Since(stopped), delay)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return")
	}
	if took := time.Since(stopped); took < delay {
		t.Fatalf("Serve returned %v after the stop, before the %v drain delay", took, delay)
	}
	if code := readyz(); code != 0 {
		t.Fatalf("still serving after the drain: /readyz %d", code)
	}
}
