package warmplan

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// ErrInvalid reports a plan or status that does not decode or is
// inconsistent.
var ErrInvalid = errors.New("warmplan: invalid")

const (
	// Horizon: the plan lists contests starting within this time from
	// its generation (and those running). Hubs warm a shorter window.
	Horizon = 24 * time.Hour
	// TTL of rkeys.WarmPlan: a plan no web node rewrites goes away.
	TTL = 10 * time.Minute
	// DefaultBefore is how long before a contest starts hubs begin to
	// warm its judges (the hub's --warm-before).
	DefaultBefore = 10 * time.Minute
)

// Plan is the document at rkeys.WarmPlan.
type Plan struct {
	GeneratedAt time.Time `json:"generated_at"`
	// Contests in start order.
	Contests []Contest `json:"contests"`
}

// Contest is one upcoming or running contest.
type Contest struct {
	ID    int64     `json:"id"`
	Slug  string    `json:"slug"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Problems that have test data (a problem without any cannot be
	// judged, nor warmed).
	Problems []Problem `json:"problems"`
}

// Problem is a contest problem's current test data.
type Problem struct {
	ID int64 `json:"id"`
	// TestData exactly as the problem's tasks carry it: URL may be empty
	// (each judge then downloads from its default, as for a task).
	TestData protocol.TestData `json:"test_data"`
}

// Warming reports whether hubs warm c at now: from before ahead of its
// start until it ends.
func (c Contest) Warming(now time.Time, before time.Duration) bool {
	return !now.Before(c.Start.Add(-before)) && now.Before(c.End)
}

// Validate checks ids, windows and hashes.
func (p Plan) Validate() error {
	var errs []error
	for i, c := range p.Contests {
		if c.ID < 1 || c.Slug == "" {
			errs = append(errs, fmt.Errorf("contests[%d]: id %d, slug %q", i, c.ID, c.Slug))
		}
		if !c.End.After(c.Start) {
			errs = append(errs, fmt.Errorf("contests[%d] %s: end %v is not after start %v", i, c.Slug, c.End, c.Start))
		}
		for k, pr := range c.Problems {
			if pr.ID < 1 || pr.TestData.Hash == "" {
				errs = append(errs, fmt.Errorf("contests[%d] %s problems[%d]: id %d, hash %q", i, c.Slug, k, pr.ID, pr.TestData.Hash))
			}
		}
	}
	return errors.Join(errs...)
}

// Encode returns the JSON of a valid plan.
func Encode(p Plan) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if p.Contests == nil {
		p.Contests = []Contest{}
	}
	return json.Marshal(p)
}

// Decode parses and checks a plan.
func Decode(b []byte) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return Plan{}, fmt.Errorf("%w: plan: %w", ErrInvalid, err)
	}
	if err := p.Validate(); err != nil {
		return Plan{}, fmt.Errorf("%w: plan: %w", ErrInvalid, err)
	}
	return p, nil
}

// ContestStatus is how warm one contest's judges are.
type ContestStatus struct {
	ID    int64     `json:"id"`
	Slug  string    `json:"slug"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Warming: inside the hubs' window (they are prefetching its data).
	Warming bool `json:"warming"`
	// Warm of Judges connected judges hold every problem's current data.
	Warm   int `json:"warm"`
	Judges int `json:"judges"`
}

// HubStatus is one hub's field of rkeys.WarmStatus.
type HubStatus struct {
	Hub string `json:"hub"`
	// ExpiresAt: readers ignore a status older than this (its hub died).
	ExpiresAt time.Time       `json:"expires_at"`
	Contests  []ContestStatus `json:"contests"`
}

// EncodeStatus returns the JSON of a hub's status.
func EncodeStatus(s HubStatus) ([]byte, error) {
	if s.Hub == "" {
		return nil, fmt.Errorf("%w: status without a hub", ErrInvalid)
	}
	if s.Contests == nil {
		s.Contests = []ContestStatus{}
	}
	return json.Marshal(s)
}

// DecodeStatus parses a hub's status.
func DecodeStatus(b []byte) (HubStatus, error) {
	var s HubStatus
	if err := json.Unmarshal(b, &s); err != nil {
		return HubStatus{}, fmt.Errorf("%w: status: %w", ErrInvalid, err)
	}
	if s.Hub == "" {
		return HubStatus{}, fmt.Errorf("%w: status without a hub", ErrInvalid)
	}
	for i, c := range s.Contests {
		if c.Warm < 0 || c.Judges < c.Warm {
			return HubStatus{}, fmt.Errorf("%w: status of %s: contests[%d] warm %d of %d", ErrInvalid, s.Hub, i, c.Warm, c.Judges)
		}
	}
	return s, nil
}

// Merge adds up the statuses of the hubs that have not expired at now,
// per contest, and returns the contests that have not ended, by start
// (then id). Window and slug come from the most recent status.
func Merge(now time.Time, hubs []HubStatus) []ContestStatus {
	type acc struct {
		ContestStatus
		seen time.Time
	}
	by := map[int64]*acc{}
	for _, h := range hubs {
		if !now.Before(h.ExpiresAt) {
			continue
		}
		for _, c := range h.Contests {
			if !now.Before(c.End) {
				continue
			}
			a := by[c.ID]
			if a == nil {
				a = &acc{ContestStatus: c, seen: h.ExpiresAt}
				by[c.ID] = a
				continue
			}
			a.Warm += c.Warm
			a.Judges += c.Judges
			a.Warming = a.Warming || c.Warming
			if h.ExpiresAt.After(a.seen) {
				a.seen, a.Slug, a.Start, a.End = h.ExpiresAt, c.Slug, c.Start, c.End
			}
		}
	}
	out := make([]ContestStatus, 0, len(by))
	for _, a := range by {
		out = append(out, a.ContestStatus)
	}
	slices.SortFunc(out, func(a, b ContestStatus) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
