package judging

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Judge state fields in rkeys.Judge(name), written by the hub on every
// heartbeat (hub/internal/hub onHeartbeat). CONTRACT with the hub:
// FieldLanguages is the JSON of the judge's hello.Languages
// ([]protocol.Language); the others are the hub's own.
const (
	FieldSeenMs    = "seen_ms"
	FieldLanguages = "languages"
)

// LanguageNames are the display names of the language ids the judges ship
// (judge/internal/lang); an unknown id is shown as itself.
var LanguageNames = map[string]string{
	"c17":    "C17 (gcc)",
	"cpp17":  "C++17 (g++)",
	"cpp20":  "C++20 (g++)",
	"py3":    "Python 3 (CPython)",
	"java17": "Java 17 (OpenJDK)",
	"go":     "Go",
}

// JudgeState is a judge as the hub last reported it.
type JudgeState struct {
	Name   string
	Hub    string
	SeenAt time.Time
	// Languages the judge offers; LanguagesKnown is false when the hub
	// did not record them (a hub older than the contract above).
	Languages                           []protocol.Language
	LanguagesKnown                      bool
	Cores, Running, Queued, MaxParallel int
	Load1, MemUsedRatio                 float64
}

// LiveJudges returns the judges the hub saw within LiveWindow, by name.
// Judge names come from rkeys.JudgeTokens (every judge with a valid
// token); their state from rkeys.Judge(name), which expires on its own a
// few heartbeats after the judge goes silent.
func (s *Service) LiveJudges(ctx context.Context) ([]JudgeState, error) {
	tokens, err := s.rdb.HGetAll(ctx, s.n.JudgeTokens()).Result()
	if err != nil {
		return nil, fmt.Errorf("judging: judge names: %w", err)
	}
	names := make([]string, 0, len(tokens))
	for field, name := range tokens {
		if field != rkeys.JudgeTokensSynced {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, s.n.Judge(n))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("judging: judge states: %w", err)
	}
	cutoff := s.cfg.Now().Add(-s.cfg.LiveWindow)
	var out []JudgeState
	for i, c := range cmds {
		m := c.Val()
		ms, err := strconv.ParseInt(m[FieldSeenMs], 10, 64)
		if err != nil || time.UnixMilli(ms).Before(cutoff) {
			continue
		}
		js := JudgeState{Name: names[i], Hub: m["hub"], SeenAt: time.UnixMilli(ms).UTC()}
		js.Cores, _ = strconv.Atoi(m["cores"])
		js.Running, _ = strconv.Atoi(m["running"])
		js.Queued, _ = strconv.Atoi(m["queued"])
		js.MaxParallel, _ = strconv.Atoi(m["max_parallel"])
		js.Load1, _ = strconv.ParseFloat(m["load1"], 64)
		js.MemUsedRatio, _ = strconv.ParseFloat(m["mem_used_ratio"], 64)
		if raw, ok := m[FieldLanguages]; ok {
			if err := json.Unmarshal([]byte(raw), &js.Languages); err == nil {
				js.LanguagesKnown = true
			} else {
				s.log.Warn("judge state has unreadable languages", "judge_id", names[i], "err", err)
			}
		}
		out = append(out, js)
	}
	return out, nil
}

// Language is a language some live judge offers.
type Language struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Versions are the distinct compiler versions the judges report.
	Versions []string `json:"versions"`
	// Version is the first of Versions (what most pages show).
	Version string `json:"version,omitempty"`
	// Judges is how many live judges offer it.
	Judges int `json:"judges"`
}

// Languages returns the union of the live judges' languages, by id, and
// how many judges are live. A live judge whose languages the hub did not
// record counts as offering every language of LanguageNames.
func (s *Service) Languages(ctx context.Context) ([]Language, int, error) {
	js, err := s.LiveJudges(ctx)
	if err != nil {
		return nil, 0, err
	}
	byID := map[string]*Language{}
	add := func(id, version string) {
		l := byID[id]
		if l == nil {
			name := LanguageNames[id]
			if name == "" {
				name = id
			}
			l = &Language{ID: id, Name: name, Versions: []string{}}
			byID[id] = l
		}
		l.Judges++
		if version != "" && !slices.Contains(l.Versions, version) {
			l.Versions = append(l.Versions, version)
		}
	}
	for _, j := range js {
		if !j.LanguagesKnown {
			for id := range LanguageNames {
				add(id, "")
			}
			continue
		}
		seen := map[string]bool{}
		for _, l := range j.Languages {
			if l.ID == "" || seen[l.ID] {
				continue
			}
			seen[l.ID] = true
			add(l.ID, l.Version)
		}
	}
	out := make([]Language, 0, len(byID))
	for _, l := range byID {
		slices.Sort(l.Versions)
		if len(l.Versions) > 0 {
			l.Version = l.Versions[0]
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Language) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out, len(js), nil
}

// LiveWindow is how recently the hub must have seen a judge for it to be
// live.
func (s *Service) LiveWindow() time.Duration { return s.cfg.LiveWindow }
