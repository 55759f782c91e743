package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/schedtrace"
)

func TestExportTrace(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.json")
	var buf bytes.Buffer
	tr := schedtrace.Trace{Judges: []schedtrace.Judge{{ID: "secret-host", Slots: 4, Speed: 1}},
		Tasks: []schedtrace.Task{{SubmissionID: 5, AtMs: 10, ProblemID: 42, Language: "cpp", Priority: 2, WorkMs: 300}}}
	if err := schedtrace.Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scenario.json")
	tests := []struct {
		name    string
		args    []string
		judges  int // in the written file; 0: an error is wanted
		wantErr string
	}{
		{"to stdout", []string{"--from", in}, 1, ""},
		{"to a file with extra judges", []string{"--from", in, "--out", out, "--extra-judges", "3", "--heartbeat", "1s"}, 4, ""},
		{"missing trace", []string{"--from", filepath.Join(dir, "none.json")}, 0, "no such file"},
		{"a scenario is not a trace", []string{"--from", out}, 0, "unknown field"},
		{"negative extra judges", []string{"--from", in, "--extra-judges", "-1"}, 0, "negative"},
		{"bad name", []string{"--from", in, "--name", "a b"}, 0, "no spaces"},
		{"tiny heartbeat", []string{"--from", in, "--heartbeat", "1us"}, 0, "-heartbeat"},
		{"stray argument", []string{"--from", in, "extra"}, 0, "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			err := exportTrace(context.Background(), tc.args, &stdout, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := stdout.Bytes()
			if slices.Contains(tc.args, "--out") {
				if b, err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			var f struct {
				Cluster struct {
					Judges []struct{ ID string } `json:"judges"`
				} `json:"cluster"`
			}
			if err := json.Unmarshal(b, &f); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if len(f.Cluster.Judges) != tc.judges || strings.Contains(string(b), "secret-host") {
				t.Fatalf("judges %+v in\n%s", f.Cluster.Judges, b)
			}
		})
	}
}
