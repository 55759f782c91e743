package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/verdict-oj/verdict/internal/session"
)

// Roles of users: the names sessions carry (internal/session owns them).
const (
	RoleAdmin   = session.RoleAdmin
	RoleSetter  = session.RoleSetter
	RoleStudent = session.RoleStudent
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
	// SessionEpoch is copied into every session at login; a session is
	// valid only while it equals the user's. Bumping it (a password
	// change or reset, a role change, disabling) logs the user out
	// everywhere, including a login that read the user just before.
	SessionEpoch uint32    `db:"session_epoch"`
	CreatedAt    time.Time `db:"created_at"`
}

// SessionValid reports whether a session made at epoch may still be used
// (the rule of internal/session, which the hubs apply too).
func (u *User) SessionValid(epoch uint32) bool {
	return session.Current{Epoch: u.SessionEpoch, Disabled: u.Disabled}.Valid(epoch)
}

// ErrStale: the user changed since it was read (a conditional update found
// another epoch).
var ErrStale = errors.New("store: the user changed meanwhile")

// ErrLastAdmin: the change would leave no enabled admin.
var ErrLastAdmin = errors.New("store: the last enabled admin cannot be demoted or disabled")

// IsStaff reports whether the user may see and edit private problems.
func (u *User) IsStaff() bool { return IsStaffRole(u.Role) }

// IsStaffRole reports whether role is a staff role (admin or setter).
func IsStaffRole(role string) bool { return role == RoleAdmin || role == RoleSetter }

const userCols = "id, username, display_name, email, role, password_hash, disabled, session_epoch, created_at"

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

// loadUserByID reads one user or ErrNotFound (UserByID: through the cache).
func (s *Store) loadUserByID(ctx context.Context, id int64) (User, error) {
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

// SetPasswordHash replaces a user's password hash and ends all their
// sessions (the epoch moves on).
func (s *Store) SetPasswordHash(ctx context.Context, id int64, hash string) error {
	res, err := s.DB.ExecContext(ctx, "UPDATE users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE id = ?", hash, id)
	if err != nil {
		return fmt.Errorf("store set password %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store set password %d: %w", id, ErrNotFound)
	}
	return nil
}

// ChangePasswordHash replaces the hash only if the user is still at epoch
// (the one whose password was just checked), and returns the new epoch. A
// reset or another change in between makes it ErrStale: the last of two
// racing changes must not silently undo the first.
func (s *Store) ChangePasswordHash(ctx context.Context, id int64, epoch uint32, hash string) (uint32, error) {
	res, err := s.DB.ExecContext(ctx, "UPDATE users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE id = ? AND session_epoch = ?",
		hash, id, epoch)
	if err != nil {
		return 0, fmt.Errorf("store change password %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, fmt.Errorf("store change password %d: %w", id, ErrStale)
	}
	return epoch + 1, nil
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
		q += " AND (username LIKE ? ESCAPE '!' OR display_name LIKE ? ESCAPE '!' OR email LIKE ? ESCAPE '!')"
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

// likeEscape escapes LIKE's wildcards and the escape character '!' in s
// (an explicit ESCAPE '!', so that it holds under NO_BACKSLASH_ESCAPES too).
func likeEscape(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// UserUpdate is an admin's change to a user; nil fields stay.
type UserUpdate struct {
	DisplayName *string
	Email       *sql.NullString
	Role        *string
	Disabled    *bool
}

// UpdateUser applies up to id's row and returns the user as stored. A taken
// e-mail is a *DuplicateError; an unknown id is ErrNotFound. A role change
// or disabling ends the user's sessions (the epoch moves on: the hub takes
// the role from the session). Demoting or disabling the last enabled admin
// is ErrLastAdmin, checked under a lock on the admins so that two admins
// demoting each other at once cannot both succeed.
func (s *Store) UpdateUser(ctx context.Context, id int64, up UserUpdate) (User, error) {
	err := s.inTx(ctx, fmt.Sprintf("store update user %d", id), func(tx *sqlx.Tx) error {
		var cur User
		if err := tx.GetContext(ctx, &cur, "SELECT "+userCols+" FROM users WHERE id = ? FOR UPDATE", id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNotFound
			}
			return err
		}
		var sets []string
		var args []any
		bump := false
		if up.DisplayName != nil {
			sets, args = append(sets, "display_name = ?"), append(args, *up.DisplayName)
		}
		if up.Email != nil {
			sets, args = append(sets, "email = ?"), append(args, *up.Email)
		}
		if up.Role != nil && *up.Role != cur.Role {
			sets, args = append(sets, "role = ?"), append(args, *up.Role)
			bump = true
		}
		if up.Disabled != nil && *up.Disabled != cur.Disabled {
			sets, args = append(sets, "disabled = ?"), append(args, *up.Disabled)
			bump = bump || *up.Disabled
		}
		if len(sets) == 0 {
			return nil
		}
		stillAdmin := (up.Role == nil || *up.Role == RoleAdmin) && (up.Disabled == nil || !*up.Disabled)
		if cur.Role == RoleAdmin && !cur.Disabled && !stillAdmin {
			var others int
			if err := tx.GetContext(ctx, &others, "SELECT COUNT(*) FROM (SELECT id FROM users WHERE role = 'admin' AND disabled = 0 AND id <> ? FOR UPDATE) a", id); err != nil {
				return err
			}
			if others == 0 {
				return ErrLastAdmin
			}
		}
		if bump {
			sets = append(sets, "session_epoch = session_epoch + 1")
		}
		args = append(args, id)
		_, err := tx.ExecContext(ctx, "UPDATE users SET "+strings.Join(sets, ", ")+" WHERE id = ?", args...)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, id)
}
