package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// TestImportUsersSideBySide: admins importing at once, into one contest,
// users whose names interleave (so their index gaps are shared), each
// import new users and updates of users the others update too. Every
// import succeeds, with every user created once, registered once, and the
// updates applied. Before the store took no gap locks and retried a
// deadlock, two such imports deadlocked in MySQL (Error 1213) and the
// import answered 503.
func TestImportUsersSideBySide(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	now := time.Now()
	cid, err := s.CreateContest(ctx, Contest{Slug: "c", Title: "C", Rule: ModeICPC, StartAt: now, EndAt: now.Add(time.Hour),
		Registration: RegistrationList, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	const (
		importers = 4
		rows      = 150
		shared    = 20 // existing users every import updates
	)
	var existing []ImportUser
	for i := range shared {
		existing = append(existing, ImportUser{Line: i + 1, Username: fmt.Sprintf("s%03d", i), DisplayName: "S", Role: RoleStudent, PasswordHash: "h0"})
	}
	if _, _, err := s.ImportUsers(ctx, existing, 0); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		var wg sync.WaitGroup
		res := make([]ImportResult, importers)
		errs := make([]error, importers)
		for k := range importers {
			var batch []ImportUser
			for i := range rows {
				batch = append(batch, ImportUser{Line: i + 1, Username: fmt.Sprintf("r%d-u%04d-%d", round, i, k),
					DisplayName: "U", Role: RoleStudent, PasswordHash: "h"})
			}
			for i := range shared {
				// Updates without a password keep it and end no sessions.
				batch = append(batch, ImportUser{Line: rows + i + 1, Username: fmt.Sprintf("s%03d", i),
					DisplayName: fmt.Sprintf("S%d", round), Role: RoleStudent})
			}
			wg.Go(func() {
				var lineErrs []ImportLineError
				res[k], lineErrs, errs[k] = s.ImportUsers(ctx, batch, cid)
				if len(lineErrs) > 0 {
					errs[k] = errors.Join(errs[k], fmt.Errorf("line errors %+v", lineErrs))
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		registered := 0
		for k, r := range res {
			if r.Created != rows || r.Updated != shared || len(r.Ended) != 0 {
				t.Fatalf("round %d, import %d: %+v", round, k, r)
			}
			registered += r.Registered
		}
		// The shared users are registered by whichever import came first.
		if want := importers*rows + map[bool]int{true: shared}[round == 0]; registered != want {
			t.Fatalf("round %d: %d registered, want %d", round, registered, want)
		}
	}
	var users, parts, renamed int
	s.DB.Get(&users, "SELECT COUNT(*) FROM users")
	s.DB.Get(&parts, "SELECT COUNT(*) FROM contest_participants WHERE contest_id = ?", cid)
	s.DB.Get(&renamed, "SELECT COUNT(*) FROM users WHERE display_name = 'S2' AND password_hash = 'h0'")
	if want := 3*importers*rows + shared; users != want || parts != want || renamed != shared {
		t.Fatalf("%d users, %d participants, %d renamed; want %d, %d, %d", users, parts, renamed, want, want, shared)
	}
}

// TestInTxRetried: a transaction MySQL rolled back for a deadlock or a
// lock wait timeout runs again, up to four times in all; other errors,
// and a cancelled context, are returned at once.
func TestInTxRetried(t *testing.T) {
	s := migrated(t)
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	lockWait := &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}
	other := &mysql.MySQLError{Number: 1146, Message: "Table doesn't exist"}
	for _, c := range []struct {
		name   string
		cancel bool    // the context ends during the first try
		fails  []error // what each try returns, then nil
		tries  int
		want   error
	}{
		{"deadlock then success", false, []error{deadlock, lockWait}, 3, nil},
		{"deadlocks every time", false, []error{deadlock, deadlock, deadlock, deadlock, deadlock}, 4, deadlock},
		{"other error", false, []error{other}, 1, other},
		{"cancelled", true, []error{deadlock}, 1, deadlock},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tries := 0
			err := s.inTxRetried(ctx, "op", func(tx *sqlx.Tx) error {
				tries++
				if c.cancel {
					cancel()
				}
				if tries <= len(c.fails) {
					return c.fails[tries-1]
				}
				return nil
			})
			if tries != c.tries || (c.want == nil) != (err == nil) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("%d tries, %v; want %d, %v", tries, err, c.tries, c.want)
			}
		})
	}
}
