package rehearsal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// INFO server, cpu, stats and commandstats as Redis 7.0 writes them
// (trimmed), CRLF line ends included.
const redisInfo = "# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:1834\r\n\r\n" +
	"# CPU\r\nused_cpu_sys:120.5\r\nused_cpu_user:161.25\r\nused_cpu_sys_children:0.000000\r\n\r\n" +
	"# Stats\r\ntotal_net_input_bytes:1048576\r\ntotal_net_output_bytes:3145728\r\ntotal_net_repl_input_bytes:0\r\n" +
	"latest_fork_usec:41250\r\ntotal_forks:5\r\n\r\n" +
	"# Persistence\r\naof_enabled:1\r\naof_rewrites:4\r\naof_delayed_fsync:2\r\n\r\n" +
	"# Commandstats\r\n" +
	"cmdstat_hscan:calls=400,usec=9000000,usec_per_call=22500.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_evalsha:calls=1414,usec=89746000,usec_per_call=63470.00,rejected_calls=1,failed_calls=9\r\n" +
	"cmdstat_xgroup|create:calls=3,usec=23,usec_per_call=7.67,rejected_calls=0,failed_calls=2\r\n" +
	"cmdstat_get:calls=466,usec=9000000,usec_per_call=19313.30,rejected_calls=0,failed_calls=0\r\n"

func TestParseRedisInfo(t *testing.T) {
	s, err := parseRedisInfo(redisInfo, 3)
	if err != nil {
		t.Fatal(err)
	}
	if s.Uptime != 1834*time.Second || s.CPU != 281750*time.Millisecond || s.NetIn != 1<<20 || s.NetOut != 3<<20 {
		t.Errorf("uptime %v, CPU %v, in %d, out %d", s.Uptime, s.CPU, s.NetIn, s.NetOut)
	}
	if s.Forks != 5 || s.LastFork != 41250*time.Microsecond || s.AOFRewrites != 4 || s.DelayedFsyncs != 2 {
		t.Errorf("forks %d, last %v, rewrites %d, delayed fsyncs %d", s.Forks, s.LastFork, s.AOFRewrites, s.DelayedFsyncs)
	}
	// Most time first, a tie by name; the top 3 only.
	want := []RedisCommand{
		{Name: "evalsha", Calls: 1414, Total: 89746 * time.Millisecond, Failed: 10},
		{Name: "get", Calls: 466, Total: 9 * time.Second},
		{Name: "hscan", Calls: 400, Total: 9 * time.Second},
	}
	if len(s.Commands) != len(want) {
		t.Fatalf("commands %+v, want %+v", s.Commands, want)
	}
	for i := range want {
		if s.Commands[i] != want[i] {
			t.Errorf("command %d: %+v, want %+v", i, s.Commands[i], want[i])
		}
	}

	all, err := parseRedisInfo(redisInfo, 10)
	if err != nil || len(all.Commands) != 4 || all.Commands[3].Name != "xgroup|create" || all.Commands[3].Failed != 2 {
		t.Errorf("all commands: %+v, %v", all.Commands, err)
	}
}

func TestParseRedisInfoErrors(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"no commandstats", "# Server\r\nuptime_in_seconds:3\r\n"},
		{"empty", ""},
		{"calls not a number", "cmdstat_get:calls=x,usec=3\r\n"},
		{"no usec", "cmdstat_get:calls=3\r\n"},
		{"failed not a number", "cmdstat_get:calls=3,usec=4,failed_calls=?\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseRedisInfo(tc.text, 5); err == nil {
				t.Fatal("no error")
			} else if tc.text == "" && !errors.Is(err, errNoCommandStats) {
				t.Fatalf("%v, want errNoCommandStats", err)
			}
		})
	}
}

// TestLatencyMonitor reads LATENCY LATEST's and LATENCY HISTORY's answers
// as go-redis returns them (RESP2: arrays of strings and integers).
func TestLatencyMonitor(t *testing.T) {
	latest := []any{
		[]any{"fork", int64(1764950000), int64(41), int64(96)},
		[]any{"command", int64(1764950100), int64(25), int64(25)},
	}
	names, err := latencyEvents(latest)
	if err != nil || len(names) != 2 || names[0] != "fork" || names[1] != "command" {
		t.Fatalf("events %q, %v", names, err)
	}
	h, err := latencyHistory("fork", []any{[]any{int64(1764950000), int64(96)}, []any{int64(1764950300), int64(41)}})
	want := []RedisStall{
		{Event: "fork", At: time.Unix(1764950000, 0), Latency: 96 * time.Millisecond},
		{Event: "fork", At: time.Unix(1764950300, 0), Latency: 41 * time.Millisecond},
	}
	if err != nil || len(h) != 2 || h[0] != want[0] || h[1] != want[1] {
		t.Fatalf("history %+v, %v", h, err)
	}
	for _, bad := range [][]any{{"fork"}, {[]any{}}, {[]any{int64(3)}}} {
		if _, err := latencyEvents(bad); err == nil {
			t.Errorf("LATENCY LATEST %v: no error", bad)
		}
	}
	for _, bad := range [][]any{{"x"}, {[]any{int64(3)}}, {[]any{"3", int64(4)}}, {[]any{int64(3), "4"}}} {
		if _, err := latencyHistory("fork", bad); err == nil {
			t.Errorf("LATENCY HISTORY %v: no error", bad)
		}
	}
}

