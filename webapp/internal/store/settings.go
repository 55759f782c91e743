package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Setting reads the JSON value of the site setting name; ErrNotFound when
// no admin has set it yet.
func (s *Store) Setting(ctx context.Context, name string) ([]byte, error) {
	var v string
	err := s.DB.GetContext(ctx, &v, "SELECT value FROM settings WHERE name = ?", name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: setting %s: %w", name, err)
	}
	return []byte(v), nil
}

// PutSetting stores the JSON value of the site setting name, set by the
// user by.
func (s *Store) PutSetting(ctx context.Context, name string, value []byte, by int64) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO settings (name, value, updated_by) VALUES (?, ?, ?)
		ON DUPLICATE KEY UPDATE value = VALUES(value), updated_by = VALUES(updated_by)`, name, string(value), by)
	if err != nil {
		return fmt.Errorf("store: put setting %s: %w", name, err)
	}
	return nil
}
