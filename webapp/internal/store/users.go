package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Roles of users.
const (
	RoleAdmin   = "admin"
	RoleSetter  = "setter"
	RoleStudent = "student"
)

// User is a row of users.
type User struct {
	ID           int64          `db:"id"`
	Username     string         `db:"username"`
	DisplayName  string         `db:"display_name"`
	Email        sql.NullString `db:"email"`
	Role         string         `db:"role"`
	PasswordHash string         `db:"password_hash"`
	Disabled     bool           `db:"disabled"`
	CreatedAt    time.Time      `db:"created_at"`
}

// IsStaff reports whether the user may see and edit private problems.
func (u *User) IsStaff() bool { return u.Role == RoleAdmin || u.Role == RoleSetter }

const userCols = "id, username, display_name, email, role, password_hash, disabled, created_at"

// CreateUser inserts u (ID and CreatedAt are ignored) and returns it as
// stored. A taken username or email is a *DuplicateError.
func (s *Store) CreateUser(ctx context.Context, u User) (User, error) {
	res, err := s.DB.ExecContext(ctx,
		"INSERT INTO users (username, display_name, email, role, password_hash, disabled) VALUES (?, ?, ?, ?, ?, ?)",
		u.Username, u.DisplayName, u.Email, u.Role, u.PasswordHash, u.Disabled)
	if err != nil {
		return User{}, mapErr("store create user", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return User{}, fmt.Errorf("store create user: %w", err)
	}
	return s.UserByID(ctx, id)
}

// UserByID returns one user or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	return s.getUser(ctx, "SELECT "+userCols+" FROM users WHERE id = ?", id)
}

// UserByUsername returns one user or ErrNotFound.
func (s *Store) UserByUsername(ctx context.Context, username string) (User, error) {
	return s.getUser(ctx, "SELECT "+userCols+" FROM users WHERE username = ?", username)
}

func (s *Store) getUser(ctx context.Context, q string, arg any) (User, error) {
	var u User
	err := s.DB.GetContext(ctx, &u, q, arg)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("store get user %v: %w", arg, ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("store get user %v: %w", arg, err)
	}
	return u, nil
}

// SetPasswordHash replaces a user's password hash.
func (s *Store) SetPasswordHash(ctx context.Context, id int64, hash string) error {
	res, err := s.DB.ExecContext(ctx, "UPDATE users SET password_hash = ? WHERE id = ?", hash, id)
	if err != nil {
		return fmt.Errorf("store set password %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Rows affected is 0 both when absent and when unchanged.
		if _, err := s.UserByID(ctx, id); err != nil {
			return err
		}
	}
	return nil
}
