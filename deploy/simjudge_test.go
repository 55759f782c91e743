package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Bad flags are exit 2 before any judge dials; --help is 0.
func TestSimjudgeFlags(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := []string{"--hub", "ws://127.0.0.1:1/judge", "--id", "sim", "--token-file", tokens}
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"help", []string{"--help"}, 0},
		{"missing hub", []string{"--id", "sim", "--token-file", tokens}, 2},
		{"bad log level", slices.Concat(ok, []string{"--log-level", "loud"}), 2},
		{"too few tokens", slices.Concat(ok, []string{"--count", "3"}), 2},
		{"log format is fixed", slices.Concat(ok, []string{"--log-format", "json"}), 2},
		{"no count", slices.Concat(ok, []string{"--count", "0"}), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runSimjudge(context.Background(), tc.args); got != tc.want {
				t.Fatalf("runSimjudge(%q) = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}
