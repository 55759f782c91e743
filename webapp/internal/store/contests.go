package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Contest registration kinds.
const (
	RegistrationOpen = "open"
	RegistrationList = "list"
)

// Contest is a row of contests.
type Contest struct {
	ID            int64     `db:"id"`
	Slug          string    `db:"slug"`
	Title         string    `db:"title"`
	Description   string    `db:"description"`
	Rule          string    `db:"rule"`
	StartAt       time.Time `db:"start_at"`
	EndAt         time.Time `db:"end_at"`
	FreezeMinutes int       `db:"freeze_minutes"`
	// PenaltyMinutes is the ICPC penalty of a rejected try before the
	// accepted one; PenaltyVerdicts the verdicts that count as a try
	// ("" = every rejected verdict but CE and SE; else comma-separated
	// codes). Migration 0008; set by SetContestPenalty.
	PenaltyMinutes  int    `db:"penalty_minutes"`
	PenaltyVerdicts string `db:"penalty_verdicts"`
	Registration    string `db:"registration"`
	// TimeZone is the IANA zone (Europe/Berlin) the contest's times are
	// shown and entered in; StartAt and EndAt are instants either way.
	// "UTC" by default (migration 0006).
	TimeZone string `db:"time_zone"`
	// Feedback is what contestants see of their results
	// (protocol.FeedbackPolicy); FeedbackAfter the policy once a closed
	// contest ended.
	Feedback      string `db:"feedback"`
	FeedbackAfter string `db:"feedback_after"`
	// StatusVisibility is what contestants see of others' submissions on
	// the status page: StatusOwn or StatusAll (migration 0007).
	StatusVisibility string        `db:"status_visibility"`
	Visible          bool          `db:"visible"`
	CreatedBy        sql.NullInt64 `db:"created_by"`
	CreatedAt        time.Time     `db:"created_at"`
	UpdatedAt        time.Time     `db:"updated_at"`
	// UnfrozenAt is when an admin revealed the frozen scoreboard; NULL
	// while the freeze holds.
	UnfrozenAt sql.NullTime `db:"unfrozen_at"`
	// TeamMode: a team contest (rows are teams, members submit for
	// their team; migration 0010, SetContestTeamMode).
	TeamMode bool `db:"team_mode"`
	// FinalizedAt is when an admin finalised the results (migration
	// 0014, FinalizeContest); NULL before.
	FinalizedAt sql.NullTime `db:"finalized_at"`
}

// FreezeAt is when the public scoreboard stops changing, or the zero time
// when the contest has no freeze.
func (c *Contest) FreezeAt() time.Time {
	if c.FreezeMinutes <= 0 {
		return time.Time{}
	}
	return c.EndAt.Add(-time.Duration(c.FreezeMinutes) * time.Minute)
}

// Frozen reports whether the public scoreboard hides results at now.
func (c *Contest) Frozen(now time.Time) bool {
	f := c.FreezeAt()
	return !f.IsZero() && !now.Before(f) && !c.UnfrozenAt.Valid
}

// ResultsHidden reports whether the closed feedback policy hides every
// result from contestants (and from the public scoreboard) at now.
func (c *Contest) ResultsHidden(now time.Time) bool {
	return c.Feedback == "closed" && now.Before(c.EndAt)
}

// Phase names where a contest is in time.
func (c *Contest) Phase(now time.Time) string {
	switch {
	case now.Before(c.StartAt):
		return "upcoming"
	case now.Before(c.EndAt):
		return "running"
	default:
		return "ended"
	}
}

const contestCols = "id, slug, title, description, rule, start_at, end_at, freeze_minutes, registration, feedback, feedback_after, visible, created_by, created_at, updated_at, unfrozen_at" +
	", time_zone, status_visibility, penalty_minutes, penalty_verdicts" +
	", team_mode, finalized_at"

// CreateContest inserts c and returns its id. A taken slug is a
// *DuplicateError.
func (s *Store) CreateContest(ctx context.Context, c Contest) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `INSERT INTO contests
		(slug, title, description, rule, start_at, end_at, freeze_minutes, registration, feedback, feedback_after, visible, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE(NULLIF(?, ''), 'full'), COALESCE(NULLIF(?, ''), 'full'), ?, ?)`,
		c.Slug, c.Title, c.Description, c.Rule, c.StartAt.UTC(), c.EndAt.UTC(), c.FreezeMinutes,
		c.Registration, c.Feedback, c.FeedbackAfter, c.Visible, c.CreatedBy)
	if err != nil {
		return 0, mapErr("store create contest "+c.Slug, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("store create contest %s: %w", c.Slug, err)
	}
	if err := setContestZone(ctx, s.DB, id, c.TimeZone); err != nil {
		return 0, fmt.Errorf("store create contest %s: %w", c.Slug, err)
	}
	return id, nil
}

// SetContestWindow moves a contest's start and end.
func (s *Store) SetContestWindow(ctx context.Context, id int64, start, end time.Time) error {
	if _, err := s.DB.ExecContext(ctx, "UPDATE contests SET start_at = ?, end_at = ? WHERE id = ?",
		start.UTC(), end.UTC(), id); err != nil {
		return fmt.Errorf("store set contest window %d: %w", id, err)
	}
	return nil
}

