package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cwd, _ := filepath.Abs(".")
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, o Options)
		err   string
	}{
		{name: "serve defaults", args: []string{"--mysql", "u@/db"}, check: func(t *testing.T, o Options) {
			if o.Command != CmdServe || o.Listen != "127.0.0.1:8081" || o.Redis.Addrs[0] != "127.0.0.1:6379" ||
				o.Names().Prefix() != "verdict" || o.LogFormat != "json" || o.SessionTTL != 7*24*time.Hour ||
				o.BlobDir != filepath.Join(cwd, "blobs") {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "stack serve line", args: []string{"--listen", "127.0.0.1:9001", "--mysql", "u:p@tcp(127.0.0.1:3306)/verdict?parseTime=true",
			"--redis", "127.0.0.1:6380", "--blob-dir", "/x/blobs", "--listen-fd", "3"},
			env: map[string]string{"VERDICT_LOG_FORMAT": "text"},
			check: func(t *testing.T, o Options) {
				if o.Listen != "127.0.0.1:9001" || o.Redis.Addrs[0] != "127.0.0.1:6380" || o.BlobDir != "/x/blobs" || o.LogFormat != "text" ||
					o.ListenFD != 3 {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "stack demo line", args: []string{"demo", "--mysql", "u@/db", "--redis", "h:1", "--blob-dir", "/b",
			"--logins", "/s/demo-logins.txt", "--judge-token-dir", "/s", "--judges", "2"},
			check: func(t *testing.T, o Options) {
				if o.Command != CmdDemo || o.LoginsFile != "/s/demo-logins.txt" || o.JudgeTokenDir != "/s" || o.Judges != 2 {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "migrate", args: []string{"migrate", "--mysql", "u@/db"}, check: func(t *testing.T, o Options) {
			if o.Command != CmdMigrate {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "env fills flags, flags win", args: []string{"--redis-db", "3"},
			env: map[string]string{"VERDICT_WEBAPP_MYSQL": "e@/db", "VERDICT_WEBAPP_REDIS_DB": "5", "VERDICT_WEBAPP_LOG_FORMAT": "text", "VERDICT_LOG_FORMAT": "json"},
			check: func(t *testing.T, o Options) {
				if o.MySQL != "e@/db" || o.Redis.DB != 3 || o.LogFormat != "text" {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "no mysql", args: nil, err: "--mysql is required"},
		{name: "mysql from the environment", args: nil, env: map[string]string{"VERDICT_WEBAPP_MYSQL": "u:secret@/db"}, check: func(t *testing.T, o Options) {
			if o.MySQL != "u:secret@/db" {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "mysql file and flag", args: []string{"--mysql", "u@/db", "--mysql-file", "/nonexistent"}, err: "give one"},
		{name: "mysql file missing", args: []string{"--mysql-file", "/nonexistent/dsn"}, err: "--mysql-file"},
		{name: "bad subcommand", args: []string{"frobnicate"}, err: "unknown subcommand"},
		{name: "bad env", args: []string{"--mysql", "x@/y"}, env: map[string]string{"VERDICT_WEBAPP_REDIS_DB": "many"}, err: "VERDICT_WEBAPP_REDIS_DB"},
		{name: "bad format", args: []string{"--mysql", "x@/y", "--log-format", "xml"}, err: "--log-format"},
		{name: "listen fd on standard error", args: []string{"--mysql", "x@/y", "--listen-fd", "2"}, err: "--listen-fd 2"},
		{name: "judges need dir", args: []string{"demo", "--mysql", "x@/y", "--judges", "2"}, err: "--judge-token-dir"},
		{name: "demo flag on serve", args: []string{"--mysql", "x@/y", "--judges", "2"}, err: "not defined"},
		{name: "stray argument", args: []string{"--mysql", "x@/y", "extra"}, err: "unexpected argument"},
		{name: "upload limits", args: []string{"--mysql", "x@/y", "--max-testdata", "1048576"},
			env: map[string]string{"VERDICT_WEBAPP_MAX_IMPORT_ROWS": "50"}, check: func(t *testing.T, o Options) {
				if o.MaxTestdata != 1<<20 || o.MaxImportRows != 50 {
					t.Fatalf("max testdata %d, import rows %d", o.MaxTestdata, o.MaxImportRows)
				}
			}},
		{name: "tiny testdata limit", args: []string{"--mysql", "x@/y", "--max-testdata", "10"}, err: "--max-testdata"},
		{name: "no import rows", args: []string{"--mysql", "x@/y", "--max-import-rows", "0"}, err: "--max-import-rows"},
		{name: "blob s3 and partitions", args: []string{"--mysql", "x@/y", "--blob-s3", "s3://oj-data/verdict?endpoint=127.0.0.1:9000&insecure=true",
			"--partition-size", "5000"}, env: map[string]string{"VERDICT_WEBAPP_PARTITION_INTERVAL": "1m", "VERDICT_WEBAPP_PARTITION_HEADROOM": "2500"},
			check: func(t *testing.T, o Options) {
				if o.BlobS3 != "s3://oj-data/verdict?endpoint=127.0.0.1:9000&insecure=true" || o.PartitionSize != 5000 ||
					o.PartitionInterval != time.Minute || o.PartitionHeadroom != 2500 {
					t.Fatalf("%+v", o)
				}
			}},
		{name: "partition defaults", args: []string{"--mysql", "x@/y"}, check: func(t *testing.T, o Options) {
			if o.BlobS3 != "" || o.PartitionSize != 1_000_000 || o.PartitionHeadroom != 1_000_000 || o.PartitionInterval != 10*time.Minute {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "demo takes blob s3", args: []string{"demo", "--mysql", "x@/y", "--blob-s3", "s3://oj-data"}, check: func(t *testing.T, o Options) {
			if o.BlobS3 != "s3://oj-data" {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "bad blob s3", args: []string{"--mysql", "x@/y", "--blob-s3", "https://bucket"}, err: "--blob-s3"},
		{name: "blob s3 with credentials", args: []string{"--mysql", "x@/y", "--blob-s3", "s3://k:s@bucket"}, err: "credentials"},
		{name: "tiny partitions", args: []string{"--mysql", "x@/y", "--partition-size", "10"}, err: "--partition-size"},
		{name: "no headroom", args: []string{"--mysql", "x@/y", "--partition-headroom", "0"}, err: "--partition-headroom"},
		{name: "limit defaults", args: []string{"--mysql", "x@/y"}, check: func(t *testing.T, o Options) {
			if o.LoginFreeFailures != 5 || o.LoginAccountFreeFailures != 20 || o.LoginAddressFreeFailures != 2000 ||
				o.LoginBackoffBase != time.Second || o.LoginBackoffMax != 5*time.Minute || o.LoginWindow != 15*time.Minute ||
				o.SubmitPerMinute != 6 || o.SubmitBurst != 10 || o.RegisterPerHour != 30 || o.PasswordCost != 10 ||
				o.HashSlots != 0 || o.PasswordTimeout != 10*time.Second || o.TrustedNets != nil {
				t.Fatalf("%+v", o)
			}
		}},
		{name: "trusted networks", args: []string{"--mysql", "x@/y", "--trusted-networks", "10.0.0.0/8, 2001:db8::/48"},
			check: func(t *testing.T, o Options) {
				if fmt.Sprint(o.TrustedNets) != "[10.0.0.0/8 2001:db8::/48]" {
					t.Fatalf("%v", o.TrustedNets)
				}
			}},
		{name: "trusted networks from the stack's variable", args: []string{"--mysql", "x@/y"},
			env: map[string]string{"VERDICT_TRUSTED_NETWORKS": "192.0.2.0/24"}, check: func(t *testing.T, o Options) {
				if fmt.Sprint(o.TrustedNets) != "[192.0.2.0/24]" {
					t.Fatalf("%v", o.TrustedNets)
				}
			}},
		{name: "bad trusted network", args: []string{"--mysql", "x@/y", "--trusted-networks", "10.0.0.0/8,lab"}, err: "--trusted-networks \"lab\""},
		{name: "trusted network with host bits", args: []string{"--mysql", "x@/y", "--trusted-networks", "10.1.2.3/8"}, err: "--trusted-networks"},
		{name: "burst below the rate", args: []string{"--mysql", "x@/y", "--submit-per-minute", "20", "--submit-burst", "5"},
			check: func(t *testing.T, o Options) {
				if o.SubmitBurst != 20 {
					t.Fatalf("burst %d, want raised to the rate", o.SubmitBurst)
				}
			}},
		{name: "pools", args: []string{"--mysql", "x@/y", "--mysql-conns", "64", "--result-workers", "8"},
			check: func(t *testing.T, o Options) {
				if o.MySQLConns != 64 || o.ResultWorkers != 8 {
					t.Fatalf("conns %d workers %d", o.MySQLConns, o.ResultWorkers)
				}
			}},
		{name: "pool defaults", args: []string{"--mysql", "x@/y"},
			check: func(t *testing.T, o Options) {
				if o.MySQLConns != 32 || o.ResultWorkers != 16 || o.Redis.PoolSize != RedisPool || o.RejudgeAhead != 256 {
					t.Fatalf("conns %d workers %d redis pool %d rejudge ahead %d", o.MySQLConns, o.ResultWorkers, o.Redis.PoolSize, o.RejudgeAhead)
				}
			}},
		{name: "rejudge unbounded", args: []string{"--mysql", "x@/y", "--rejudge-ahead", "0"},
			check: func(t *testing.T, o Options) {
				if o.RejudgeAhead != 0 {
					t.Fatalf("rejudge ahead %d", o.RejudgeAhead)
				}
			}},
		{name: "negative rejudge ahead", args: []string{"--mysql", "x@/y", "--rejudge-ahead", "-1"}, err: "--rejudge-ahead -1"},
		{name: "redis pool", args: []string{"--mysql", "x@/y", "--redis-pool", "200"},
			check: func(t *testing.T, o Options) {
				if o.Redis.PoolSize != 200 {
					t.Fatalf("redis pool %d", o.Redis.PoolSize)
				}
			}},
		{name: "negative redis pool", args: []string{"--mysql", "x@/y", "--redis-pool", "-1"}, err: "pool size"},
		{name: "admission", args: []string{"--mysql", "x@/y", "--admission-slots", "0", "--admission-wait", "300ms"},
			check: func(t *testing.T, o Options) {
				if o.AdmissionSlots != 0 || o.AdmissionWait != 300*time.Millisecond {
					t.Fatalf("slots %d wait %v", o.AdmissionSlots, o.AdmissionWait)
				}
			}},
		{name: "admission wait", args: []string{"--mysql", "x@/y", "--admission-wait", "0s"}, err: "--admission-wait"},
		{name: "admission slots", args: []string{"--mysql", "x@/y", "--admission-slots", "-1"}, err: "--admission-slots"},
		{name: "no request connections", args: []string{"--mysql", "x@/y", "--mysql-conns", "0"}, err: "--mysql-conns"},
		{name: "too many result workers", args: []string{"--mysql", "x@/y", "--result-workers", "65"}, err: "--result-workers"},
		{name: "no free failures", args: []string{"--mysql", "x@/y", "--login-free-failures", "0"}, err: "--login-free-failures"},
		{name: "backoff max below base", args: []string{"--mysql", "x@/y", "--login-backoff-base", "10s", "--login-backoff-max", "1s"}, err: "--login-backoff-max"},
		{name: "bcrypt cost", args: []string{"--mysql", "x@/y", "--password-cost", "3"}, err: "--password-cost"},
		{name: "no registrations", args: []string{"--mysql", "x@/y", "--register-per-hour", "0"}, err: "--register-per-hour"},
		{name: "short password timeout", args: []string{"--mysql", "x@/y", "--password-timeout", "10ms"}, err: "--password-timeout"},
		{name: "hasty partition checks", args: []string{"--mysql", "x@/y", "--partition-interval", "1s"}, err: "--partition-interval"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.err != "" {
				if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrUsage containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}

func TestHelpListsEnv(t *testing.T) {
	var buf bytes.Buffer
	_, err := Parse([]string{"demo", "-h"}, func(string) string { return "" }, &buf)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"VERDICT_WEBAPP_LOGINS", "VERDICT_WEBAPP_JUDGES", "VERDICT_LOG_FORMAT", "webapp demo"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestMySQLFile(t *testing.T) {
	dir := t.TempDir()
	good, empty := filepath.Join(dir, "dsn"), filepath.Join(dir, "empty")
	if err := os.WriteFile(good, []byte("u:secret@tcp(127.0.0.1:3306)/verdict\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := Parse([]string{"--mysql-file", good}, func(string) string { return "" }, io.Discard)
	if err != nil || o.MySQL != "u:secret@tcp(127.0.0.1:3306)/verdict" {
		t.Fatalf("%+v, %v", o.MySQL, err)
	}
	if _, err := Parse([]string{"--mysql-file", empty}, func(string) string { return "" }, io.Discard); err == nil || !strings.Contains(err.Error(), "one line") {
		t.Fatalf("an empty file: %v", err)
	}
}
