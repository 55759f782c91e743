package rehearsal

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestTracePasses(t *testing.T) {
	start := time.UnixMicro(5_000_000)
	got := tracePasses([]schedtrace.HubPass{
		{StartUs: 4_999_000, TookUs: 10, Placed: 1}, // before the start: dropped
		{StartUs: 5_000_000, TookUs: 2500, Placed: 3},
		{StartUs: 5_004_000, TookUs: 70},
		{StartUs: 5_003_000, TookUs: schedtrace.MaxLatencyMs*1000 + 5, Placed: 1}, // the clock stepped back; a stall beyond the bound
		{StartUs: 5_009_000, TookUs: -3, Placed: -1},
	}, start)
	want := []schedtrace.Pass{{AtUs: 0, TookUs: 2500, Placed: 3}, {AtUs: 3000, TookUs: schedtrace.MaxLatencyMs * 1000, Placed: 1},
		{AtUs: 4000, TookUs: 70}, {AtUs: 9000}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	tr := schedtrace.Trace{Judges: []schedtrace.Judge{{ID: "a", Slots: 1, Speed: 1}}, Passes: got}
	if err := tr.Validate(); err != nil {
		t.Fatalf("the trace refuses them: %v", err)
	}
}

func TestWritePassWindows(t *testing.T) {
	var b strings.Builder
	writePassWindows(&b, nil, 40)
	if b.Len() != 0 {
		t.Fatalf("without windows: %q", b.String())
	}
	writePassWindows(&b, []schedtrace.PassWindow{
		{FromMs: 0, Hub: schedtrace.PassStats{Placing: 300, Tasks: 900, TookMs: 20, Idle: 600, IdleMs: 5},
			Sim: schedtrace.PassStats{Placing: 200, Tasks: 900, TookMs: 30.25}},
		{FromMs: 30000, Hub: schedtrace.PassStats{Idle: 10, IdleMs: 1.5}},
	}, 40)
	md := b.String()
	for _, want := range []string{
		"| 0s (0s) | 300 / 200 | 3.0 / 4.5 | 20.0 / 30.2 | 600 / 0 | 5.0 / – | 30 % / 20 % |",
		"| 30s (20m0s) | 0 / 0 | – / – | – / – | 10 / 0 | 1.5 / – | 0 % / 0 % |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no row %q in\n%s", want, md)
		}
	}
}

// TestReadPassesPages: the reader reads page after page while they come
// full, starts again from 0 when the hub's sequence went back (a new
// hub), counts what the hub says it lost, and keeps the last error.
func TestReadPassesPages(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	answers := map[string]schedtrace.PassLog{
		"0":     {Next: schedtrace.PassLogPage, Passes: make([]schedtrace.HubPass, schedtrace.PassLogPage)},
		"20000": {Next: 20003, Lost: 0, Passes: make([]schedtrace.HubPass, 3)},
		// The next read: the hub restarted (its next went back to 5).
		"20003": {Next: 5},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after := r.URL.Query().Get("after")
		mu.Lock()
		asked = append(asked, after)
		mu.Unlock()
		if r.URL.Path != "/debug/passes" {
			http.NotFound(w, r)
			return
		}
		if after == "0" && len(asked) > 3 { // the new hub, from its start
			_ = json.NewEncoder(w).Encode(schedtrace.PassLog{Next: 5, Lost: 2, Passes: make([]schedtrace.HubPass, 3)})
			return
		}
		_ = json.NewEncoder(w).Encode(answers[after])
	}))
	defer srv.Close()
	port, err := strconv.Atoi(srv.URL[strings.LastIndexByte(srv.URL, ':')+1:])
	if err != nil {
		t.Fatal(err)
	}
	var p hubPasses
	p.read(context.Background(), port)
	if len(p.passes) != schedtrace.PassLogPage+3 || p.next != 20003 || p.err != nil {
		t.Fatalf("after the first read: %d passes, next %d, err %v; asked %v", len(p.passes), p.next, p.err, asked)
	}
	p.read(context.Background(), port)
	if len(p.passes) != schedtrace.PassLogPage+6 || p.next != 5 || p.lost != 2 || p.err != nil {
		t.Fatalf("after the new hub: %d passes, next %d, lost %d, err %v; asked %v", len(p.passes), p.next, p.lost, p.err, asked)
	}
	if want := []string{"0", "20000", "20003", "0"}; !reflect.DeepEqual(asked, want) {
		t.Fatalf("asked %v, want %v", asked, want)
	}
	srv.Close()
	p.read(context.Background(), port)
	if p.err == nil || len(p.passes) != schedtrace.PassLogPage+6 {
		t.Fatalf("a hub gone: err %v, %d passes", p.err, len(p.passes))
	}
}
