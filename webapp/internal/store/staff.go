package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Status page settings of a contest (contests.status_visibility).
const (
	// StatusOwn: a contestant lists only their own submissions.
	StatusOwn = "own"
	// StatusAll: a contestant lists everyone's verdicts (no source).
	StatusAll = "all"
)

func setContestStatus(ctx context.Context, db sqlx.ExecerContext, id int64, v string) error {
	if v == "" {
		return nil
	}
	_, err := db.ExecContext(ctx, "UPDATE contests SET status_visibility = ? WHERE id = ?", v, id)
	return err
}

// filterWhere is the WHERE clause of f's filters (not its cursor, limit
// or restriction), on submissions aliased s.
func filterWhere(f SubmissionFilter) ([]string, []any) {
	var where []string
	var args []any
	add := func(cond string, a any) { where = append(where, cond); args = append(args, a) }
	if f.UserID > 0 {
		add("s.user_id = ?", f.UserID)
	}
	if f.ProblemID > 0 {
		add("s.problem_id = ?", f.ProblemID)
	}
	if f.ContestID > 0 {
		add("s.contest_id = ?", f.ContestID)
	}
	if f.Verdict != "" {
		add("s.verdict = ?", f.Verdict)
	}
	if f.Language != "" {
		add("s.language = ?", f.Language)
	}
	return where, args
}

// FilteredSubmissionIDs returns the ids of every submission f selects
// (its cursor, limit and restriction ignored), in id order, at most max+1
// of them so that a caller can refuse a selection over max. At least one
// filter must be set.
func (s *Store) FilteredSubmissionIDs(ctx context.Context, f SubmissionFilter, max int) ([]int64, error) {
	where, args := filterWhere(f)
	if len(where) == 0 {
		return nil, errors.New("store filtered submission ids: no filter")
	}
	out := []int64{}
	q := "SELECT s.id FROM submissions s WHERE " + strings.Join(where, " AND ") + " ORDER BY s.id LIMIT ?"
	if err := s.DB.SelectContext(ctx, &out, q, append(args, max+1)...); err != nil {
		return nil, fmt.Errorf("store filtered submission ids: %w", err)
	}
	return out, nil
}

