package obs

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestNewLoggerLevels(t *testing.T) {
	tests := []struct {
		level string
		want  []string // messages that get through, of debug/info/warn/error
	}{
		{"", []string{"i", "w", "e"}},
		{"debug", []string{"d", "i", "w", "e"}},
		{"INFO", []string{"i", "w", "e"}},
		{"warn", []string{"w", "e"}},
		{" error ", []string{"e"}},
		{"info+4", []string{"w", "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.level, func(t *testing.T) {
			var buf bytes.Buffer
			l, err := NewLogger(&buf, LogConfig{Level: tc.level})
			if err != nil {
				t.Fatal(err)
			}
			l.Debug("d")
			l.Info("i")
			l.Warn("w")
			l.Error("e")
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if line == "" {
					continue
				}
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("line %q is not JSON: %v", line, err)
				}
				got = append(got, rec["msg"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("logged %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNewLoggerAttributes(t *testing.T) {
	var buf bytes.Buffer
	l, err := NewLogger(&buf, LogConfig{Format: "json", Component: "hub"})
	if err != nil {
		t.Fatal(err)
	}
	l.Info("dispatched", SubmissionID(1042), JudgeID("judge-a1"), Attempt(2), Err(errors.New("boom")))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%q: %v", buf.String(), err)
	}
	want := map[string]any{
		"component":     "hub",
		"submission_id": float64(1042),
		"judge_id":      "judge-a1",
		"attempt":       float64(2),
		"error":         "boom",
		"msg":           "dispatched",
		"level":         "INFO",
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("record[%q] = %#v, want %#v (record %s)", k, rec[k], v, buf.String())
		}
	}
}

func TestNewLoggerText(t *testing.T) {
	var buf bytes.Buffer
	l, err := NewLogger(&buf, LogConfig{Format: "text", Level: "debug", Component: "judge"})
	if err != nil {
		t.Fatal(err)
	}
	l.Debug("case done", SubmissionID(7), Attempt(1))
	got := buf.String()
	for _, want := range []string{"level=DEBUG", `msg="case done"`, "component=judge", "submission_id=7", "attempt=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("text record %q lacks %q", got, want)
		}
	}
}

func TestNewLoggerBadConfig(t *testing.T) {
	tests := []struct {
		name string
		w    *bytes.Buffer
		cfg  LogConfig
	}{
		{"bad level", &bytes.Buffer{}, LogConfig{Level: "verbose"}},
		{"bad format", &bytes.Buffer{}, LogConfig{Format: "xml"}},
		{"nil writer", nil, LogConfig{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.w == nil {
				_, err = NewLogger(nil, tc.cfg)
			} else {
				_, err = NewLogger(tc.w, tc.cfg)
			}
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("error = %v, want ErrBadConfig", err)
			}
		})
	}
}

func TestParseLevel(t *testing.T) {
	tests := map[string]slog.Level{"": slog.LevelInfo, "debug": slog.LevelDebug, "Warn": slog.LevelWarn, "error": slog.LevelError}
	for in, want := range tests {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
