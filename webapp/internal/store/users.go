package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	// SessionsAfter: sessions created before it are void (a password
	// change logs the user out everywhere).
	SessionsAfter sql.NullTime `db:"sessions_after"`
	CreatedAt     time.Time    `db:"created_at"`
}

// sessionsCutoff is "now" for sessions_after, on this process's clock:
// sessions are stamped by the web nodes' clocks (session.Session.CreatedAt),
// not MySQL's, and a session created right after the cut-off on the same
// node must stay valid whatever the skew between the two hosts.
func sessionsCutoff() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// SessionValid reports whether a session of u created at created may still
// be used.
func (u *User) SessionValid(created time.Time) bool {
	return !u.Disabled && (!u.SessionsAfter.Valid || !created.Before(u.SessionsAfter.Time))
}

// IsStaff reports whether the user may see and edit private problems.
func (u *User) IsStaff() bool { return u.Role == RoleAdmin || u.Role == RoleSetter }

const userCols = "id, username, display_name, email, role, password_hash, disabled, sessions_after, created_at"

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

// SetPasswordHash replaces a user's password hash and ends every session
// of the user created before now.
func (s *Store) SetPasswordHash(ctx context.Context, id int64, hash string) error {
	res, err := s.DB.ExecContext(ctx, "UPDATE users SET password_hash = ?, sessions_after = ? WHERE id = ?", hash, sessionsCutoff(), id)
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

// UserFilter selects users for ListUsers. Zero fields do not filter.
type UserFilter struct {
	// Query matches a username prefix, or a substring of the display name
	// or e-mail (case-insensitive under the table's collation).
	Query    string
	Role     string
	Disabled *bool
}

// ListUsers returns up to limit users with id > after matching f, by id.
// The username prefix uses uk_users_username; a display name or e-mail
// substring scans the table, which is fine for an admin page (tens of
// thousands of users).
func (s *Store) ListUsers(ctx context.Context, f UserFilter, after int64, limit int) ([]User, error) {
	q := "SELECT " + userCols + " FROM users WHERE id > ?"
	args := []any{after}
	if f.Query != "" {
		like := likeEscape(f.Query)
		q += " AND (username LIKE ? OR display_name LIKE ? OR email LIKE ?)"
		args = append(args, like+"%", "%"+like+"%", "%"+like+"%")
	}
	if f.Role != "" {
		q += " AND role = ?"
		args = append(args, f.Role)
	}
	if f.Disabled != nil {
		q += " AND disabled = ?"
		args = append(args, *f.Disabled)
	}
	q += " ORDER BY id LIMIT ?"
	args = append(args, limit)
	out := []User{}
	if err := s.DB.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("store list users: %w", err)
	}
	return out, nil
}

// likeEscape escapes LIKE's wildcards (and its escape character) in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

// UserUpdate is an admin's change to a user; nil fields stay.
type UserUpdate struct {
	DisplayName *string
	Email       *sql.NullString
	Role        *string
	Disabled    *bool
}

// UpdateUser applies up to id's row and returns the user as stored. A taken
// e-mail is a *DuplicateError; an unknown id is ErrNotFound. Disabling a
// user also ends their sessions.
func (s *Store) UpdateUser(ctx context.Context, id int64, up UserUpdate) (User, error) {
	var sets []string
	var args []any
	if up.DisplayName != nil {
		sets, args = append(sets, "display_name = ?"), append(args, *up.DisplayName)
	}
	if up.Email != nil {
		sets, args = append(sets, "email = ?"), append(args, *up.Email)
	}
	if up.Role != nil {
		sets, args = append(sets, "role = ?"), append(args, *up.Role)
	}
	if up.Disabled != nil {
		sets, args = append(sets, "disabled = ?"), append(args, *up.Disabled)
		if *up.Disabled {
			sets, args = append(sets, "sessions_after = ?"), append(args, sessionsCutoff())
		}
	}
	if len(sets) > 0 {
		args = append(args, id)
		if _, err := s.DB.ExecContext(ctx, "UPDATE users SET "+strings.Join(sets, ", ")+" WHERE id = ?", args...); err != nil {
			return User{}, mapErr("store update user", err)
		}
	}
	return s.UserByID(ctx, id)
}
