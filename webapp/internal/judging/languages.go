package judging

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/tokens"
)

// Judge state fields in rkeys.Judge(name), which internal/judgestate owns
// (the hub writes it on every heartbeat), for tests that write a state.
const (
	FieldSeenMs    = judgestate.FieldSeenMs
	FieldLanguages = judgestate.FieldLanguages
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
	// did not record them (judgestate.State.LanguagesKnown).
	Languages      []protocol.Language
	LanguagesKnown bool
	// Capabilities the judge announced (protocol.Capability*).
	Capabilities                        []string
	Cores, Running, Queued, MaxParallel int
	Load1, MemUsedRatio                 float64
}

// LiveJudges returns the judges the hub saw within LiveWindow, by name.
// Judge names come from rkeys.JudgeTokens (every judge with a valid
// token); their state from rkeys.Judge(name), which expires on its own a
// few heartbeats after the judge goes silent.
func (s *Service) LiveJudges(ctx context.Context) ([]JudgeState, error) {
	names, err := tokens.Judges(ctx, s.rdb, s.n)
	if err != nil {
		return nil, fmt.Errorf("judging: %w", err)
	}
	sts, errs, err := s.JudgeStates(ctx, names)
	if err != nil {
		return nil, err
	}
	cutoff := s.cfg.Now().Add(-s.cfg.LiveWindow)
	var out []JudgeState
	for i, st := range sts {
		err := errs[i]
		if errors.Is(err, judgestate.ErrNoState) || st.SeenAt.Before(cutoff) {
			continue
		}
		if err != nil {
			s.log.Warn("judge state partly unreadable", "judge_id", names[i], "err", err)
		}
		out = append(out, JudgeState{Name: names[i], Hub: st.Hub, SeenAt: st.SeenAt,
			Languages: st.Languages, LanguagesKnown: st.LanguagesKnown, Capabilities: st.Capabilities,
			Cores: st.Cores, Running: st.Running, Queued: st.Queued, MaxParallel: st.MaxParallel,
			Load1: st.Load1, MemUsedRatio: st.MemUsedRatio})
	}
	return out, nil
}

// CapableJudges counts the live judges that offer lang and announced
// capability c (the hub sends a task that needs c only to those). A
// judge whose languages the hub did not record counts as offering every
// language; a hub that did not record capabilities records none.
func (s *Service) CapableJudges(ctx context.Context, lang, c string) (int, error) {
	js, err := s.LiveJudges(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range js {
		offers := !j.LanguagesKnown || slices.ContainsFunc(j.Languages, func(l protocol.Language) bool { return l.ID == lang })
		if offers && slices.Contains(j.Capabilities, c) {
			n++
		}
	}
	return n, nil
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
	return s.languages(ctx, false)
}

// LanguagesTTL is how long a node answers Languages from what it last
// read, when some judge was live: every submit asks (the judges' names
// and states, two Redis round trips and 20-odd hashes decoded), and under
// a contest's load those reads ran out of the request's deadline for
// 2,625 submits at 3,000 contestants. "No judge" is never kept, so a
// judge that connects is seen at once; one that leaves, within the TTL.
const LanguagesTTL = time.Second

// languages is Languages; fresh reads Redis whatever is kept.
func (s *Service) languages(ctx context.Context, fresh bool) ([]Language, int, error) {
	now := s.cfg.Now()
	s.langMu.Lock()
	kept := s.langKept
	s.langMu.Unlock()
	if !fresh && kept.live > 0 && now.Sub(kept.at) < LanguagesTTL && !now.Before(kept.at) {
		return slices.Clone(kept.langs), kept.live, nil
	}
	langs, live, err := s.readLanguages(ctx)
	if err == nil {
		s.langMu.Lock()
		s.langKept = keptLanguages{at: now, langs: slices.Clone(langs), live: live}
		s.langMu.Unlock()
	}
	return langs, live, err
}

// keptLanguages is what languages last read.
type keptLanguages struct {
	at    time.Time
	langs []Language
	live  int
}

// readLanguages reads the live judges' languages from Redis.
func (s *Service) readLanguages(ctx context.Context) ([]Language, int, error) {
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
			if l.ID == "" || seen[l.ID] || protocol.IsCapability(l.ID) {
				continue // capabilities (outputs, testlib) are no language to pick
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

// JudgesHaveTestlib reports whether some live judge offers
// protocol.LanguageTestlib: testlib.h in its include directory.
func (s *Service) JudgesHaveTestlib(ctx context.Context) (bool, error) {
	js, err := s.LiveJudges(ctx)
	if err != nil {
		return false, err
	}
	for _, j := range js {
		if slices.ContainsFunc(j.Languages, func(l protocol.Language) bool { return l.ID == protocol.LanguageTestlib }) {
			return true, nil
		}
	}
	return false, nil
}

// LiveWindow is how recently the hub must have seen a judge for it to be
// live.
func (s *Service) LiveWindow() time.Duration { return s.cfg.LiveWindow }
