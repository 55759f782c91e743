package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// ContestProblemRef puts one problem in a contest.
type ContestProblemRef struct {
	ProblemID int64
	Label     string
	Points    int
}

// CreateContestWithProblems inserts c and its problems in one transaction
// and returns the contest's id. A taken slug is a *DuplicateError (key
// uk_contests_slug); a repeated label or problem one on
// uk_contest_problems_label or PRIMARY.
func (s *Store) CreateContestWithProblems(ctx context.Context, c Contest, problems []ContestProblemRef) (int64, error) {
	var id int64
	err := s.inTx(ctx, "store create contest "+c.Slug, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO contests
			(slug, title, description, rule, start_at, end_at, freeze_minutes, registration, feedback, feedback_after, visible, created_by)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, COALESCE(NULLIF(?, ''), 'full'), COALESCE(NULLIF(?, ''), 'full'), ?, ?)`,
			c.Slug, c.Title, c.Description, c.Rule, c.StartAt.UTC(), c.EndAt.UTC(), c.FreezeMinutes,
			c.Registration, c.Feedback, c.FeedbackAfter, c.Visible, c.CreatedBy)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := setContestZone(ctx, tx, id, c.TimeZone); err != nil {
			return err
		}
		if err := setContestStatus(ctx, tx, id, c.StatusVisibility); err != nil {
			return err
		}
		return insertContestProblems(ctx, tx, id, problems)
	})
	return id, err
}

// UpdateContest rewrites the editable columns of contest c.ID and, when
// problems is not nil, replaces its problem set, in one transaction.
func (s *Store) UpdateContest(ctx context.Context, c Contest, problems []ContestProblemRef) error {
	return s.inTx(ctx, fmt.Sprintf("store update contest %d", c.ID), func(tx *sqlx.Tx) error {
		var one int
		if err := tx.GetContext(ctx, &one, "SELECT 1 FROM contests WHERE id = ? FOR UPDATE", c.ID); errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contests SET slug = ?, title = ?, description = ?, rule = ?,
			start_at = ?, end_at = ?, freeze_minutes = ?, registration = ?, feedback = COALESCE(NULLIF(?, ''), feedback),
			feedback_after = COALESCE(NULLIF(?, ''), feedback_after), visible = ? WHERE id = ?`,
			c.Slug, c.Title, c.Description, c.Rule, c.StartAt.UTC(), c.EndAt.UTC(), c.FreezeMinutes,
			c.Registration, c.Feedback, c.FeedbackAfter, c.Visible, c.ID); err != nil {
			return err
		}
		if err := setContestZone(ctx, tx, c.ID, c.TimeZone); err != nil {
			return err
		}
		if err := setContestStatus(ctx, tx, c.ID, c.StatusVisibility); err != nil {
			return err
		}
		if problems == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM contest_problems WHERE contest_id = ?", c.ID); err != nil {
			return err
		}
		return insertContestProblems(ctx, tx, c.ID, problems)
	})
}