func TestWriteRedis(t *testing.T) {
	s, err := parseRedisInfo(redisInfo, 15)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeRedis(&b, &Report{Redis: &s, Submitted: 100})
	md := b.String()
	for _, want := range []string{
		"It forked 5 times (4 rewrites of its append-only file; the local stack saves no snapshot), the last fork holding its thread 41.2 ms; a write waited for a late fsync of the file 2 times.",
		"Its latency monitor recorded nothing that held its thread over 20 ms.",
		"## Where Redis's time went",
		"Over 30m34s",
		"used 281.8 s of CPU; it read 1 MiB from its clients and wrote 3 MiB",
		"| `evalsha` | 1414 | 14.1 | 89.7 | 32 % | 63470 | 10 |",
		"| `xgroup\\|create` | 3 | 0.0 | 0.0 | 0 % | 8 | 2 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}

	// Stalls: by event, the longest first, each at its contest time.
	start := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	s.Stalls = []RedisStall{
		{Event: "command", At: start.Add(time.Minute), Latency: 25 * time.Millisecond},
		{Event: "fork", At: start.Add(10 * time.Second), Latency: 41 * time.Millisecond},
		{Event: "fork", At: start.Add(2 * time.Minute), Latency: 96 * time.Millisecond},
	}
	rep := &Report{Redis: &s, Submitted: 100, Start: start}
	rep.Config.Compress, rep.Config.ArrivalCompress = 10, 4
	b.Reset()
	writeRedis(&b, rep)
	md = b.String()
	for _, want := range []string{
		"events holding its thread over 20 ms",
		"| `fork` | 2 | 96 | 20m0s: 96, 1m40s: 41 |\n| `command` | 1 | 25 | 10m0s: 25 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}

	b.Reset()
	writeRedis(&b, &Report{RedisErr: "INFO: connection refused"})
	if !strings.Contains(b.String(), "None read: INFO: connection refused.") {
		t.Errorf("without stats:\n%s", b.String())
	}
}

// TestReadRedisStatsOfALocalRedis: a Redis the local stack starts records
// a command that held its thread beyond the threshold, and the report's
// reader finds it with its INFO (a real server: the answers' shapes are
// go-redis's, not this test's).
func TestReadRedisStatsOfALocalRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var srv *localsvc.Redis
	_, err := localsvc.OnFreePort(nil, func(port int) (err error) {
		srv, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: t.TempDir(), Port: port, AOF: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Proc().Stop(5 * time.Second) }()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	// A script that counts long enough to hold the thread past the
	// threshold, several times over on a slow machine.
	var took time.Duration
	for took < 3*localsvc.RedisLatencyThreshold {
		t0 := time.Now()
		if err := rdb.Eval(ctx, "local i = 0 while i < 3e7 do i = i + 1 end return i", nil).Err(); err != nil {
			t.Fatal(err)
		}
		took = time.Since(t0)
	}
	if err := rdb.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Fatal(err)
	}
	var s *RedisStats
	for {
		if s, err = readRedisStats(ctx, rdb); err != nil {
			t.Fatal(err)
		}
		if s.AOFRewrites > 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s.Forks < 1 || s.AOFRewrites != 1 || s.LastFork <= 0 {
		t.Errorf("forks %d, AOF rewrites %d, last fork %v; want the rewrite's fork", s.Forks, s.AOFRewrites, s.LastFork)
	}
	var command *RedisStall
	for i, st := range s.Stalls {
		if st.Event == "command" {
			command = &s.Stalls[i]
		}
	}
	if command == nil || command.Latency < localsvc.RedisLatencyThreshold || time.Since(command.At) > time.Minute {
		t.Fatalf("stalls %+v: want the script's, over %v, just now", s.Stalls, localsvc.RedisLatencyThreshold)
	}
}
