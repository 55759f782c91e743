package envflag_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/envflag"
)

func TestSetNamesTheVariableAndApplyFillsIt(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := envflag.Set{FS: fs, Prefix: "VERDICT_X"}
	var (
		str, level, format string
		n                  int
		d                  time.Duration
		b                  bool
		f                  float64
	)
	s.String(&str, "listen", "a", "address")
	s.Int(&n, "queue", 2, "queue")
	s.Duration(&d, "tick", time.Second, "tick")
	s.Bool(&b, "pprof", false, "profiler")
	s.Float64(&f, "factor", 1.5, "factor")
	s.Log(&level, &format)
	if u := fs.Lookup("queue").Usage; u != "queue [VERDICT_X_QUEUE]" {
		t.Fatalf("usage %q", u)
	}
	if !strings.Contains(fs.Lookup("log-format").Usage, envflag.LogFormatVar) {
		t.Fatalf("--log-format usage %q does not name %s", fs.Lookup("log-format").Usage, envflag.LogFormatVar)
	}
	if err := fs.Parse([]string{"--queue", "5"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"VERDICT_X_QUEUE": "9", "VERDICT_X_TICK": "3s", "VERDICT_X_PPROF": "true", "VERDICT_X_FACTOR": "2",
		"VERDICT_X_LISTEN": "b", envflag.LogFormatVar: "text",
	}
	if err := envflag.Apply(fs, "VERDICT_X", func(k string) string { return env[k] }, envflag.LogAliases()); err != nil {
		t.Fatal(err)
	}
	if str != "b" || n != 5 || d != 3*time.Second || !b || f != 2 || level != "info" || format != "text" {
		t.Fatalf("got %q %d %v %v %v %q %q", str, n, d, b, f, level, format)
	}
}

func TestCheckLog(t *testing.T) {
	for _, tc := range []struct {
		level, format string
		bad           string // the flag named, "" for none
	}{
		{"info", "json", ""},
		{"debug", "text", ""},
		{"warn", "JSON", ""},
		{"error", "json", ""},
		{"loud", "json", "--log-level"},
		{"info", "xml", "--log-format"},
	} {
		err := envflag.CheckLog(tc.level, tc.format)
		if tc.bad == "" && err != nil {
			t.Errorf("CheckLog(%q, %q) = %v", tc.level, tc.format, err)
		}
		if tc.bad != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.bad)) {
			t.Errorf("CheckLog(%q, %q) = %v, want an error naming %s", tc.level, tc.format, err, tc.bad)
		}
	}
}