func insertContestProblems(ctx context.Context, tx *sqlx.Tx, contestID int64, problems []ContestProblemRef) error {
	for _, p := range problems {
		if _, err := tx.ExecContext(ctx, "INSERT INTO contest_problems (contest_id, problem_id, label, points) VALUES (?, ?, ?, ?)",
			contestID, p.ProblemID, p.Label, p.Points); err != nil {
			return err
		}
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil. Errors are
// mapped (duplicates to *DuplicateError) and wrapped with op.
func (s *Store) inTx(ctx context.Context, op string, fn func(tx *sqlx.Tx) error) error {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return mapErr(op, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", op, err)
	}
	return nil
}

// inTxRetried is inTx run again as retrying says. fn must start from
// scratch each time (reset what it accumulates).
func (s *Store) inTxRetried(ctx context.Context, op string, fn func(tx *sqlx.Tx) error) error {
	return retrying(ctx, func() error { return s.inTx(ctx, op, fn) })
}

// Clarification is a row of clarifications joined with the asker's name
// and the problem's label in its contest.
type Clarification struct {
	ID         int64          `db:"id"`
	ContestID  int64          `db:"contest_id"`
	UserID     sql.NullInt64  `db:"user_id"`
	Username   sql.NullString `db:"username"`
	ProblemID  sql.NullInt64  `db:"problem_id"`
	Label      sql.NullString `db:"label"`
	Question   sql.NullString `db:"question"`
	Answer     sql.NullString `db:"answer"`
	Public     bool           `db:"public"`
	AnsweredBy sql.NullInt64  `db:"answered_by"`
	CreatedAt  time.Time      `db:"created_at"`
	AnsweredAt sql.NullTime   `db:"answered_at"`
}

// IsAnnouncement reports whether staff posted it without a question.
func (c *Clarification) IsAnnouncement() bool { return !c.Question.Valid }

const clarSelect = `SELECT c.id, c.contest_id, c.user_id, u.username, c.problem_id, cp.label, c.question, c.answer,
	c.public, c.answered_by, c.created_at, c.answered_at
	FROM clarifications c
	LEFT JOIN users u ON u.id = c.user_id
	LEFT JOIN contest_problems cp ON cp.contest_id = c.contest_id AND cp.problem_id = c.problem_id`

// AddClarification inserts c (ID and times ignored; AnsweredAt is set to
// now when c has an answer) and returns it as stored.
func (s *Store) AddClarification(ctx context.Context, c Clarification) (Clarification, error) {
	stored, _, err := s.AddClarificationOnce(ctx, c, "")
	return stored, err
}

// ErrKeyInUse: an Idempotency-Key already names another request of the
// same user (a clarification of another contest).
var ErrKeyInUse = errors.New("store: the idempotency key was used for another request")

// AddClarificationOnce stores a question or an announcement under its
// poster's idempotency key (c.UserID's; "" for none): a second add with
// the same poster and key stores nothing and returns the first one,
// repeated, whatever its text (the retry of a POST whose answer was
// lost). A key that names a clarification of another contest is
// ErrKeyInUse.
func (s *Store) AddClarificationOnce(ctx context.Context, c Clarification, key string) (stored Clarification, repeated bool, err error) {
	var answeredAt, idem any
	if c.Answer.Valid {
		answeredAt = time.Now().UTC()
	}
	if key != "" {
		idem = key
	}
	res, err := s.DB.ExecContext(ctx, `INSERT INTO clarifications
		(contest_id, user_id, problem_id, question, answer, public, answered_by, answered_at, idem_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ContestID, c.UserID, c.ProblemID, c.Question, c.Answer, c.Public, c.AnsweredBy, answeredAt, idem)
	if err != nil {
		err = mapErr("store add clarification", err)
		if key == "" || !errors.Is(err, ErrDuplicate) {
			return Clarification{}, false, err
		}
		first, err := s.ClarificationByKey(ctx, c.UserID.Int64, key)
		if err != nil {
			return Clarification{}, false, fmt.Errorf("store add clarification: the key's first: %w", err)
		}
		if first.ContestID != c.ContestID {
			return Clarification{}, false, fmt.Errorf("store add clarification: clarification %d of contest %d: %w", first.ID, first.ContestID, ErrKeyInUse)
		}
		return first, true, nil
	}
	id, err := res.LastInsertId()
	if err != nil {
		return Clarification{}, false, fmt.Errorf("store add clarification: %w", err)
	}
	stored, err = s.ClarificationByID(ctx, c.ContestID, id)
	return stored, false, err
}

// ClarificationByKey returns the clarification a user posted under an
// idempotency key (in whatever contest), or ErrNotFound.
func (s *Store) ClarificationByKey(ctx context.Context, userID int64, key string) (Clarification, error) {
	var c Clarification
	err := s.DB.GetContext(ctx, &c, clarSelect+" WHERE c.user_id = ? AND c.idem_key = ?", userID, key)
	if errors.Is(err, sql.ErrNoRows) {
		return Clarification{}, fmt.Errorf("store clarification of key %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return Clarification{}, fmt.Errorf("store clarification of key %q: %w", key, err)
	}
	return c, nil
}

// ClarificationByID returns one clarification of a contest, or ErrNotFound.
func (s *Store) ClarificationByID(ctx context.Context, contestID, id int64) (Clarification, error) {
	var c Clarification
	err := s.DB.GetContext(ctx, &c, clarSelect+" WHERE c.contest_id = ? AND c.id = ?", contestID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Clarification{}, fmt.Errorf("store clarification %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Clarification{}, fmt.Errorf("store clarification %d: %w", id, err)
	}
	return c, nil
}

// AnswerClarification sets (or replaces) the answer and visibility of a
// clarification. ErrNotFound when the contest has no such clarification.
func (s *Store) AnswerClarification(ctx context.Context, contestID, id int64, answer string, public bool, by int64, now time.Time) (Clarification, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE clarifications SET answer = ?, public = ?, answered_by = ?, answered_at = ?
		WHERE contest_id = ? AND id = ?`, answer, public, by, now.UTC(), contestID, id)
	if err != nil {
		return Clarification{}, fmt.Errorf("store answer clarification %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.ClarificationByID(ctx, contestID, id); err != nil {
			return Clarification{}, err
		}
	}
	return s.ClarificationByID(ctx, contestID, id)
}

// MaxClarifications bounds one listing.
const MaxClarifications = 1000

// Clarifications returns a contest's clarifications, newest first: all of
// them when viewer is 0 and all is true (staff); otherwise the public ones
// and, when viewer is not 0, the viewer's own.
func (s *Store) Clarifications(ctx context.Context, contestID int64, all bool, viewer int64) ([]Clarification, error) {
	out := []Clarification{}
	var err error
	switch {
	case all:
		err = s.DB.SelectContext(ctx, &out, clarSelect+" WHERE c.contest_id = ? ORDER BY c.id DESC LIMIT ?", contestID, MaxClarifications)
	case viewer != 0:
		err = s.DB.SelectContext(ctx, &out, `SELECT * FROM (`+clarSelect+` WHERE c.contest_id = ? AND c.public = 1
			UNION `+clarSelect+` WHERE c.contest_id = ? AND c.user_id = ?) x ORDER BY id DESC LIMIT ?`,
			contestID, contestID, viewer, MaxClarifications)
	default:
		err = s.DB.SelectContext(ctx, &out, clarSelect+" WHERE c.contest_id = ? AND c.public = 1 ORDER BY c.id DESC LIMIT ?", contestID, MaxClarifications)
	}
	if err != nil {
		return nil, fmt.Errorf("store clarifications of contest %d: %w", contestID, err)
	}
	return out, nil
}
