package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// ImportUser is one row of a bulk user import.
type ImportUser struct {
	Line        int // the source line, for errors
	Username    string
	DisplayName string
	Email       sql.NullString
	Role        string
	// PasswordHash replaces the password; "" keeps an existing user's
	// password (a new user needs one).
	PasswordHash string
}

// ImportLineError says why one row of an import failed.
type ImportLineError struct {
	Line    int    `json:"line"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// ErrImportRejected: at least one row failed; nothing was written.
var ErrImportRejected = errors.New("store: import rejected")

// UsersByUsername returns the existing users among names, by username.
func (s *Store) UsersByUsername(ctx context.Context, names []string) (map[string]User, error) {
	out := map[string]User{}
	for start := 0; start < len(names); start += 1000 {
		chunk := names[start:min(start+1000, len(names))]
		q, args, err := sqlxIn("SELECT "+userCols+" FROM users WHERE username IN (?)", chunk)
		if err != nil {
			return nil, err
		}
		var us []User
		if err := s.DB.SelectContext(ctx, &us, q, args...); err != nil {
			return nil, fmt.Errorf("store users by username: %w", err)
		}
		for _, u := range us {
			out[u.Username] = u
		}
	}
	return out, nil
}

// ImportResult says what ImportUsers did.
type ImportResult struct {
	Created, Updated int
	// Registered counts the imported users newly registered in the
	// contest (the others already were); 0 without a contest.
	Registered int
	// Ended lists the existing users whose sessions the import ended (a
	// new password, or a new role).
	Ended []int64
}

// ImportUsers creates or updates every user in one transaction: all or
// nothing. With contestID not 0 it also registers every imported user in
// that contest, in the same transaction. When any row fails (a taken
// e-mail, say) it returns the per-line errors and ErrImportRejected,
// having written nothing.
func (s *Store) ImportUsers(ctx context.Context, users []ImportUser, contestID int64) (res ImportResult, lineErrs []ImportLineError, err error) {
	err = s.inTx(ctx, "store import users", func(tx *sqlx.Tx) error {
		ids := make([]int64, 0, len(users))
		for _, u := range users {
			var cur struct {
				ID   int64  `db:"id"`
				Role string `db:"role"`
			}
			err := tx.GetContext(ctx, &cur, "SELECT id, role FROM users WHERE username = ? FOR UPDATE", u.Username)
			id := cur.ID
			// A new password or a new role ends the user's sessions.
			bump := 0
			if err == nil && (u.PasswordHash != "" || u.Role != cur.Role) {
				bump = 1
			}
			switch {
			case errors.Is(err, sql.ErrNoRows):
				if u.PasswordHash == "" {
					lineErrs = append(lineErrs, ImportLineError{Line: u.Line, Field: "password", Message: "a new user needs a password"})
					continue
				}
				var r sql.Result
				r, err = tx.ExecContext(ctx, `INSERT INTO users (username, display_name, email, role, password_hash)
					VALUES (?, ?, ?, ?, ?)`, u.Username, u.DisplayName, u.Email, u.Role, u.PasswordHash)
				if err == nil {
					res.Created++
					id, err = r.LastInsertId()
				}
			case err != nil:
				return err
			case u.PasswordHash == "":
				_, err = tx.ExecContext(ctx, "UPDATE users SET display_name = ?, email = ?, role = ?, session_epoch = session_epoch + ? WHERE id = ?",
					u.DisplayName, u.Email, u.Role, bump, id)
				if err == nil {
					res.Updated++
				}
			default:
				_, err = tx.ExecContext(ctx, "UPDATE users SET display_name = ?, email = ?, role = ?, password_hash = ?, session_epoch = session_epoch + ? WHERE id = ?",
					u.DisplayName, u.Email, u.Role, u.PasswordHash, bump, id)
				if err == nil {
					res.Updated++
				}
			}
			if err == nil {
				ids = append(ids, id)
				if bump == 1 {
					res.Ended = append(res.Ended, id)
				}
				continue
			}
			// A unique violation fails only its statement; the transaction
			// goes on so that every bad line is reported at once.
			var dup *DuplicateError
			if errors.As(mapErr("", err), &dup) {
				field := "username"
				if dup.Key == "uk_users_email" {
					field = "email"
				}
				lineErrs = append(lineErrs, ImportLineError{Line: u.Line, Field: field, Message: field + " is already taken"})
				continue
			}
			return err
		}
		if len(lineErrs) > 0 {
			return ErrImportRejected
		}
		if contestID == 0 {
			return nil
		}
		n, err := insertParticipants(ctx, tx, contestID, ids)
		res.Registered = n
		return err
	})
	if err != nil {
		return ImportResult{}, lineErrs, err
	}
	return res, nil, nil
}
