package cli

import (
	"bytes"
	"errors"
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/hub/internal/sched"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(Options) bool
		err   bool
	}{
		{"defaults", nil, nil, func(o Options) bool {
			return o.Listen == "127.0.0.1:8090" && o.Advertise == o.Listen && o.Policy == "default" &&
				o.Heartbeat == 3*time.Second && o.LogFormat == "json" && o.Names().Prefix() == "verdict" && o.Redis.PoolSize == RedisPool
		}, false},
		{"redis pool by env", nil, map[string]string{"VERDICT_HUB_REDIS_POOL": "16"}, func(o Options) bool { return o.Redis.PoolSize == 16 }, false},
		{"stack command line", []string{"--listen", "127.0.0.1:8090", "--redis", "127.0.0.1:16379", "--listen-fd", "3"},
			map[string]string{"VERDICT_LOG_FORMAT": "text"}, func(o Options) bool {
				return o.Redis.Addrs[0] == "127.0.0.1:16379" && o.LogFormat == "text" && o.ListenFD == 3
			}, false},
		{"listen fd on standard output", []string{"--listen-fd", "1"}, nil, nil, true},
		{"env fallback", nil, map[string]string{"VERDICT_HUB_POLICY": "guide", "VERDICT_HUB_REDIS_DB": "4",
			"VERDICT_HUB_HEARTBEAT": "1s", "VERDICT_HUB_ALLOWED_ORIGINS": "a.example, b.example"}, func(o Options) bool {
			return o.Policy == "guide" && o.Redis.DB == 4 && o.Heartbeat == time.Second && len(o.Origins) == 2
		}, false},
		{"redis cluster by env", nil, map[string]string{"VERDICT_HUB_REDIS": "10.0.0.1:7000,10.0.0.2:7000"}, func(o Options) bool {
			return o.Redis.Mode() == "cluster" && len(o.Redis.Addrs) == 2 && o.Names().Prefix() == "{verdict}"
		}, false},
		{"redis sentinel", []string{"--redis", "s1:26379,s2:26379", "--redis-master", "oj"}, nil, func(o Options) bool {
			return o.Redis.Mode() == "sentinel" && o.Names().Prefix() == "verdict"
		}, false},
		{"redis cluster with a db", []string{"--redis-cluster", "--redis-db", "2"}, nil, nil, true},
		{"flag beats env", []string{"--policy", "default"}, map[string]string{"VERDICT_HUB_POLICY": "guide"},
			func(o Options) bool { return o.Policy == "default" }, false},
		{"unknown policy", []string{"--policy", "round_robin"}, nil, nil, true},
		{"wildcard without advertise", []string{"--listen", ":8090"}, nil, nil, true},
		{"wildcard with advertise", []string{"--listen", ":8090", "--advertise", "10.0.0.5:8090"}, nil,
			func(o Options) bool { return o.Advertise == "10.0.0.5:8090" }, false},
		{"lease too short", []string{"--lease", "1s"}, nil, nil, true},
		{"bad env value", nil, map[string]string{"VERDICT_HUB_REDIS_DB": "x"}, nil, true},
		{"bad log level", []string{"--log-level", "loud"}, nil, nil, true},
		{"stray argument", []string{"serve"}, nil, nil, true},
		{"warm before by default", nil, nil, func(o Options) bool {
			return o.WarmBefore == 10*time.Minute && o.HubWarmBefore() == 10*time.Minute && o.WarmInterval == 5*time.Second
		}, false},
		{"warm before by env", nil, map[string]string{"VERDICT_HUB_WARM_BEFORE": "30m"}, func(o Options) bool {
			return o.HubWarmBefore() == 30*time.Minute
		}, false},
		{"warm before 0 is off", []string{"--warm-before", "0"}, nil, func(o Options) bool { return o.HubWarmBefore() < 0 }, false},
		{"negative warm before", []string{"--warm-before", "-1m"}, nil, nil, true},
		{"reserve by default", nil, nil, func(o Options) bool { return o.Reserve == 0.125 && o.HubReserve() == 0.125 }, false},
		{"reserve by env", nil, map[string]string{"VERDICT_HUB_DISPATCH_RESERVE": "0.25"}, func(o Options) bool { return o.HubReserve() == 0.25 }, false},
		{"reserve 0 is none", []string{"--dispatch-reserve", "0"}, nil, func(o Options) bool { return o.HubReserve() < 0 }, false},
		{"negative reserve", []string{"--dispatch-reserve", "-0.1"}, nil, nil, true},
		{"reserve of every slot", []string{"--dispatch-reserve", "1"}, nil, nil, true},
		{"browser reads by default", nil, nil, func(o Options) bool { return o.BrowserReads == 0 }, false},
		{"browser reads by env", nil, map[string]string{"VERDICT_HUB_BROWSER_READS": "40"}, func(o Options) bool { return o.BrowserReads == 40 }, false},
		{"browser reads of the whole pool", []string{"--browser-reads", "64"}, nil, nil, true},
		{"browser reads beyond a smaller pool", []string{"--redis-pool", "8", "--browser-reads", "8"}, nil, nil, true},
		{"negative browser reads", []string{"--browser-reads", "-1"}, nil, nil, true},
		{"no pass log by default", nil, nil, func(o Options) bool { return o.PassLog == 0 }, false},
		{"pass log by env", nil, map[string]string{"VERDICT_HUB_PASS_LOG": "65536"}, func(o Options) bool { return o.PassLog == 65536 }, false},
		{"negative pass log", []string{"--pass-log", "-1"}, nil, nil, true},
		{"pass log beyond the bound", []string{"--pass-log", "1048577"}, nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse(tc.args, func(k string) string { return tc.env[k] }, &bytes.Buffer{})
			if tc.err {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("err = %v, want ErrUsage", err)
				}
				return
			}
			if err != nil || !tc.check(o) {
				t.Fatalf("Parse = %+v, %v", o, err)
			}
		})
	}
}

