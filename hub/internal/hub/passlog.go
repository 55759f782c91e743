package hub

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

// passLog keeps the dispatcher's last passes (Config.PassLog) for
// /debug/passes: a ring the dispatcher writes and a reader pages through
// by sequence number. A nil log keeps nothing.
type passLog struct {
	mu   sync.Mutex
	ring []schedtrace.HubPass
	next uint64 // the sequence number of the next pass added
}

func newPassLog(n int) *passLog {
	if n <= 0 {
		return nil
	}
	return &passLog{ring: make([]schedtrace.HubPass, n)}
}

// add logs a pass that started at start, took took and placed placed.
func (l *passLog) add(start time.Time, took time.Duration, placed int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.ring[l.next%uint64(len(l.ring))] = schedtrace.HubPass{StartUs: start.UnixMicro(), TookUs: took.Microseconds(), Placed: placed}
	l.next++
	l.mu.Unlock()
}

// after is the passes held with sequence numbers from after on, at most
// limit of them (the oldest), and how many from after on the ring no
// longer holds.
func (l *passLog) after(after uint64, limit int) schedtrace.PassLog {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := uint64(len(l.ring))
	first := after
	if oldest := l.next - min(l.next, n); first < oldest {
		first = oldest
	}
	first = min(first, l.next)
	last := min(l.next, first+uint64(limit))
	out := schedtrace.PassLog{Next: last, Lost: first - min(first, after), Passes: make([]schedtrace.HubPass, 0, last-first)}
	for s := first; s < last; s++ {
		out.Passes = append(out.Passes, l.ring[s%n])
	}
	return out
}

// PassLogHandler serves GET /debug/passes?after=N: the dispatcher's passes
// from sequence number N on (schedtrace.PassLog, JSON), at most
// schedtrace.PassLogPage per answer; its next is the N of the following
// read. 404 when the hub keeps
// no log (Config.PassLog 0). For the contest rehearsal's trace: mount it
// only where the listener is not public.
func (h *Hub) PassLogHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if h.passes == nil {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":"not_found","message":"the hub keeps no pass log (--pass-log 0)"}}` + "\n"))
			return
		}
		var after uint64
		if v := r.URL.Query().Get("after"); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":{"code":"validation","message":"after: not a sequence number","field":"after"}}` + "\n"))
				return
			}
			after = n
		}
		_ = json.NewEncoder(w).Encode(h.passes.after(after, schedtrace.PassLogPage))
	})
}
