package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// ContestCustomRuns reports whether a contest allows custom runs
// (contests.custom_runs, migration 0009). ErrNotFound for no such contest.
func (s *Store) ContestCustomRuns(ctx context.Context, contestID int64) (bool, error) {
	var on bool
	err := s.DB.GetContext(ctx, &on, "SELECT custom_runs FROM contests WHERE id = ?", contestID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("store contest %d custom runs: %w", contestID, ErrNotFound)
	}
	if err != nil {
		return false, fmt.Errorf("store contest %d custom runs: %w", contestID, err)
	}
	return on, nil
}

// SetContestCustomRuns turns a contest's custom runs on or off.
func (s *Store) SetContestCustomRuns(ctx context.Context, contestID int64, on bool) error {
	res, err := s.DB.ExecContext(ctx, "UPDATE contests SET custom_runs = ? WHERE id = ?", on, contestID)
	if err != nil {
		return fmt.Errorf("store set contest %d custom runs: %w", contestID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.ContestCustomRuns(ctx, contestID); err != nil {
			return err
		}
	}
	return nil
}

// TestdataInteractive reports whether a problem's test data version is
// interactive (the manifest's "interactive"): false when the version is
// unknown.
func (s *Store) TestdataInteractive(ctx context.Context, problemID int64, hash string) (bool, error) {
	var raw []byte
	err := s.DB.GetContext(ctx, &raw, "SELECT manifest FROM testdata_versions WHERE problem_id = ? AND hash = ?", problemID, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store testdata %d interactive: %w", problemID, err)
	}
	var m struct {
		Interactive bool `json:"interactive"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, fmt.Errorf("store testdata %d interactive: manifest: %w", problemID, err)
	}
	return m.Interactive, nil
}
