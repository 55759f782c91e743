package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Staff edits of a contest's awards and its finalisation (migration 0014,
// docs/icpc.md "Awards" and "Finalizing").

// AwardEdit is staff's change to one award on top of the computed one:
// teams added and removed (CLICS team ids), and a citation that replaces
// the computed one (NULL: keep it).
type AwardEdit struct {
	AwardID   string
	Citation  sql.NullString
	Add       []string
	Remove    []string
	UpdatedBy sql.NullInt64
	UpdatedAt time.Time
}

// ContestAwardEdits returns a contest's award edits by award id order.
func (s *Store) ContestAwardEdits(ctx context.Context, contestID int64) ([]AwardEdit, error) {
	var rows []struct {
		AwardID   string         `db:"award_id"`
		Citation  sql.NullString `db:"citation"`
		Add       []byte         `db:"add_teams"`
		Remove    []byte         `db:"remove_teams"`
		UpdatedBy sql.NullInt64  `db:"updated_by"`
		UpdatedAt time.Time      `db:"updated_at"`
	}
	if err := s.DB.SelectContext(ctx, &rows, `SELECT award_id, citation, add_teams, remove_teams, updated_by, updated_at
		FROM contest_award_edits WHERE contest_id = ? ORDER BY award_id`, contestID); err != nil {
		return nil, fmt.Errorf("store award edits of contest %d: %w", contestID, err)
	}
	out := make([]AwardEdit, 0, len(rows))
	for _, r := range rows {
		e := AwardEdit{AwardID: r.AwardID, Citation: r.Citation, UpdatedBy: r.UpdatedBy, UpdatedAt: r.UpdatedAt}
		if err := json.Unmarshal(r.Add, &e.Add); err != nil {
			return nil, fmt.Errorf("store award edit %s of contest %d: teams added: %w", r.AwardID, contestID, err)
		}
		if err := json.Unmarshal(r.Remove, &e.Remove); err != nil {
			return nil, fmt.Errorf("store award edit %s of contest %d: teams removed: %w", r.AwardID, contestID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// ErrFinalized: the contest's results are finalised (its awards
// published); they can no longer be edited.
var ErrFinalized = errors.New("store: the contest is finalized")

// SetContestAwardEdit stores (replaces) the edit of one award, unless the
// contest is finalised (ErrFinalized).
func (s *Store) SetContestAwardEdit(ctx context.Context, contestID int64, e AwardEdit) error {
	add, _ := json.Marshal(nonNil(e.Add))
	remove, _ := json.Marshal(nonNil(e.Remove))
	res, err := s.DB.ExecContext(ctx, `INSERT INTO contest_award_edits (contest_id, award_id, citation, add_teams, remove_teams, updated_by)
		SELECT id, ?, ?, ?, ?, ? FROM contests WHERE id = ? AND finalized_at IS NULL
		ON DUPLICATE KEY UPDATE citation = VALUES(citation), add_teams = VALUES(add_teams), remove_teams = VALUES(remove_teams),
		updated_by = VALUES(updated_by)`, e.AwardID, e.Citation, string(add), string(remove), e.UpdatedBy, contestID)
	if err != nil {
		return mapErr(fmt.Sprintf("store set award edit %s of contest %d", e.AwardID, contestID), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s.finalizedOr(ctx, contestID, nil)
	}
	return nil
}

// DeleteContestAwardEdit drops the edit of one award (the award is then
// as computed), unless the contest is finalised (ErrFinalized). Dropping
// an edit that does not exist is no error.
func (s *Store) DeleteContestAwardEdit(ctx context.Context, contestID int64, awardID string) error {
	if err := s.finalizedOr(ctx, contestID, nil); err != nil {
		return err
	}
	_, err := s.DB.ExecContext(ctx, `DELETE e FROM contest_award_edits e JOIN contests c ON c.id = e.contest_id
		WHERE e.contest_id = ? AND e.award_id = ? AND c.finalized_at IS NULL`, contestID, awardID)
	return mapErr(fmt.Sprintf("store delete award edit %s of contest %d", awardID, contestID), err)
}

// finalizedOr returns ErrFinalized when the contest is finalised,
// ErrNotFound when there is no such contest, else otherwise.
func (s *Store) finalizedOr(ctx context.Context, contestID int64, otherwise error) error {
	var at sql.NullTime
	err := s.DB.GetContext(ctx, &at, "SELECT finalized_at FROM contests WHERE id = ?", contestID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return ErrNotFound
	case err != nil:
		return fmt.Errorf("store contest %d: %w", contestID, err)
	case at.Valid:
		return ErrFinalized
	}
	return otherwise
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Unjudged is a contest submission pending judgement as the CCS
// requirements define it: no final verdict yet, or a system error (the
// CLICS Judging Error).
type Unjudged struct {
	ID        int64          `db:"id"`
	UserID    int64          `db:"user_id"`
	TeamExtID sql.NullString `db:"team_ext_id"`
	ProblemID int64          `db:"problem_id"`
	Verdict   string         `db:"verdict"`
}

// ContestUnjudged returns a contest's submissions pending judgement, in
// id order.
func (s *Store) ContestUnjudged(ctx context.Context, contestID int64) ([]Unjudged, error) {
	out := []Unjudged{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT s.id, s.user_id, t.ext_id AS team_ext_id, s.problem_id, s.verdict
		FROM submissions s LEFT JOIN teams t ON t.id = s.team_id
		WHERE s.contest_id = ? AND s.verdict IN ('', 'pending', 'queued', 'compiling', 'judging', 'SE') ORDER BY s.id`,
		contestID); err != nil {
		return nil, fmt.Errorf("store unjudged submissions of contest %d: %w", contestID, err)
	}
	return out, nil
}

// UnansweredClarifications counts a contest's questions without an
// answer.
func (s *Store) UnansweredClarifications(ctx context.Context, contestID int64) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT COUNT(*) FROM clarifications
		WHERE contest_id = ? AND question IS NOT NULL AND answer IS NULL`, contestID); err != nil {
		return 0, fmt.Errorf("store unanswered clarifications of contest %d: %w", contestID, err)
	}
	return n, nil
}

// Finalization is who finalised a contest's results, when and why.
type Finalization struct {
	At      sql.NullTime   `db:"finalized_at"`
	By      sql.NullInt64  `db:"finalized_by"`
	ByName  sql.NullString `db:"username"`
	Comment string         `db:"finalize_comment"`
}

// ContestFinalization returns a contest's finalisation (At invalid: not
// finalised).
func (s *Store) ContestFinalization(ctx context.Context, contestID int64) (Finalization, error) {
	var f Finalization
	err := s.DB.GetContext(ctx, &f, `SELECT c.finalized_at, c.finalized_by, u.username, c.finalize_comment
		FROM contests c LEFT JOIN users u ON u.id = c.finalized_by WHERE c.id = ?`, contestID)
	if errors.Is(err, sql.ErrNoRows) {
		return Finalization{}, ErrNotFound
	}
	if err != nil {
		return Finalization{}, fmt.Errorf("store finalization of contest %d: %w", contestID, err)
	}
	return f, nil
}

// FinalizeContest marks a contest's results final at at, once
// (ErrFinalized when it already is). The caller checks the conditions
// (the contest is over, nothing is pending, no question is unanswered).
func (s *Store) FinalizeContest(ctx context.Context, contestID, by int64, comment string, at time.Time) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE contests SET finalized_at = ?, finalized_by = ?, finalize_comment = ?
		WHERE id = ? AND finalized_at IS NULL`, at.UTC(), by, comment, contestID)
	if err != nil {
		return fmt.Errorf("store finalize contest %d: %w", contestID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return s.finalizedOr(ctx, contestID, ErrNotFound)
	}
	return nil
}
