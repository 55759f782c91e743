package rehearsal

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
)

// A request that got no answer is reported with why (its error's cause,
// at the end of a text that starts with the URL): the 40× runs of
// 2026-12-07 had client transport errors whose rows said nothing.
func TestTransportFailuresSayWhy(t *testing.T) {
	// serve answers each connection with what do does to it after
	// reading the request.
	serve := func(do func(net.Conn)) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
						do(c)
					}
				}()
			}
		}()
		return "http://" + ln.Addr().String()
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + closed.Addr().String()
	closed.Close()
	hold := make(chan struct{})
	defer close(hold)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"code":"unavailable","message":"a backing service is unavailable"}}`))
	}))
	defer api.Close()

	tests := []struct {
		name, base, want string
	}{
		{"nothing listens", refused, "connection refused"},
		{"closed unanswered", serve(func(c net.Conn) { c.Close() }), "EOF"},
		{"reset", serve(func(c net.Conn) {
			_ = c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}), "connection reset"},
		{"no answer in time", serve(func(c net.Conn) { <-hold; c.Close() }), "timeout"},
		{"an answer", api.URL, "unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			a, _ := harness.NewClient(tc.base, netip.Addr{}).Request(ctx, http.MethodGet, "/api/problems/r-sum", nil, nil)
			if got := answerCode(a); got != tc.want {
				t.Errorf("code %q (status %d, %q), want %q", got, a.Status, a.Message, tc.want)
			}
		})
	}
	if got := transportKind("harness: subscribe refused: user:7: internal"); got != "" {
		t.Errorf("transportKind of an answer's text = %q, want none", got)
	}
}
