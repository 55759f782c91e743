package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// ProblemSolution is a row of problem_solutions: a reference solution of
// a problem's package with the verdict it must get.
type ProblemSolution struct {
	ID        int64  `db:"id"`
	ProblemID int64  `db:"problem_id"`
	Name      string `db:"name"`
	Language  string `db:"language"`
	Source    string `db:"source"`
	// Expected is a final verdict code (AC, WA, TLE, RE, MLE).
	Expected         string        `db:"expected"`
	LastSubmissionID sql.NullInt64 `db:"last_submission_id"`
	CreatedAt        time.Time     `db:"created_at"`
	// From the latest run's submission (empty when never run).
	Verdict string         `db:"verdict"`
	Score   sql.NullInt64  `db:"score"`
	Attempt sql.NullInt64  `db:"attempt"`
	TimeMs  sql.NullInt64  `db:"time_ms"`
	Hash    sql.NullString `db:"run_hash"`
}

// ReplaceProblemSolutions makes sols (ProblemID, ID and the run fields
// ignored) the problem's reference solutions, in one transaction: a
// package imported again brings its own.
func (s *Store) ReplaceProblemSolutions(ctx context.Context, problemID int64, sols []ProblemSolution) error {
	return s.inTx(ctx, fmt.Sprintf("store replace solutions of problem %d", problemID), func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM problem_solutions WHERE problem_id = ?", problemID); err != nil {
			return err
		}
		for _, sol := range sols {
			if _, err := tx.ExecContext(ctx, `INSERT INTO problem_solutions (problem_id, name, language, source, expected)
				VALUES (?, ?, ?, ?, ?)`, problemID, sol.Name, sol.Language, sol.Source, sol.Expected); err != nil {
				return mapErr("solution "+sol.Name, err)
			}
		}
		return nil
	})
}

// ProblemSolutions returns a problem's reference solutions by name, each
// with its latest run's submission verdict.
func (s *Store) ProblemSolutions(ctx context.Context, problemID int64) ([]ProblemSolution, error) {
	out := []ProblemSolution{}
	err := s.DB.SelectContext(ctx, &out, `SELECT ps.id, ps.problem_id, ps.name, ps.language, ps.source, ps.expected,
		ps.last_submission_id, ps.created_at, COALESCE(s.verdict, '') AS verdict, s.score, s.attempt, s.time_ms,
		s.testdata_hash AS run_hash
		FROM problem_solutions ps LEFT JOIN submissions s ON s.id = ps.last_submission_id
		WHERE ps.problem_id = ? ORDER BY ps.name`, problemID)
	if err != nil {
		return nil, fmt.Errorf("store solutions of problem %d: %w", problemID, err)
	}
	return out, nil
}

// SetSolutionRun records the submission of a solution's latest run.
func (s *Store) SetSolutionRun(ctx context.Context, solutionID, submissionID int64) error {
	if _, err := s.DB.ExecContext(ctx, "UPDATE problem_solutions SET last_submission_id = ? WHERE id = ?", submissionID, solutionID); err != nil {
		return fmt.Errorf("store set solution run %d: %w", solutionID, err)
	}
	return nil
}