// loadContestBySlug reads one contest or ErrNotFound (ContestBySlug:
// through the cache).
func (s *Store) loadContestBySlug(ctx context.Context, slug string) (Contest, error) {
	var c Contest
	err := s.DB.GetContext(ctx, &c, "SELECT "+contestCols+" FROM contests WHERE slug = ?", slug)
	if errors.Is(err, sql.ErrNoRows) {
		return Contest{}, fmt.Errorf("store get contest %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Contest{}, fmt.Errorf("store get contest %q: %w", slug, err)
	}
	return c, nil
}

// ContestByID returns one contest or ErrNotFound.
func (s *Store) ContestByID(ctx context.Context, id int64) (Contest, error) {
	var c Contest
	err := s.DB.GetContext(ctx, &c, "SELECT "+contestCols+" FROM contests WHERE id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return Contest{}, fmt.Errorf("store get contest %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Contest{}, fmt.Errorf("store get contest %d: %w", id, err)
	}
	return c, nil
}

// SetUnfrozen reveals (at) or re-freezes (zero time) a contest's public
// scoreboard.
func (s *Store) SetUnfrozen(ctx context.Context, id int64, at time.Time) error {
	var v any
	if !at.IsZero() {
		v = at.UTC()
	}
	if _, err := s.DB.ExecContext(ctx, "UPDATE contests SET unfrozen_at = ? WHERE id = ?", v, id); err != nil {
		return fmt.Errorf("store set contest %d unfrozen: %w", id, err)
	}
	return nil
}

// ListContests returns contests, newest start first; hidden ones only when
// includeHidden.
func (s *Store) ListContests(ctx context.Context, includeHidden bool) ([]Contest, error) {
	q := "SELECT " + contestCols + " FROM contests"
	if !includeHidden {
		q += " WHERE visible = 1"
	}
	q += " ORDER BY start_at DESC, id DESC"
	out := []Contest{}
	if err := s.DB.SelectContext(ctx, &out, q); err != nil {
		return nil, fmt.Errorf("store list contests: %w", err)
	}
	return out, nil
}

// ContestProblem is a problem of a contest with its label.
type ContestProblem struct {
	ProblemID int64  `db:"problem_id"`
	Label     string `db:"label"`
	Points    int    `db:"points"`
	Slug      string `db:"slug"`
	Title     string `db:"title"`
}

// AddContestProblem puts a problem in a contest under label; idempotent
// for the same (contest, problem), updating label and points.
func (s *Store) AddContestProblem(ctx context.Context, contestID, problemID int64, label string, points int) error {
	_, err := s.DB.ExecContext(ctx, `INSERT INTO contest_problems (contest_id, problem_id, label, points)
		VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE label = VALUES(label), points = VALUES(points)`,
		contestID, problemID, label, points)
	return mapErr(fmt.Sprintf("store add contest %d problem %d", contestID, problemID), err)
}

// loadContestProblems reads a contest's problems in label order (ContestProblems:
// through the cache).
func (s *Store) loadContestProblems(ctx context.Context, contestID int64) ([]ContestProblem, error) {
	out := []ContestProblem{}
	err := s.DB.SelectContext(ctx, &out, `SELECT cp.problem_id, cp.label, cp.points, p.slug, p.title
		FROM contest_problems cp JOIN problems p ON p.id = cp.problem_id
		WHERE cp.contest_id = ? ORDER BY LENGTH(cp.label), cp.label`, contestID)
	if err != nil {
		return nil, fmt.Errorf("store contest %d problems: %w", contestID, err)
	}
	return out, nil
}

// AddParticipant registers a user in a contest (idempotent).
func (s *Store) AddParticipant(ctx context.Context, contestID, userID int64) error {
	_, err := s.DB.ExecContext(ctx,
		"INSERT IGNORE INTO contest_participants (contest_id, user_id) VALUES (?, ?)", contestID, userID)
	if err != nil {
		return fmt.Errorf("store add participant %d to contest %d: %w", userID, contestID, err)
	}
	return nil
}

// loadIsParticipant reads whether a user is registered in a contest
// (IsParticipant: through the cache).
func (s *Store) loadIsParticipant(ctx context.Context, contestID, userID int64) (bool, error) {
	var n int
	err := s.DB.GetContext(ctx, &n,
		"SELECT COUNT(*) FROM contest_participants WHERE contest_id = ? AND user_id = ?", contestID, userID)
	if err != nil {
		return false, fmt.Errorf("store is participant %d in %d: %w", userID, contestID, err)
	}
	return n > 0, nil
}

// loadInStartedContestOf reads whether the problem belongs to a contest that
// has started (at now) and in which the user is registered: what lets a
// student see a contest-only problem.
func (s *Store) loadInStartedContestOf(ctx context.Context, userID, problemID int64, now time.Time) (bool, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, `SELECT COUNT(*) FROM contest_problems cp
		JOIN contests c ON c.id = cp.contest_id
		JOIN contest_participants pa ON pa.contest_id = cp.contest_id AND pa.user_id = ?
		WHERE cp.problem_id = ? AND c.start_at <= ?`, userID, problemID, now.UTC())
	if err != nil {
		return false, fmt.Errorf("store problem %d in a contest of user %d: %w", problemID, userID, err)
	}
	return n > 0, nil
}
