package rehearsal

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// INFO server, cpu, stats and commandstats as Redis 7.0 writes them
// (trimmed), CRLF line ends included.
const redisInfo = "# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:1834\r\n\r\n" +
	"# CPU\r\nused_cpu_sys:120.5\r\nused_cpu_user:161.25\r\nused_cpu_sys_children:0.000000\r\n\r\n" +
	"# Stats\r\ntotal_net_input_bytes:1048576\r\ntotal_net_output_bytes:3145728\r\ntotal_net_repl_input_bytes:0\r\n\r\n" +
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

func TestWriteRedis(t *testing.T) {
	s, err := parseRedisInfo(redisInfo, 15)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeRedis(&b, &Report{Redis: &s, Submitted: 100})
	md := b.String()
	for _, want := range []string{
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

	b.Reset()
	writeRedis(&b, &Report{RedisErr: "INFO: connection refused"})
	if !strings.Contains(b.String(), "None read: INFO: connection refused.") {
		t.Errorf("without stats:\n%s", b.String())
	}
}
