package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/readcache"
)

// The hot reads of a contest's page loads, kept by the read cache when the
// web node uses one (UseReadCache): every request reads its user, and a
// contest page, a problem page and a scoreboard read the same contest and
// problems thousands of times a minute. What may be kept:
//   - a user, a contest, a problem, a contest's problem list: until any
//     write that may change them purges the cache (the web node does, on
//     every node), at most the cache's TTL;
//   - the contests a problem is in, with their starts;
//   - that a user is registered — only when true: registering turns it true
//     without a purge (the hot path of a contest's start), and only a staff
//     write, which purges, turns it false.

type (
	userKey            int64
	contestSlugKey     string
	problemSlugKey     string
	contestProbKey     int64
	participantKey     struct{ contest, user int64 }
	problemContestsKey int64
)

func isTrue(v bool) bool { return v }

// UserByID returns one user or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	return readcache.Get(ctx, s.cache, userKey(id), nil, func(ctx context.Context) (User, error) {
		return s.loadUserByID(ctx, id)
	})
}

// ContestBySlug returns one contest or ErrNotFound.
func (s *Store) ContestBySlug(ctx context.Context, slug string) (Contest, error) {
	return readcache.Get(ctx, s.cache, contestSlugKey(slug), nil, func(ctx context.Context) (Contest, error) {
		return s.loadContestBySlug(ctx, slug)
	})
}

// ProblemBySlug returns one problem or ErrNotFound.
func (s *Store) ProblemBySlug(ctx context.Context, slug string) (Problem, error) {
	p, err := readcache.Get(ctx, s.cache, problemSlugKey(slug), nil, func(ctx context.Context) (Problem, error) {
		return s.loadProblemBySlug(ctx, slug)
	})
	p.Languages = slices.Clone(p.Languages) // shared with the cache
	return p, err
}

// ContestProblems returns a contest's problems in label order.
func (s *Store) ContestProblems(ctx context.Context, contestID int64) ([]ContestProblem, error) {
	ps, err := readcache.Get(ctx, s.cache, contestProbKey(contestID), nil, func(ctx context.Context) ([]ContestProblem, error) {
		return s.loadContestProblems(ctx, contestID)
	})
	if err != nil {
		return nil, err
	}
	return slices.Clone(ps), nil // shared with the cache
}

// IsParticipant reports whether a user is registered in a contest.
func (s *Store) IsParticipant(ctx context.Context, contestID, userID int64) (bool, error) {
	return readcache.Get(ctx, s.cache, participantKey{contestID, userID}, isTrue, func(ctx context.Context) (bool, error) {
		return s.loadIsParticipant(ctx, contestID, userID)
	})
}

// InStartedContestOf reports whether the problem belongs to a contest that
// has started (at now) and in which the user is registered: what lets a
// student see a contest-only problem. It is asked for every problem page,
// so it is answered from what every user shares (the problem's contests,
// kept) and what one page load shares (the user's registration, kept when
// true), not by one query per user and problem.
func (s *Store) InStartedContestOf(ctx context.Context, userID, problemID int64, now time.Time) (bool, error) {
	if s.cache == nil || readcache.Bypassed(ctx) {
		return s.loadInStartedContestOf(ctx, userID, problemID, now)
	}
	cs, err := readcache.Get(ctx, s.cache, problemContestsKey(problemID), nil, func(ctx context.Context) ([]contestStart, error) {
		return s.loadProblemContests(ctx, problemID)
	})
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if c.StartAt.After(now) {
			continue
		}
		in, err := s.IsParticipant(ctx, c.ContestID, userID)
		if err != nil || in {
			return in, err
		}
	}
	return false, nil
}

// contestStart is a contest a problem is in, and its start.
type contestStart struct {
	ContestID int64     `db:"contest_id"`
	StartAt   time.Time `db:"start_at"`
}

// loadProblemContests reads the contests a problem is in.
func (s *Store) loadProblemContests(ctx context.Context, problemID int64) ([]contestStart, error) {
	out := []contestStart{}
	err := s.DB.SelectContext(ctx, &out, `SELECT cp.contest_id, c.start_at FROM contest_problems cp
		JOIN contests c ON c.id = cp.contest_id WHERE cp.problem_id = ? ORDER BY c.start_at DESC`, problemID)
	if err != nil {
		return nil, fmt.Errorf("store contests of problem %d: %w", problemID, err)
	}
	return out, nil
}
