package envflag

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
)

// LogFormatVar is the variable the whole stack shares for --log-format:
// pass LogAliases (or its entry) to Apply.
const LogFormatVar = "VERDICT_LOG_FORMAT"

// LogAliases is the alias map of the stack-wide log settings.
func LogAliases() map[string]string { return map[string]string{"log-format": LogFormatVar} }

// Set registers flags on FS whose usage ends with their variable under
// Prefix (Usage), the closures every CLI used to write for itself:
//
//	s := envflag.Set{FS: fs, Prefix: "VERDICT_HUB"}
//	s.String(&o.Listen, "listen", "127.0.0.1:8090", "address to serve")
//
// With no Prefix the flags have no variables (a tool of the lab, whose
// flags are only ever given on its command line) and the usage names none.
type Set struct {
	FS     *flag.FlagSet
	Prefix string
}

func (s Set) usage(name, text string) string {
	if s.Prefix == "" {
		return text
	}
	return text + Usage(s.Prefix, name)
}

// String registers a string flag.
func (s Set) String(p *string, name, def, usage string) {
	s.FS.StringVar(p, name, def, s.usage(name, usage))
}

// Int registers an int flag.
func (s Set) Int(p *int, name string, def int, usage string) {
	s.FS.IntVar(p, name, def, s.usage(name, usage))
}

// Duration registers a duration flag.
func (s Set) Duration(p *time.Duration, name string, def time.Duration, usage string) {
	s.FS.DurationVar(p, name, def, s.usage(name, usage))
}

// Int64 registers an int64 flag.
func (s Set) Int64(p *int64, name string, def int64, usage string) {
	s.FS.Int64Var(p, name, def, s.usage(name, usage))
}

// Uint64 registers a uint64 flag.
func (s Set) Uint64(p *uint64, name string, def uint64, usage string) {
	s.FS.Uint64Var(p, name, def, s.usage(name, usage))
}

// Var registers a flag of a type of the caller's; its default is v's
// value.
func (s Set) Var(v flag.Value, name, usage string) {
	s.FS.Var(v, name, s.usage(name, usage))
}

// Bool registers a bool flag.
func (s Set) Bool(p *bool, name string, def bool, usage string) {
	s.FS.BoolVar(p, name, def, s.usage(name, usage))
}

// Float64 registers a float64 flag.
func (s Set) Float64(p *float64, name string, def float64, usage string) {
	s.FS.Float64Var(p, name, def, s.usage(name, usage))
}

// Log registers --log-level (default info) and --log-format (default json,
// also LogFormatVar); check them after parsing with CheckLog.
func (s Set) Log(level, format *string) {
	s.LogLevel(level)
	s.String(format, "log-format", obs.FormatJSON, "log format: json or text (also "+LogFormatVar+")")
}

// LogLevel registers --log-level alone (default info), for a tool whose
// log format is fixed; check it after parsing with CheckLevel.
func (s Set) LogLevel(level *string) {
	s.String(level, "log-level", "info", "log level: debug, info, warn or error")
}

// CheckLog validates a log level (obs.ParseLevel) and format, naming the
// flag at fault.
func CheckLog(level, format string) error {
	switch strings.ToLower(format) {
	case obs.FormatJSON, obs.FormatText:
	default:
		return fmt.Errorf("--log-format %q: want json or text", format)
	}
	return CheckLevel(level)
}

// CheckLevel validates a log level (obs.ParseLevel), naming the flag.
func CheckLevel(level string) error {
	if _, err := obs.ParseLevel(level); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	return nil
}
