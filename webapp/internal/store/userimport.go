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
	return usersByUsername(ctx, s.DB, names)
}

// usersByUsername is UsersByUsername through q (the store's pool, or a
// transaction: ImportUsers reads in its own, without locks).
func usersByUsername(ctx context.Context, q sqlx.QueryerContext, names []string) (map[string]User, error) {
	out := map[string]User{}
	for start := 0; start < len(names); start += 1000 {
		chunk := names[start:min(start+1000, len(names))]
		query, args, err := sqlxIn("SELECT "+userCols+" FROM users WHERE username IN (?)", chunk)
		if err != nil {
			return nil, err
		}
		var us []User
		if err := sqlx.SelectContext(ctx, q, &us, query, args...); err != nil {
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
//
// Imports run side by side (one admin per web node, or two admins at
// once) without deadlocking on each other's new users: which users exist
// is read once without locks, a new user is inserted straight away (an
// insert takes no gap lock, as a locking read of a missing username does,
// and two such gap locks then deadlock both inserts), and only an existing
// user's row is locked. A deadlock that remains (two imports updating the
// same users in different orders) runs the transaction again.
func (s *Store) ImportUsers(ctx context.Context, users []ImportUser, contestID int64) (res ImportResult, lineErrs []ImportLineError, err error) {
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.Username
	}
	err = s.inTxRetried(ctx, "store import users", func(tx *sqlx.Tx) error {
		res, lineErrs = ImportResult{}, nil
		// Which users exist, read without locks: the transaction's first
		// read, so a user created after it is met as a duplicate on
		// insert (importUser then updates it).
		known, err := usersByUsername(ctx, tx, names)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, len(users))
		for _, u := range users {
			_, exists := known[u.Username]
			id, created, ended, err := importUser(ctx, tx, u, exists)
			switch {
			case err == nil:
				ids = append(ids, id)
				if created {
					res.Created++
				} else {
					res.Updated++
				}
				if ended {
					res.Ended = append(res.Ended, id)
				}
				continue
			case errors.Is(err, errNeedsPassword):
				lineErrs = append(lineErrs, ImportLineError{Line: u.Line, Field: "password", Message: "a new user needs a password"})
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

// errNeedsPassword: a row for a user who does not exist has no password.
var errNeedsPassword = errors.New("store: a new user needs a password")

// importUser writes one row: inserts a user not known to exist, or locks
// and updates an existing one. It says whether it created the user and
// whether it ended the user's sessions (a new password or a new role).
func importUser(ctx context.Context, tx *sqlx.Tx, u ImportUser, exists bool) (id int64, created, ended bool, err error) {
	if !exists && u.PasswordHash != "" {
		id, err := insertImportedUser(ctx, tx, u)
		var dup *DuplicateError
		if err == nil || !errors.As(mapErr("", err), &dup) || dup.Key != "uk_users_username" {
			return id, err == nil, false, err
		}
		// Created by another import since the first read: update it.
	}
	return updateImportedUser(ctx, tx, u)
}

func insertImportedUser(ctx context.Context, tx *sqlx.Tx, u ImportUser) (int64, error) {
	r, err := tx.ExecContext(ctx, `INSERT INTO users (username, display_name, email, role, password_hash)
		VALUES (?, ?, ?, ?, ?)`, u.Username, u.DisplayName, u.Email, u.Role, u.PasswordHash)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// updateImportedUser locks an existing user's row and updates it; a user
// that does not exist is errNeedsPassword when the row has none, and
// otherwise inserted.
func updateImportedUser(ctx context.Context, tx *sqlx.Tx, u ImportUser) (id int64, created, ended bool, err error) {
	var cur struct {
		ID   int64  `db:"id"`
		Role string `db:"role"`
	}
	err = tx.GetContext(ctx, &cur, "SELECT id, role FROM users WHERE username = ? FOR UPDATE", u.Username)
	if errors.Is(err, sql.ErrNoRows) {
		if u.PasswordHash == "" {
			return 0, false, false, errNeedsPassword
		}
		id, err = insertImportedUser(ctx, tx, u)
		return id, err == nil, false, err
	}
	if err != nil {
		return 0, false, false, err
	}
	// A new password or a new role ends the user's sessions.
	bump := 0
	if u.PasswordHash != "" || u.Role != cur.Role {
		bump = 1
	}
	if u.PasswordHash == "" {
		_, err = tx.ExecContext(ctx, "UPDATE users SET display_name = ?, email = ?, role = ?, session_epoch = session_epoch + ? WHERE id = ?",
			u.DisplayName, u.Email, u.Role, bump, cur.ID)
	} else {
		_, err = tx.ExecContext(ctx, "UPDATE users SET display_name = ?, email = ?, role = ?, password_hash = ?, session_epoch = session_epoch + ? WHERE id = ?",
			u.DisplayName, u.Email, u.Role, u.PasswordHash, bump, cur.ID)
	}
	return cur.ID, false, bump == 1, err
}
