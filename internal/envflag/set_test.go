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

// sizeValue is a flag.Value of the caller's, for Set.Var.
type sizeValue struct{ n *int64 }

func (v sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	return strings.TrimSpace(time.Duration(*v.n).String())
}
func (v sizeValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	*v.n = int64(d)
	return err
}

func TestSetOtherTypesAndNoPrefix(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s := envflag.Set{FS: fs, Prefix: "VERDICT_X"}
	var (
		i64   int64
		u64   uint64
		v     int64 = int64(time.Second)
		level string
	)
	s.Int64(&i64, "bytes", 7, "bytes")
	s.Uint64(&u64, "seed", 1, "seed")
	s.Var(sizeValue{&v}, "size", "size")
	if u := fs.Lookup("size").Usage; u != "size [VERDICT_X_SIZE]" || fs.Lookup("size").DefValue != "1s" {
		t.Fatalf("--size usage %q, default %q", u, fs.Lookup("size").DefValue)
	}
	if err := fs.Parse([]string{"--seed", "9"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"VERDICT_X_BYTES": "12", "VERDICT_X_SEED": "3", "VERDICT_X_SIZE": "2s"}
	if err := envflag.Apply(fs, "VERDICT_X", func(k string) string { return env[k] }, nil); err != nil {
		t.Fatal(err)
	}
	if i64 != 12 || u64 != 9 || v != int64(2*time.Second) {
		t.Fatalf("got %d %d %d", i64, u64, v)
	}

	// No prefix: the usage names no variable.
	lab := flag.NewFlagSet("lab", flag.ContinueOnError)
	ls := envflag.Set{FS: lab}
	ls.Int64(&i64, "bytes", 7, "bytes")
	ls.LogLevel(&level)
	if u := lab.Lookup("bytes").Usage; u != "bytes" {
		t.Fatalf("usage without a prefix %q", u)
	}
	if lab.Lookup("log-format") != nil || lab.Lookup("log-level").DefValue != "info" {
		t.Fatal("LogLevel registers --log-level (default info) alone")
	}
}

func TestCheckLevel(t *testing.T) {
	for level, ok := range map[string]bool{"info": true, "DEBUG": true, "warn": true, "error": true, "": true, "loud": false, "info+": false} {
		err := envflag.CheckLevel(level)
		if ok != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), "--log-level")) {
			t.Errorf("CheckLevel(%q) = %v", level, err)
		}
	}
}
