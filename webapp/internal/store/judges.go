package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Judge is a row of judges.
type Judge struct {
	ID         int64        `db:"id"`
	Name       string       `db:"name"`
	TokenHash  []byte       `db:"token_hash"`
	CreatedAt  time.Time    `db:"created_at"`
	RevokedAt  sql.NullTime `db:"revoked_at"`
	LastSeenAt sql.NullTime `db:"last_seen_at"`
}

const judgeCols = "id, name, token_hash, created_at, revoked_at, last_seen_at"

// JudgeByName returns one judge or ErrNotFound.
func (s *Store) JudgeByName(ctx context.Context, name string) (Judge, error) {
	var j Judge
	err := s.DB.GetContext(ctx, &j, "SELECT "+judgeCols+" FROM judges WHERE name = ?", name)
	if errors.Is(err, sql.ErrNoRows) {
		return Judge{}, fmt.Errorf("store get judge %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Judge{}, fmt.Errorf("store get judge %q: %w", name, err)
	}
	return j, nil
}

// SetJudgeToken creates the judge or replaces its token hash, clearing a
// revocation: the old token stops working at once.
func (s *Store) SetJudgeToken(ctx context.Context, name string, tokenHash []byte) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO judges (name, token_hash) VALUES (?, ?)
		ON DUPLICATE KEY UPDATE token_hash = VALUES(token_hash), revoked_at = NULL`, name, tokenHash)
	return mapErr("store set judge token "+name, err)
}

// ActiveJudges returns every judge whose token is not revoked.
func (s *Store) ActiveJudges(ctx context.Context) ([]Judge, error) {
	var js []Judge
	err := s.DB.SelectContext(ctx, &js, "SELECT "+judgeCols+" FROM judges WHERE revoked_at IS NULL ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("store active judges: %w", err)
	}
	return js, nil
}

// ListJudges returns every judge, revoked ones too, by name.
func (s *Store) ListJudges(ctx context.Context) ([]Judge, error) {
	js := []Judge{}
	if err := s.DB.SelectContext(ctx, &js, "SELECT "+judgeCols+" FROM judges ORDER BY name"); err != nil {
		return nil, fmt.Errorf("store list judges: %w", err)
	}
	return js, nil
}

// RevokeJudge revokes a judge's token at now; revoking a revoked judge
// keeps the first revocation time. ErrNotFound when no judge has the name.
func (s *Store) RevokeJudge(ctx context.Context, name string, now time.Time) error {
	res, err := s.DB.ExecContext(ctx,
		"UPDATE judges SET revoked_at = COALESCE(revoked_at, ?) WHERE name = ?", now.UTC(), name)
	if err != nil {
		return fmt.Errorf("store revoke judge %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.JudgeByName(ctx, name); err != nil {
			return fmt.Errorf("store revoke judge: %w", err)
		}
	}
	return nil
}

// TouchJudgeSeen raises a judge's last_seen_at to at (never lowers it).
func (s *Store) TouchJudgeSeen(ctx context.Context, name string, at time.Time) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE judges SET last_seen_at = ?
		WHERE name = ? AND (last_seen_at IS NULL OR last_seen_at < ?)`, at.UTC(), name, at.UTC())
	if err != nil {
		return fmt.Errorf("store touch judge %q: %w", name, err)
	}
	return nil
}
