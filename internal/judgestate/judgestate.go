package judgestate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// Fields of the hash.
const (
	FieldHub          = "hub"
	FieldCores        = "cores"
	FieldRunning      = "running"
	FieldQueued       = "queued"
	FieldLoad1        = "load1"
	FieldMemUsedRatio = "mem_used_ratio"
	FieldMaxParallel  = "max_parallel"
	FieldAgentVersion = "agent_version"
	// FieldLanguages is the JSON of the judge's hello.Languages
	// ([]protocol.Language).
	FieldLanguages = "languages"
	// FieldCapabilities is the judge's hello.Capabilities, space
	// separated (empty: none; missing: a hub from before it was kept).
	FieldCapabilities = "capabilities"
	// FieldSeenMs is when the hub last heard from the judge (unix ms).
	FieldSeenMs = "seen_ms"
)

var (
	// ErrNoState: the hash holds no state (missing, or expired).
	ErrNoState = errors.New("judgestate: no state")
	// ErrMalformed: a field holds a value that cannot be read.
	ErrMalformed = errors.New("judgestate: malformed field")
)

// State is one judge as the hub last reported it.
type State struct {
	Hub                                 string // the hub's id
	Cores, Running, Queued, MaxParallel int
	Load1, MemUsedRatio                 float64
	AgentVersion                        string
	// Languages the judge offers; LanguagesKnown is false when the hub
	// did not record them (a hub from before it did).
	Languages      []protocol.Language
	LanguagesKnown bool
	// Capabilities the judge announced in hello (protocol.Capability*).
	Capabilities []string
	SeenAt       time.Time // to the millisecond
}

// Fields returns s as field/value pairs for HSET. Languages are written
// only when known.
func (s State) Fields() []any {
	f := []any{
		FieldHub, s.Hub,
		FieldCores, s.Cores,
		FieldRunning, s.Running,
		FieldQueued, s.Queued,
		FieldLoad1, s.Load1,
		FieldMemUsedRatio, s.MemUsedRatio,
		FieldMaxParallel, s.MaxParallel,
		FieldAgentVersion, s.AgentVersion,
		FieldSeenMs, s.SeenAt.UnixMilli(),
		FieldCapabilities, strings.Join(s.Capabilities, " "),
	}
	if s.LanguagesKnown {
		langs := s.Languages
		if langs == nil {
			langs = []protocol.Language{}
		}
		if b, err := json.Marshal(langs); err == nil { // cannot fail: plain strings
			f = append(f, FieldLanguages, string(b))
		}
	}
	return f
}

// Decode reads the hash (HGETALL). A hash without a readable FieldSeenMs
// is ErrNoState. A missing field reads as its zero value (LanguagesKnown
// false for the languages); a field that holds something unreadable is
// an ErrMalformed, returned with the State of every other field, which
// the caller may still use.
func Decode(m map[string]string) (State, error) {
	ms, err := strconv.ParseInt(m[FieldSeenMs], 10, 64)
	if err != nil {
		return State{}, ErrNoState
	}
	s := State{Hub: m[FieldHub], AgentVersion: m[FieldAgentVersion], SeenAt: time.UnixMilli(ms).UTC()}
	if c := strings.Fields(m[FieldCapabilities]); len(c) > 0 {
		s.Capabilities = c
	}
	var errs []error
	for _, f := range []struct {
		name string
		dst  *int
	}{{FieldCores, &s.Cores}, {FieldRunning, &s.Running}, {FieldQueued, &s.Queued}, {FieldMaxParallel, &s.MaxParallel}} {
		if v, ok := m[f.name]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w %s: %w", ErrMalformed, f.name, err))
			}
			*f.dst = n
		}
	}
	for _, f := range []struct {
		name string
		dst  *float64
	}{{FieldLoad1, &s.Load1}, {FieldMemUsedRatio, &s.MemUsedRatio}} {
		if v, ok := m[f.name]; ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w %s: %w", ErrMalformed, f.name, err))
			}
			*f.dst = x
		}
	}
	if raw, ok := m[FieldLanguages]; ok {
		if err := json.Unmarshal([]byte(raw), &s.Languages); err != nil {
			s.Languages = nil
			errs = append(errs, fmt.Errorf("%w %s: %w", ErrMalformed, FieldLanguages, err))
		} else {
			s.LanguagesKnown = true
		}
	}
	return s, errors.Join(errs...)
}
