package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Accounts (accounts.tsv, accounts.json; docs/icpc.md "Accounts"): the
// users are written by ImportUsers; JoinTeams then puts the team
// accounts on their teams and registers them in the contest.

// ErrOnAnotherTeam: a user is on another team of the contest already.
var ErrOnAnotherTeam = errors.New("store: the user is on another team of the contest")

// TeamJoin is a user to register in a contest and, when TeamExtID is set,
// to put on that team (a team contest's).
type TeamJoin struct {
	Username  string
	TeamExtID string
}

// JoinTeams registers each user in the contest and adds it to its team
// (leaving the team's other members), in one transaction. A user on
// another team of the contest, an unknown user or team fails it all.
// It returns the members added and the users newly registered.
func (s *Store) JoinTeams(ctx context.Context, contestID int64, joins []TeamJoin) (members, registered int, err error) {
	err = s.inTx(ctx, fmt.Sprintf("store join teams of contest %d", contestID), func(tx *sqlx.Tx) error {
		members, registered = 0, 0
		teams, err := extIDs(ctx, tx, "teams", contestID)
		if err != nil {
			return err
		}
		var current []struct {
			UserID int64 `db:"user_id"`
			TeamID int64 `db:"team_id"`
		}
		if err := tx.SelectContext(ctx, &current, "SELECT user_id, team_id FROM team_members WHERE contest_id = ?", contestID); err != nil {
			return err
		}
		onTeam := map[int64]int64{}
		for _, c := range current {
			onTeam[c.UserID] = c.TeamID
		}
		ids := make([]int64, 0, len(joins))
		for _, j := range joins {
			var uid int64
			if err := tx.GetContext(ctx, &uid, "SELECT id FROM users WHERE username = ?", j.Username); err != nil {
				return fmt.Errorf("user %q: %w", j.Username, err)
			}
			ids = append(ids, uid)
			if j.TeamExtID == "" {
				continue
			}
			tid, ok := teams[j.TeamExtID]
			if !ok {
				return fmt.Errorf("no team %q: %w", j.TeamExtID, ErrNotFound)
			}
			switch cur, on := onTeam[uid]; {
			case on && cur == tid:
				continue
			case on:
				return fmt.Errorf("%q: %w", strings.ToLower(j.Username), ErrOnAnotherTeam)
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO team_members (team_id, contest_id, user_id) VALUES (?, ?, ?)",
				tid, contestID, uid); err != nil {
				return err
			}
			onTeam[uid] = tid
			members++
		}
		registered, err = insertParticipants(ctx, tx, contestID, ids)
		return err
	})
	return members, registered, err
}
