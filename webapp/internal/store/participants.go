package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Participant is a row of contest_participants with the user's name.
type Participant struct {
	UserID       int64     `db:"user_id"`
	Username     string    `db:"username"`
	DisplayName  string    `db:"display_name"`
	RegisteredAt time.Time `db:"registered_at"`
}

// ContestParticipants returns the users registered in a contest, by
// username (PRIMARY KEY (contest_id, user_id), then users by id).
func (s *Store) ContestParticipants(ctx context.Context, contestID int64) ([]Participant, error) {
	out := []Participant{}
	err := s.DB.SelectContext(ctx, &out, `SELECT pa.user_id, u.username, u.display_name, pa.registered_at
		FROM contest_participants pa JOIN users u ON u.id = pa.user_id
		WHERE pa.contest_id = ? ORDER BY u.username`, contestID)
	if err != nil {
		return nil, fmt.Errorf("store participants of contest %d: %w", contestID, err)
	}
	return out, nil
}

// ParticipantIDs returns the ids of the users registered in a contest, as
// a set (what a list contest's scoreboard shows).
func (s *Store) ParticipantIDs(ctx context.Context, contestID int64) (map[int64]bool, error) {
	var ids []int64
	if err := s.DB.SelectContext(ctx, &ids, "SELECT user_id FROM contest_participants WHERE contest_id = ?", contestID); err != nil {
		return nil, fmt.Errorf("store participant ids of contest %d: %w", contestID, err)
	}
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// participantBatch bounds the rows of one multi-row INSERT.
const participantBatch = 1000

// insertParticipants registers userIDs in a contest inside tx and returns
// how many were not registered before.
func insertParticipants(ctx context.Context, tx *sqlx.Tx, contestID int64, userIDs []int64) (int, error) {
	added := 0
	for start := 0; start < len(userIDs); start += participantBatch {
		chunk := userIDs[start:min(start+participantBatch, len(userIDs))]
		args := make([]any, 0, 2*len(chunk))
		for _, id := range chunk {
			args = append(args, contestID, id)
		}
		// Not INSERT IGNORE, which would also swallow a foreign key
		// violation (a user deleted meanwhile): an existing row is a no-op
		// update, 0 rows affected (the driver reports changed rows).
		q := "INSERT INTO contest_participants (contest_id, user_id) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?),", len(chunk)), ",") +
			" ON DUPLICATE KEY UPDATE registered_at = registered_at"
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		added += int(n)
	}
	return added, nil
}

// AddParticipants registers users in a contest in one transaction and
// returns how many were newly registered (the others already were).
func (s *Store) AddParticipants(ctx context.Context, contestID int64, userIDs []int64) (added int, err error) {
	err = s.inTx(ctx, fmt.Sprintf("store add participants to contest %d", contestID), func(tx *sqlx.Tx) error {
		added, err = insertParticipants(ctx, tx, contestID, userIDs)
		return err
	})
	return added, err
}

// RemoveParticipant unregisters a user from a contest; ErrNotFound when
// the user was not registered. Their submissions stay.
func (s *Store) RemoveParticipant(ctx context.Context, contestID, userID int64) error {
	res, err := s.DB.ExecContext(ctx, "DELETE FROM contest_participants WHERE contest_id = ? AND user_id = ?", contestID, userID)
	if err != nil {
		return fmt.Errorf("store remove participant %d from contest %d: %w", userID, contestID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store remove participant %d from contest %d: %w", userID, contestID, err)
	} else if n == 0 {
		return fmt.Errorf("store remove participant %d from contest %d: %w", userID, contestID, ErrNotFound)
	}
	return nil
}
