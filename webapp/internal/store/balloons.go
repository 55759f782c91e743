package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Awards settings, problem colours and balloon marks (migration 0011,
// docs/icpc.md).

// AwardSettings are a contest's medal counts and honourable-mention rule.
type AwardSettings struct {
	Gold                 int  `db:"gold_medals"`
	Silver               int  `db:"silver_medals"`
	Bronze               int  `db:"bronze_medals"`
	HonorableBelowMedian bool `db:"honorable_below_median"`
}

// DefaultAwardSettings are a contest's without a row: 4/4/4, the median rule.
var DefaultAwardSettings = AwardSettings{Gold: 4, Silver: 4, Bronze: 4, HonorableBelowMedian: true}

// ContestAwardSettings returns a contest's award settings (the defaults
// when none were set).
func (s *Store) ContestAwardSettings(ctx context.Context, contestID int64) (AwardSettings, error) {
	var a AwardSettings
	err := s.DB.GetContext(ctx, &a, `SELECT gold_medals, silver_medals, bronze_medals, honorable_below_median
		FROM contest_award_settings WHERE contest_id = ?`, contestID)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultAwardSettings, nil
	}
	if err != nil {
		return AwardSettings{}, fmt.Errorf("store award settings of contest %d: %w", contestID, err)
	}
	return a, nil
}

// SetContestAwardSettings stores a contest's award settings.
func (s *Store) SetContestAwardSettings(ctx context.Context, contestID int64, a AwardSettings) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO contest_award_settings
		(contest_id, gold_medals, silver_medals, bronze_medals, honorable_below_median) VALUES (?, ?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE gold_medals = VALUES(gold_medals), silver_medals = VALUES(silver_medals),
		bronze_medals = VALUES(bronze_medals), honorable_below_median = VALUES(honorable_below_median)`,
		contestID, a.Gold, a.Silver, a.Bronze, a.HonorableBelowMedian)
	return mapErr(fmt.Sprintf("store set award settings of contest %d", contestID), err)
}

// ProblemColor is a problem's balloon colour in a contest.
type ProblemColor struct {
	ProblemID int64  `db:"problem_id"`
	Color     string `db:"color"`
	RGB       string `db:"rgb"`
}

// ContestProblemColors returns a contest's problem colours by problem.
func (s *Store) ContestProblemColors(ctx context.Context, contestID int64) (map[int64]ProblemColor, error) {
	var rows []ProblemColor
	if err := s.DB.SelectContext(ctx, &rows, "SELECT problem_id, color, rgb FROM contest_problem_colors WHERE contest_id = ?",
		contestID); err != nil {
		return nil, fmt.Errorf("store problem colours of contest %d: %w", contestID, err)
	}
	out := make(map[int64]ProblemColor, len(rows))
	for _, r := range rows {
		out[r.ProblemID] = r
	}
	return out, nil
}

// SetContestProblemColors replaces a contest's problem colours.
func (s *Store) SetContestProblemColors(ctx context.Context, contestID int64, colors []ProblemColor) error {
	return s.inTx(ctx, fmt.Sprintf("store set problem colours of contest %d", contestID), func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM contest_problem_colors WHERE contest_id = ?", contestID); err != nil {
			return err
		}
		for _, c := range colors {
			if _, err := tx.ExecContext(ctx, "INSERT INTO contest_problem_colors (contest_id, problem_id, color, rgb) VALUES (?, ?, ?, ?)",
				contestID, c.ProblemID, c.Color, c.RGB); err != nil {
				return err
			}
		}
		return nil
	})
}

// Accepted is an accepted submission of a contest, as the balloon list
// needs it.
type Accepted struct {
	ID          int64          `db:"id"`
	UserID      int64          `db:"user_id"`
	Username    string         `db:"username"`
	DisplayName string         `db:"display_name"`
	TeamExtID   sql.NullString `db:"team_ext_id"`
	ProblemID   int64          `db:"problem_id"`
	CreatedAt   time.Time      `db:"created_at"`
}

// ContestAccepted returns a contest's accepted submissions in id order.
func (s *Store) ContestAccepted(ctx context.Context, contestID int64) ([]Accepted, error) {
	out := []Accepted{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT s.id, s.user_id, u.username, u.display_name, t.ext_id AS team_ext_id,
		s.problem_id, s.created_at
		FROM submissions s JOIN users u ON u.id = s.user_id LEFT JOIN teams t ON t.id = s.team_id
		WHERE s.contest_id = ? AND s.verdict = 'AC' ORDER BY s.id`, contestID); err != nil {
		return nil, fmt.Errorf("store accepted submissions of contest %d: %w", contestID, err)
	}
	return out, nil
}

// BalloonKey names a balloon: a board row's team id and a problem.
type BalloonKey struct {
	Team      string
	ProblemID int64
}

// BalloonMark is a balloon's "delivered" mark.
type BalloonMark struct {
	DeliveredAt time.Time
	DeliveredBy sql.NullInt64
}

// BalloonMarks returns a contest's delivered marks.
func (s *Store) BalloonMarks(ctx context.Context, contestID int64) (map[BalloonKey]BalloonMark, error) {
	var rows []struct {
		Team        string        `db:"team"`
		ProblemID   int64         `db:"problem_id"`
		DeliveredAt time.Time     `db:"delivered_at"`
		DeliveredBy sql.NullInt64 `db:"delivered_by"`
	}
	if err := s.DB.SelectContext(ctx, &rows, "SELECT team, problem_id, delivered_at, delivered_by FROM balloons WHERE contest_id = ?",
		contestID); err != nil {
		return nil, fmt.Errorf("store balloons of contest %d: %w", contestID, err)
	}
	out := make(map[BalloonKey]BalloonMark, len(rows))
	for _, r := range rows {
		out[BalloonKey{r.Team, r.ProblemID}] = BalloonMark{DeliveredAt: r.DeliveredAt, DeliveredBy: r.DeliveredBy}
	}
	return out, nil
}

// SetBalloonDelivered marks a balloon delivered (by a staff user) or not.
func (s *Store) SetBalloonDelivered(ctx context.Context, contestID int64, k BalloonKey, delivered bool, by int64) error {
	op := fmt.Sprintf("store balloon %s/%d of contest %d", k.Team, k.ProblemID, contestID)
	if !delivered {
		_, err := s.DB.ExecContext(ctx, "DELETE FROM balloons WHERE contest_id = ? AND team = ? AND problem_id = ?",
			contestID, k.Team, k.ProblemID)
		return mapErr(op, err)
	}
	_, err := s.DB.ExecContext(ctx, `INSERT INTO balloons (contest_id, team, problem_id, delivered_by) VALUES (?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE delivered_by = delivered_by`, contestID, k.Team, k.ProblemID, by)
	return mapErr(op, err)
}
