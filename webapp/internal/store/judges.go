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
