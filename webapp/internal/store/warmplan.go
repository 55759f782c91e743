package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// WarmContest is a contest with its problems' current test data, for the
// warm plan (internal/warmplan).
type WarmContest struct {
	ID       int64
	Slug     string
	StartAt  time.Time
	EndAt    time.Time
	Problems []WarmProblem // in label order; only problems with test data
}

// WarmProblem is a contest problem's current test data hash.
type WarmProblem struct {
	ID   int64
	Hash string
}

// WarmContests returns the contests (hidden ones too) that have not ended
// at now and start before until, by start.
func (s *Store) WarmContests(ctx context.Context, now, until time.Time) ([]WarmContest, error) {
	var rows []struct {
		ID        int64          `db:"id"`
		Slug      string         `db:"slug"`
		StartAt   time.Time      `db:"start_at"`
		EndAt     time.Time      `db:"end_at"`
		ProblemID sql.NullInt64  `db:"problem_id"`
		Hash      sql.NullString `db:"testdata_hash"`
	}
	err := s.DB.SelectContext(ctx, &rows, `SELECT c.id, c.slug, c.start_at, c.end_at, cp.problem_id, p.testdata_hash
		FROM contests c
		LEFT JOIN contest_problems cp ON cp.contest_id = c.id
		LEFT JOIN problems p ON p.id = cp.problem_id
		WHERE c.end_at > ? AND c.start_at < ?
		ORDER BY c.start_at, c.id, LENGTH(cp.label), cp.label`, now.UTC(), until.UTC())
	if err != nil {
		return nil, fmt.Errorf("store warm contests: %w", err)
	}
	out := []WarmContest{}
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r.ID {
			out = append(out, WarmContest{ID: r.ID, Slug: r.Slug, StartAt: r.StartAt, EndAt: r.EndAt, Problems: []WarmProblem{}})
		}
		if r.ProblemID.Valid && r.Hash.Valid && r.Hash.String != "" {
			c := &out[len(out)-1]
			c.Problems = append(c.Problems, WarmProblem{ID: r.ProblemID.Int64, Hash: r.Hash.String})
		}
	}
	return out, nil
}
