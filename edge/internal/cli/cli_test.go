package cli_test

import (
	"errors"
	"flag"
	"io"
	"path/filepath"
	"slices"
	"strings"
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
		// errHas is what a failure's message must contain (the flag).
		errHas string
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
		{name: "limit defaults", check: func(t *testing.T, o cli.Options) {
			n := o.Nginx
			if n.LoginRate != "600r/m" || n.LoginBurst != 300 || n.SubmitRate != "600r/m" || n.SubmitBurst != 300 ||
				n.RegisterRate != "60r/m" || n.RegisterBurst != 300 || n.TrustedNetworks != nil {
				t.Fatalf("limits: login %s/%d submit %s/%d register %s/%d trusted %q", n.LoginRate, n.LoginBurst,
					n.SubmitRate, n.SubmitBurst, n.RegisterRate, n.RegisterBurst, n.TrustedNetworks)
			}
		}},
		{name: "limit flags", args: []string{"--login-rate", "20r/s", "--login-burst", "1000", "--register-rate", "10r/m",
			"--register-burst", "50", "--trusted-networks", "192.0.2.0/24, 2001:db8::/32,,10.1.2.3/32"},
			check: func(t *testing.T, o cli.Options) {
				n := o.Nginx
				if n.LoginRate != "20r/s" || n.LoginBurst != 1000 || n.RegisterRate != "10r/m" || n.RegisterBurst != 50 ||
					!slices.Equal(n.TrustedNetworks, []string{"192.0.2.0/24", "2001:db8::/32", "10.1.2.3/32"}) {
					t.Fatalf("limits: %+v", n)
				}
			}},
		{name: "limit env", env: map[string]string{"VERDICT_EDGE_TRUSTED_NETWORKS": "10.0.0.0/8", "VERDICT_EDGE_SUBMIT_BURST": "900",
			"VERDICT_EDGE_REGISTER_RATE": "2r/s"},
			check: func(t *testing.T, o cli.Options) {
				n := o.Nginx
				if !slices.Equal(n.TrustedNetworks, []string{"10.0.0.0/8"}) || n.SubmitBurst != 900 || n.RegisterRate != "2r/s" {
					t.Fatalf("limits from env: %+v", n)
				}
			}},
		{name: "trusted flag beats env", args: []string{"--trusted-networks", "192.0.2.0/24"},
			env: map[string]string{"VERDICT_EDGE_TRUSTED_NETWORKS": "10.0.0.0/8"},
			check: func(t *testing.T, o cli.Options) {
				if !slices.Equal(o.Nginx.TrustedNetworks, []string{"192.0.2.0/24"}) {
					t.Fatalf("trusted %q", o.Nginx.TrustedNetworks)
				}
			}},
		{name: "trusted not a CIDR", args: []string{"--trusted-networks", "10.0.0.0/8,campus"}, fail: true, errHas: `--trusted-networks "campus"`},
		{name: "trusted bare address", args: []string{"--trusted-networks", "10.0.0.1"}, fail: true, errHas: `--trusted-networks "10.0.0.1"`},
		{name: "trusted bad env", env: map[string]string{"VERDICT_EDGE_TRUSTED_NETWORKS": "10.0.0.0/40"}, fail: true, errHas: "--trusted-networks"},
		{name: "bad register rate", args: []string{"--register-rate", "5r/h"}, fail: true, errHas: "RegisterRate"},
		{name: "negative register burst", args: []string{"--register-burst", "-1"}, fail: true, errHas: "RegisterBurst"},
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
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("Parse err = %v, want it to name %s", err, tc.errHas)
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