// TestParseRefusesLabPolicies: the scheduling lab's baselines are not the
// hub's to run, by flag or by environment, and the error names the
// policies it does run.
func TestParseRefusesLabPolicies(t *testing.T) {
	for _, name := range []string{"pull", "chbl", "window_swrr", "random", "least_conn"} {
		for _, by := range []struct {
			how  string
			args []string
			env  map[string]string
		}{
			{"flag", []string{"--policy", name}, nil},
			{"env", nil, map[string]string{"VERDICT_HUB_POLICY": name}},
		} {
			t.Run(name+" by "+by.how, func(t *testing.T) {
				_, err := Parse(by.args, func(k string) string { return by.env[k] }, &bytes.Buffer{})
				if !errors.Is(err, ErrUsage) || !errors.Is(err, sched.ErrUnknownPolicy) {
					t.Fatalf("err = %v, want ErrUsage and sched.ErrUnknownPolicy", err)
				}
				msg := err.Error()
				for _, want := range append([]string{"--policy", strconv.Quote(name), "simulator"}, sched.Names()...) {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not name %q", msg, want)
					}
				}
			})
		}
	}
	for _, name := range sched.Names() {
		if o, err := Parse([]string{"--policy", name}, func(string) string { return "" }, &bytes.Buffer{}); err != nil {
			t.Fatalf("--policy %s: %v", name, err)
		} else if p, err := o.SchedPolicy(); err != nil || p.Name() != name {
			t.Fatalf("--policy %s built %v, %v", name, p, err)
		}
	}
}

func TestHelpNamesEnvironment(t *testing.T) {
	var out bytes.Buffer
	_, err := Parse([]string{"-h"}, func(string) string { return "" }, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	for _, want := range []string{"VERDICT_HUB_LISTEN", "VERDICT_HUB_REDIS_PREFIX", "VERDICT_HUB_POLICY", "VERDICT_HUB_LEASE", "VERDICT_HUB_HEARTBEAT", "VERDICT_HUB_WARM_BEFORE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--help does not mention %s", want)
		}
	}
}
