package envflag

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestApply(t *testing.T) {
	env := map[string]string{
		"VERDICT_X_REDIS":      "10.0.0.1:6379",
		"VERDICT_X_REDIS_DB":   "3",
		"VERDICT_X_LISTEN":     "from-env",
		"VERDICT_LOG_FORMAT":   "text",
		"VERDICT_X_POLL":       "250ms",
		"VERDICT_X_UNRELATED_": "x",
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	redis := fs.String("redis", "127.0.0.1:6379", "")
	db := fs.Int("redis-db", 0, "")
	listen := fs.String("listen", "default", "")
	format := fs.String("log-format", "json", "")
	poll := fs.Duration("poll", time.Second, "")
	level := fs.String("log-level", "info", "")
	if err := fs.Parse([]string{"--listen", "from-flag"}); err != nil {
		t.Fatal(err)
	}
	if err := Apply(fs, "VERDICT_X", func(k string) string { return env[k] }, map[string]string{"log-format": "VERDICT_LOG_FORMAT"}); err != nil {
		t.Fatal(err)
	}
	checks := []struct{ name, got, want string }{
		{"env fills an unset flag", *redis, "10.0.0.1:6379"},
		{"dashes become underscores", strconv.Itoa(*db), "3"},
		{"the command line wins", *listen, "from-flag"},
		{"alias when own variable unset", *format, "text"},
		{"durations parse", poll.String(), "250ms"},
		{"default stays without a variable", *level, "info"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestApplyReportsEveryBadValue(t *testing.T) {
	env := map[string]string{"P_A": "not-a-number", "P_B": "forever"}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("a", 0, "")
	fs.Duration("b", 0, "")
	_ = fs.Parse(nil)
	err := Apply(fs, "P", func(k string) string { return env[k] }, nil)
	if !errors.Is(err, ErrBadValue) {
		t.Fatalf("err = %v, want ErrBadValue", err)
	}
	for _, want := range []string{"P_A", "P_B"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestName(t *testing.T) {
	if got := Name("VERDICT_HUB", "redis-db"); got != "VERDICT_HUB_REDIS_DB" {
		t.Errorf("Name = %q", got)
	}
	if got := Usage("VERDICT_HUB", "listen"); got != " [VERDICT_HUB_LISTEN]" {
		t.Errorf("Usage = %q", got)
	}
}
