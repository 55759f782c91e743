package rehearsal

import (
	"reflect"
	"strings"
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
