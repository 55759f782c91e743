package warm

import (
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/warmplan"
)

// Defaults of Config.
const (
	DefaultMaxInFlight = 2
	DefaultRetry       = 2 * time.Minute
	DefaultBackoff     = 30 * time.Second
)

// Config tunes Plan. Zero fields take the defaults.
type Config struct {
	// Before: warming starts this long before a contest's start.
	// Default warmplan.DefaultBefore.
	Before time.Duration
	// MaxInFlight bounds the unreported prefetches of one judge.
	MaxInFlight int
	// Retry: a prefetch not reported within this is sent again.
	Retry time.Duration
	// Backoff: after a reported failure, the prefetch waits this long.
	Backoff time.Duration
}

func (c Config) withDefaults() Config {
	if c.Before <= 0 {
		c.Before = warmplan.DefaultBefore
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.Retry <= 0 {
		c.Retry = DefaultRetry
	}
	if c.Backoff <= 0 {
		c.Backoff = DefaultBackoff
	}
	return c
}

// Judge is what the hub knows of one connected judge.
type Judge struct {
	ID string
	// Has reports whether the judge is known to hold the data with this
	// hash (its hello, its prefetch reports, its results).
	Has func(hash string) bool
	// Sent holds the prefetches sent and not reported yet: hash → when.
	Sent map[string]time.Time
	// Failed holds the prefetches reported failed: hash → when.
	Failed map[string]time.Time
}

// Prefetch is one prefetch to send.
type Prefetch struct {
	Judge     int // index into the judges passed to Plan
	ProblemID int64
	TestData  protocol.TestData
}

// Result is Plan's answer.
type Result struct {
	Prefetches []Prefetch
	// Contests: every contest of the plan that has not ended, in start
	// order, with its warm count over the judges given.
	Contests []warmplan.ContestStatus
}

// Plan decides the prefetches to send now and counts warm judges.
func Plan(cfg Config, plan warmplan.Plan, now time.Time, judges []Judge) Result {
	cfg = cfg.withDefaults()
	contests := slices.Clone(plan.Contests)
	slices.SortStableFunc(contests, func(a, b warmplan.Contest) int { return a.Start.Compare(b.Start) })

	var want []warmplan.Problem // warming contests' data, earliest first, once per hash
	seen := map[string]bool{}
	res := Result{Contests: []warmplan.ContestStatus{}}
	for _, c := range contests {
		if !now.Before(c.End) {
			continue
		}
		warming := c.Warming(now, cfg.Before)
		st := warmplan.ContestStatus{ID: c.ID, Slug: c.Slug, Start: c.Start, End: c.End, Warming: warming, Judges: len(judges)}
		for _, j := range judges {
			if holdsAll(j, c.Problems) {
				st.Warm++
			}
		}
		res.Contests = append(res.Contests, st)
		if !warming {
			continue
		}
		for _, p := range c.Problems {
			if p.TestData.Hash != "" && !seen[p.TestData.Hash] {
				seen[p.TestData.Hash] = true
				want = append(want, p)
			}
		}
	}
	if len(want) == 0 {
		return res
	}
	for i, j := range judges {
		inFlight := 0
		for _, at := range j.Sent {
			if now.Sub(at) < cfg.Retry {
				inFlight++
			}
		}
		for _, p := range want {
			if inFlight >= cfg.MaxInFlight {
				break
			}
			h := p.TestData.Hash
			if j.Has != nil && j.Has(h) {
				continue
			}
			if at, ok := j.Sent[h]; ok && now.Sub(at) < cfg.Retry {
				continue
			}
			if at, ok := j.Failed[h]; ok && now.Sub(at) < cfg.Backoff {
				continue
			}
			res.Prefetches = append(res.Prefetches, Prefetch{Judge: i, ProblemID: p.ID, TestData: p.TestData})
			inFlight++
		}
	}
	return res
}

func holdsAll(j Judge, ps []warmplan.Problem) bool {
	for _, p := range ps {
		if j.Has == nil || !j.Has(p.TestData.Hash) {
			return false
		}
	}
	return true
}
