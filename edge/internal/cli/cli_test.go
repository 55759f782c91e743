package cli_test

import (
	"errors"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/edge/internal/cli"
)

func TestParse(t *testing.T) {
	cwd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, o cli.Options)
		fail  bool
	}{
		{name: "defaults", check: func(t *testing.T, o cli.Options) {
			if o.Redis.Addrs[0] != "127.0.0.1:6379" || o.Nginx.Listen != "127.0.0.1:8080" || !o.ManageNginx ||
				o.PollInterval != time.Second || o.Nginx.ClientMaxBodySize != "65m" || o.Names().Prefix() != "verdict" {
				t.Fatalf("defaults: %+v", o)
			}
			if o.Nginx.StaticDir != filepath.Join(cwd, "frontend/dist") {
				t.Fatalf("static dir %q not made absolute", o.Nginx.StaticDir)
			}
		}},
		{name: "flags", args: []string{"--redis", "10.0.0.9:6380", "--redis-db", "3", "--listen", "*:80",
			"--manage-nginx=false", "--poll", "250ms", "--real-ip-from", "10.0.0.0/8, 192.0.2.1", "--prefix", "t1"},
			check: func(t *testing.T, o cli.Options) {
				if o.Redis.Addrs[0] != "10.0.0.9:6380" || o.Redis.DB != 3 || o.Nginx.Listen != "*:80" || o.ManageNginx ||
					o.PollInterval != 250*time.Millisecond || o.Names().Prefix() != "t1" ||
					!slices.Equal(o.Nginx.RealIPFrom, []string{"10.0.0.0/8", "192.0.2.1"}) {
					t.Fatalf("flags: %+v", o)
				}
			}},
		{name: "env", env: map[string]string{"VERDICT_EDGE_LISTEN": "127.0.0.1:9999", "VERDICT_EDGE_MANAGE_NGINX": "false",
			"VERDICT_NGINX": "/opt/nginx", "VERDICT_LOG_FORMAT": "text", "VERDICT_EDGE_RUNTIME_DIR": "rt"},
			check: func(t *testing.T, o cli.Options) {
				if o.Nginx.Listen != "127.0.0.1:9999" || o.ManageNginx || o.NginxBin != "/opt/nginx" ||
					o.LogFormat != "text" || o.Nginx.RuntimeDir != filepath.Join(cwd, "rt") {
					t.Fatalf("env: %+v", o)
				}
			}},
		{name: "flag beats env", args: []string{"--listen", "127.0.0.1:1"}, env: map[string]string{"VERDICT_EDGE_LISTEN": "127.0.0.1:2",
			"VERDICT_EDGE_NGINX": "/a", "VERDICT_NGINX": "/b"},
			check: func(t *testing.T, o cli.Options) {
				if o.Nginx.Listen != "127.0.0.1:1" || o.NginxBin != "/a" {
					t.Fatalf("precedence: listen %q nginx %q", o.Nginx.Listen, o.NginxBin)
				}
			}},
		{name: "keepalive and hold off", args: []string{"--keepalive", "0", "--hold-last", "0"},
			check: func(t *testing.T, o cli.Options) {
				if o.Nginx.Keepalive != -1 || o.HoldLast != -1 {
					t.Fatalf("keepalive %d hold %v: want -1 (off)", o.Nginx.Keepalive, o.HoldLast)
				}
			}},
		{name: "keepalive and hold defaults", check: func(t *testing.T, o cli.Options) {
			if o.Nginx.Keepalive != 32 || o.HoldLast != time.Minute {
				t.Fatalf("keepalive %d hold %v", o.Nginx.Keepalive, o.HoldLast)
			}
		}},
		{name: "bad env", env: map[string]string{"VERDICT_EDGE_POLL": "soon"}, fail: true},
		{name: "bad listen", args: []string{"--listen", "example.com:80"}, fail: true},
		{name: "bad rate", args: []string{"--login-rate", "lots"}, fail: true},
		{name: "bad log format", args: []string{"--log-format", "xml"}, fail: true},
		{name: "extra arg", args: []string{"serve"}, fail: true},
		{name: "unknown flag", args: []string{"--nope"}, fail: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := cli.Parse(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.fail {
				if !errors.Is(err, cli.ErrUsage) {
					t.Fatalf("Parse err = %v, want ErrUsage", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tc.check(t, o)
		})
	}
	if _, err := cli.Parse([]string{"-h"}, func(string) string { return "" }, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}
