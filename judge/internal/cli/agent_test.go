package cli

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/envflag"
	"github.com/verdict-oj/verdict/judge/internal/agent"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1", []int{1}, true},
		{"0-3,6", []int{0, 1, 2, 3, 6}, true},
		{" 3 , 1-2 ,2", []int{1, 2, 3}, true},
		{"", nil, false},
		{"a", nil, false},
		{"3-1", nil, false},
		{"-1", nil, false},
		{"1,", nil, false},
		{"0-99999", nil, false},
	} {
		got, err := parseCPUList(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !slices.Equal(got, tc.want)) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// The agent's flags name their variables, take the agent's defaults, and
// a bad log level or format (flag or variable) is a usage error naming
// the flag, before anything starts.
func TestAgentFlags(t *testing.T) {
	fs, f := agentFlagSet(io.Discard)
	for name, want := range map[string]string{
		"queue":           strconv.Itoa(agent.DefaultQueueSize),
		"deliver-timeout": agent.DefaultDeliverTimeout.String(),
		"testlib-dir":     agent.DefaultTestlibDir,
		"log-level":       "info",
		"log-format":      "json",
	} {
		fl := fs.Lookup(name)
		if fl == nil || fl.DefValue != want || !strings.HasSuffix(fl.Usage, envflag.Usage(EnvPrefix, name)) {
			t.Errorf("--%s: %+v, want default %q and its variable named", name, fl, want)
		}
	}
	if f.cacheSize != agent.DefaultCacheBytes || f.buildCacheSize != agent.DefaultBuildCacheBytes {
		t.Errorf("size defaults %d, %d", f.cacheSize, f.buildCacheSize)
	}
	if u := AgentUsage(); !strings.Contains(u, "[VERDICT_JUDGE_TOKEN_FILE]") || !strings.Contains(u, envflag.LogFormatVar) {
		t.Errorf("usage names no variables:\n%s", u)
	}

	base := []string{"--hub", "ws://127.0.0.1:1/judge", "--id", "j", "--token", "t", "--admin", ""}
	for _, tc := range []struct {
		name      string
		args      []string
		env       map[string]string
		wantInErr string
	}{
		{"bad level flag", []string{"--log-level", "loud"}, nil, "--log-level"},
		{"bad format flag", []string{"--log-format", "xml"}, nil, "--log-format"},
		{"bad level variable", nil, map[string]string{"VERDICT_JUDGE_LOG_LEVEL": "loud"}, "--log-level"},
		{"bad stack-wide format", nil, map[string]string{envflag.LogFormatVar: "xml"}, "--log-format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := agentCmd(append(slices.Clone(base), tc.args...), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.wantInErr) {
				t.Fatalf("exit %d, stderr %q; want 2 naming %s", code, stderr.String(), tc.wantInErr)
			}
		})
	}
}
