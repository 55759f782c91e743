package store

import (
	"context"
	"fmt"
)

// DeleteUnusedProblem deletes problem id with everything that hangs on it
// (test data versions, assets, reference solutions, contest entries: the
// foreign keys cascade), unless anything was submitted to it: false then,
// and nothing is deleted. For an import its package's input validation
// refused (server/problems_import_validate.go).
func (s *Store) DeleteUnusedProblem(ctx context.Context, id int64) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM problems WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM submissions WHERE problem_id = ?)`, id, id)
	if err != nil {
		return false, fmt.Errorf("store delete problem %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store delete problem %d: %w", id, err)
	}
	return n == 1, nil
}
