package rehearsal

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
)

// The staff's unfreeze is retried like a human clicking again: a lost or
// 503 answer once left every browser on the frozen board at the end of a
// full rehearsal. A 4xx is not retried.
func TestUnfreezeRetriesLikeStaff(t *testing.T) {
	for _, tc := range []struct {
		name      string
		answers   []int // statuses of the tries; the last repeats
		unfrozen  bool
		tries     int32
		failsSeen int
	}{
		{"first try", []int{200}, true, 1, 0},
		{"503 then 200", []int{503, 503, 200}, true, 3, 2},
		{"403 is final", []int{403}, false, 1, 0},
		{"always 503", []int{503}, false, 8, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tries atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				_, _ = io.Copy(io.Discard, req.Body)
				n := int(tries.Add(1))
				st := tc.answers[min(n, len(tc.answers))-1]
				w.Header().Set("Content-Type", "application/json")
				if st == http.StatusServiceUnavailable {
					w.Header().Set("Retry-After", "1")
				}
				w.WriteHeader(st)
				if st == 200 {
					_, _ = io.WriteString(w, `{"unfrozen":true}`)
				} else {
					_, _ = io.WriteString(w, `{"error":{"code":"x","message":"no"}}`)
				}
			}))
			defer srv.Close()
			r := &run{
				cfg:      Config{Out: io.Discard},
				m:        newMetrics(),
				admin:    harness.NewClient(srv.URL, netip.Addr{}),
				contest:  "c",
				freezeAt: time.Now(),
				start:    time.Now(),
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := r.unfreeze(ctx)
			if (err == nil) != tc.unfrozen || r.unfrozen.Load() != tc.unfrozen {
				t.Fatalf("err %v, unfrozen %v; want unfrozen %v", err, r.unfrozen.Load(), tc.unfrozen)
			}
			if got := tries.Load(); got != tc.tries {
				t.Errorf("%d tries, want %d", got, tc.tries)
			}
			unexpected, _, _ := r.m.failures()
			n := 0
			for _, f := range unexpected {
				n += f.N
			}
			if n != tc.failsSeen {
				t.Errorf("%d failures recorded, want %d", n, tc.failsSeen)
			}
		})
	}
}
