package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tb := Table{Indent: "  ", Head: []string{"name", "n", "µs"}}
	tb.Add("alpha", "1", "12.5")
	tb.Add("b", "1,000", "3")
	var b bytes.Buffer
	tb.Write(&b)
	want := "" +
		"  name       n    µs\n" +
		"  ------------------\n" +
		"  alpha      1  12.5\n" +
		"  b      1,000     3\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{Ms(0), "0"},
		{Ms(412 * time.Microsecond), "0.412"},
		{Ms(1234567 * time.Nanosecond), "1.23"},
		{Ms(12345 * time.Microsecond), "12.3"},
		{Ms(1234 * time.Millisecond), "1234"},
		{PerSec(0.5249), "0.52"},
		{PerSec(9.999), "10.00"},
		{PerSec(10.4), "10"},
		{PerSec(15228.4), "15,228"},
		{Thousands(0), "0"},
		{Thousands(999), "999"},
		{Thousands(1000), "1,000"},
		{Thousands(1234567), "1,234,567"},
		{Thousands(-4096), "-4,096"},
		{Ratio(1, 4), "0.25"},
		{Ratio(2993, 1997), "1.50"},
		{Ratio(1, 0), "-"},
		{Ratio(0, 0), "-"},
		{Bytes(512), "512 B"},
		{Bytes(40.6 * 1024), "40.6 KiB"},
		{Bytes(402.3 * (1 << 20)), "402.3 MiB"},
		{pct(0.8), "80 %"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestWriteReports(t *testing.T) {
	lat := func(p50, p99 int) Summary {
		return Summary{N: 10, P50: time.Duration(p50) * time.Millisecond, P90: time.Duration(p99) * time.Millisecond, P99: time.Duration(p99) * time.Millisecond, Max: time.Duration(p99) * time.Millisecond}
	}
	e2e := E2EResult{
		Limit:    Limit{Compile: 800 * time.Millisecond, CompileWall: time.Second, Run: 200 * time.Millisecond, Cases: 20, Cores: 2},
		Capacity: 0.5, CapacityN: 9, InFlight: 6, Users: 24,
		Phases: []E2EPhase{{Fraction: 0.5, Offered: 0.25, Submitted: 5, Completed: 5, Rate: 0.25, Latency: lat(3000, 4000)}},
	}
	push := PushResult{Via: "nginx", HubNoFile: 20000, Levels: []PushLevel{{Conns: 10000, HubRSS: 400 << 20, HubPerConn: 40 * 1024,
		Latency: lat(900, 1400), Last: []time.Duration{1100 * time.Millisecond, 1400 * time.Millisecond}}}}
	web := WebResult{Workers: 16, OpenRate: 300, Targets: []WebTarget{
		{Name: "problem list", Via: "keepalive", Bytes: 442, Max: 3000},
		{Name: "problem list", Via: "no keepalive", Bytes: 442, Max: 2000},
		{Name: "problem list", Via: "static file", Bytes: 442, Max: 15000},
	}}
	var b bytes.Buffer
	WriteE2E(&b, e2e)
	WritePush(&b, push)
	WriteWeb(&b, web)
	out := b.String()
	for _, want := range []string{
		"1.000 s CPU per submission; 2 cores → 2.00 submissions/s",
		"0.50 submissions/s (9 verdicts counted) = 0.25 of the physical limit",
		"50 %", // the phase
		"10,000", "400.0 MiB", "40.0 KiB", "1100 / 1400",
		"problem list: max keepalive/no keepalive 1.50, keepalive/static 0.20",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
