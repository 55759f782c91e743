package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// API token scopes (api_tokens.scope, migration 0008).
const (
	ScopeRead  = "read"
	ScopeStaff = "staff"
)

// APIToken is a row of api_tokens (never the token itself: only its hash
// is stored).
type APIToken struct {
	ID        int64        `db:"id"`
	UserID    int64        `db:"user_id"`
	Name      string       `db:"name"`
	Scope     string       `db:"scope"`
	CreatedAt time.Time    `db:"created_at"`
	RevokedAt sql.NullTime `db:"revoked_at"`
}

const apiTokenCols = "id, user_id, name, scope, created_at, revoked_at"

// CreateAPIToken stores a token's hash for a user and returns the row.
func (s *Store) CreateAPIToken(ctx context.Context, userID int64, name, scope string, hash []byte) (APIToken, error) {
	res, err := s.DB.ExecContext(ctx, "INSERT INTO api_tokens (user_id, name, scope, token_hash) VALUES (?, ?, ?, ?)",
		userID, name, scope, hash)
	if err != nil {
		return APIToken{}, mapErr("store create api token", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return APIToken{}, fmt.Errorf("store create api token: %w", err)
	}
	var t APIToken
	if err := s.DB.GetContext(ctx, &t, "SELECT "+apiTokenCols+" FROM api_tokens WHERE id = ?", id); err != nil {
		return APIToken{}, fmt.Errorf("store read api token %d: %w", id, err)
	}
	return t, nil
}

// APITokens lists a user's tokens, revoked ones included, newest first.
func (s *Store) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	out := []APIToken{}
	if err := s.DB.SelectContext(ctx, &out, "SELECT "+apiTokenCols+" FROM api_tokens WHERE user_id = ? ORDER BY id DESC",
		userID); err != nil {
		return nil, fmt.Errorf("store api tokens of %d: %w", userID, err)
	}
	return out, nil
}

// RevokeAPIToken revokes one of a user's tokens (idempotent); ErrNotFound
// when the user has no such token.
func (s *Store) RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error {
	res, err := s.DB.ExecContext(ctx, "UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ?",
		now.UTC(), id, userID)
	if err != nil {
		return fmt.Errorf("store revoke api token %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var one int
		err := s.DB.GetContext(ctx, &one, "SELECT 1 FROM api_tokens WHERE id = ? AND user_id = ?", id, userID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store revoke api token %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store revoke api token %d: %w", id, err)
		}
	}
	return nil
}

// APITokenByHash returns the live (not revoked) token with that hash and
// its owner, or ErrNotFound.
func (s *Store) APITokenByHash(ctx context.Context, hash []byte) (APIToken, User, error) {
	var t APIToken
	err := s.DB.GetContext(ctx, &t, "SELECT "+apiTokenCols+" FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL", hash)
	if errors.Is(err, sql.ErrNoRows) {
		return APIToken{}, User{}, fmt.Errorf("store api token: %w", ErrNotFound)
	}
	if err != nil {
		return APIToken{}, User{}, fmt.Errorf("store api token: %w", err)
	}
	u, err := s.UserByID(ctx, t.UserID)
	if err != nil {
		return APIToken{}, User{}, err
	}
	return t, u, nil
}

// SetContestPenalty sets a contest's ICPC penalty rules.
func (s *Store) SetContestPenalty(ctx context.Context, id int64, minutes int, verdicts string) error {
	if _, err := s.DB.ExecContext(ctx, "UPDATE contests SET penalty_minutes = ?, penalty_verdicts = ? WHERE id = ?",
		minutes, verdicts, id); err != nil {
		return fmt.Errorf("store set contest %d penalty: %w", id, err)
	}
	return nil
}

// ContestCases returns the case results of a contest's submissions
// (their current attempt), by submission then case.
func (s *Store) ContestCases(ctx context.Context, contestID int64) ([]SubmissionCase, error) {
	out := []SubmissionCase{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT sc.submission_id, sc.case_index, sc.verdict, sc.time_ms, sc.memory_kb, sc.score, sc.message
		FROM submission_cases sc JOIN submissions s ON s.id = sc.submission_id
		WHERE s.contest_id = ? ORDER BY sc.submission_id, sc.case_index`, contestID); err != nil {
		return nil, fmt.Errorf("store contest %d cases: %w", contestID, err)
	}
	return out, nil
}