// ExportSubmissions yields the submissions of a contest or a problem
// (either may be 0, not both) with their source, one row at a time from
// an open cursor, ordered by user then id: a zip of thousands of sources
// is never held in memory. finalOnly keeps each user's last submission of
// each problem.
func (s *Store) ExportSubmissions(ctx context.Context, contestID, problemID int64, finalOnly bool) iter.Seq2[*Submission, error] {
	return func(yield func(*Submission, error) bool) {
		var where []string
		var args []any
		if contestID > 0 {
			where, args = append(where, "s.contest_id = ?"), append(args, contestID)
		}
		if problemID > 0 {
			where, args = append(where, "s.problem_id = ?"), append(args, problemID)
		}
		if len(where) == 0 {
			yield(nil, errors.New("store export submissions: no contest or problem"))
			return
		}
		cond := strings.Join(where, " AND ")
		q := submissionSelect + " WHERE " + cond
		if finalOnly {
			q += ` AND NOT EXISTS (SELECT 1 FROM submissions l WHERE l.user_id = s.user_id
				AND l.problem_id = s.problem_id AND l.id > s.id` + strings.ReplaceAll(" AND "+cond, "s.", "l.") + ")"
			args = append(args, args...)
		}
		q += " ORDER BY u.username, s.id"
		rows, err := s.DB.QueryxContext(ctx, q, args...)
		if err != nil {
			yield(nil, fmt.Errorf("store export submissions: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var sub Submission
			if err := rows.StructScan(&sub); err != nil {
				yield(nil, fmt.Errorf("store export submissions: %w", err))
				return
			}
			if !yield(&sub, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(nil, fmt.Errorf("store export submissions: %w", err))
		}
	}
}

// Override is a row of submission_overrides: a jury's hand-set verdict.
type Override struct {
	ID           int64          `db:"id"`
	SubmissionID int64          `db:"submission_id"`
	UserID       sql.NullInt64  `db:"user_id"`
	Username     sql.NullString `db:"username"`
	OldVerdict   string         `db:"old_verdict"`
	NewVerdict   string         `db:"new_verdict"`
	OldScore     float64        `db:"old_score"`
	NewScore     float64        `db:"new_score"`
	Reason       string         `db:"reason"`
	CreatedAt    time.Time      `db:"created_at"`
}

// ErrNotFinal: the submission has no outcome yet to override.
var ErrNotFinal = errors.New("store: submission not judged yet")

// OverrideVerdict sets a judged submission's verdict and score by hand and
// records who, when, old and new and why, in one transaction that locks
// the row; problem_solves follows. It returns the row as it is after.
// A submission still queued or judging is ErrNotFinal.
func (s *Store) OverrideVerdict(ctx context.Context, id, byUser int64, verdict string, score float64, reason string) (Submission, error) {
	var sub Submission
	err := s.inTx(ctx, fmt.Sprintf("store override %d", id), func(tx *sqlx.Tx) error {
		var cur struct {
			Verdict   string  `db:"verdict"`
			Score     float64 `db:"score"`
			UserID    int64   `db:"user_id"`
			ProblemID int64   `db:"problem_id"`
		}
		err := tx.GetContext(ctx, &cur, "SELECT verdict, score, user_id, problem_id FROM submissions WHERE id = ? FOR UPDATE", id)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if !isFinal(cur.Verdict) {
			return ErrNotFinal
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO submission_overrides
			(submission_id, user_id, old_verdict, new_verdict, old_score, new_score, reason) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			id, byUser, cur.Verdict, verdict, cur.Score, score, reason); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE submissions SET verdict = ?, score = ? WHERE id = ?", verdict, score, id); err != nil {
			return err
		}
		// Overrides are rare: the first AC is read again, whatever the verdicts.
		if err := recomputeSolve(ctx, tx, cur.UserID, cur.ProblemID); err != nil {
			return fmt.Errorf("sync solve: %w", err)
		}
		return tx.GetContext(ctx, &sub, submissionSelect+" WHERE s.id = ?", id)
	})
	return sub, err
}

// Overrides returns a submission's overrides, oldest first.
func (s *Store) Overrides(ctx context.Context, submissionID int64) ([]Override, error) {
	out := []Override{}
	err := s.DB.SelectContext(ctx, &out, `SELECT o.id, o.submission_id, o.user_id, u.username, o.old_verdict,
		o.new_verdict, o.old_score, o.new_score, o.reason, o.created_at
		FROM submission_overrides o LEFT JOIN users u ON u.id = o.user_id
		WHERE o.submission_id = ? ORDER BY o.id`, submissionID)
	if err != nil {
		return nil, fmt.Errorf("store overrides of %d: %w", submissionID, err)
	}
	return out, nil
}

// Page is a search and a cursor over an admin list: Query matches slugs
// and titles (a substring, case-insensitive), After is the last id of the
// previous page (0: the first), Limit caps the rows.
type Page struct {
	Query string
	After int64
	Limit int
}

func (p Page) where(cols ...string) (string, []any) {
	var where []string
	var args []any
	if q := strings.TrimSpace(p.Query); q != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(q) + "%"
		var ors []string
		for _, c := range cols {
			ors = append(ors, c+" LIKE ?")
			args = append(args, like)
		}
		where = append(where, "("+strings.Join(ors, " OR ")+")")
	}
	if p.After > 0 {
		where, args = append(where, "id > ?"), append(args, p.After)
	}
	w := ""
	if len(where) > 0 {
		w = " WHERE " + strings.Join(where, " AND ")
	}
	return w, append(args, p.Limit)
}

// SearchProblems is a page of every problem (any visibility) in id order.
func (s *Store) SearchProblems(ctx context.Context, p Page) ([]ProblemSummary, error) {
	w, args := p.where("slug", "title")
	out := []ProblemSummary{}
	err := s.DB.SelectContext(ctx, &out, `SELECT id, slug, title, time_limit_ms, memory_limit_kb, mode, visibility, updated_at
		FROM problems`+w+" ORDER BY id LIMIT ?", args...)
	if err != nil {
		return nil, fmt.Errorf("store search problems: %w", err)
	}
	return out, nil
}

// SearchContests is a page of every contest (hidden ones too) in id order.
func (s *Store) SearchContests(ctx context.Context, p Page) ([]Contest, error) {
	w, args := p.where("slug", "title")
	out := []Contest{}
	if err := s.DB.SelectContext(ctx, &out, "SELECT "+contestCols+" FROM contests"+w+" ORDER BY id LIMIT ?", args...); err != nil {
		return nil, fmt.Errorf("store search contests: %w", err)
	}
	return out, nil
}
