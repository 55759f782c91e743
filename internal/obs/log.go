package obs

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// Standard log attribute keys. Every component uses these names for these
// things, so one query finds a submission across webapp, hub and judge logs.
const (
	KeyComponent    = "component"     // "webapp", "hub", "judge", "edge"
	KeySubmissionID = "submission_id" // int64
	KeyJudgeID      = "judge_id"      // string
	KeyAttempt      = "attempt"       // int, starts at 1
	KeyError        = "error"         // error text
)

// Component returns the component attribute.
func Component(name string) slog.Attr { return slog.String(KeyComponent, name) }

// SubmissionID returns the submission_id attribute.
func SubmissionID(id int64) slog.Attr { return slog.Int64(KeySubmissionID, id) }

// JudgeID returns the judge_id attribute.
func JudgeID(id string) slog.Attr { return slog.String(KeyJudgeID, id) }

// Attempt returns the attempt attribute.
func Attempt(n int) slog.Attr { return slog.Int(KeyAttempt, n) }

// Err returns the error attribute; a nil error logs as an empty string.
func Err(err error) slog.Attr {
	if err == nil {
		return slog.String(KeyError, "")
	}
	return slog.String(KeyError, err.Error())
}

// ErrBadConfig is wrapped by New and NewLogger when the configuration is
// invalid.
var ErrBadConfig = errors.New("obs: bad config")

// Log formats.
const (
	FormatJSON = "json"
	FormatText = "text"
)

// LogConfig configures NewLogger.
type LogConfig struct {
	// Level is "debug", "info", "warn" or "error" (any case; slog's
	// "info+2"-style offsets work too). Default "info".
	Level string
	// Format is FormatJSON or FormatText. Default FormatJSON.
	Format string
	// Component, if set, is added to every record as KeyComponent.
	Component string
}

// ParseLevel parses a level name; "" means info.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if strings.TrimSpace(s) == "" {
		return slog.LevelInfo, nil
	}
	if err := l.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
		return 0, fmt.Errorf("%w: log level %q: want debug, info, warn or error", ErrBadConfig, s)
	}
	return l, nil
}

// NewLogger returns a logger writing to w in the configured format at the
// configured level.
func NewLogger(w io.Writer, cfg LogConfig) (*slog.Logger, error) {
	h, err := newHandler(w, cfg)
	if err != nil {
		return nil, err
	}
	l := slog.New(h)
	if cfg.Component != "" {
		l = l.With(Component(cfg.Component))
	}
	return l, nil
}

func newHandler(w io.Writer, cfg LogConfig) (slog.Handler, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil log writer", ErrBadConfig)
	}
	level, err := ParseLevel(cfg.Level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: level}
	switch strings.ToLower(cfg.Format) {
	case "", FormatJSON:
		return slog.NewJSONHandler(w, opts), nil
	case FormatText:
		return slog.NewTextHandler(w, opts), nil
	}
	return nil, fmt.Errorf("%w: log format %q: want json or text", ErrBadConfig, cfg.Format)
}
