package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// Submission statuses the web nodes write themselves (the outcomes come
// from judges, see protocol.Verdict).
const (
	StatusQueued = "queued"
)

// Submission is a row of submissions with the names the API shows, joined
// from users, problems and contests.
type Submission struct {
	ID             int64          `db:"id"`
	UserID         int64          `db:"user_id"`
	ProblemID      int64          `db:"problem_id"`
	ContestID      sql.NullInt64  `db:"contest_id"`
	Language       string         `db:"language"`
	Source         string         `db:"source"`
	Verdict        string         `db:"verdict"`
	Score          float64        `db:"score"`
	TimeMs         sql.NullInt64  `db:"time_ms"`
	MemoryKB       sql.NullInt64  `db:"memory_kb"`
	Attempt        int            `db:"attempt"`
	JudgeID        sql.NullString `db:"judge_id"`
	TestdataHash   sql.NullString `db:"testdata_hash"`
	CompileMessage sql.NullString `db:"compile_message"`
	CreatedAt      time.Time      `db:"created_at"`
	JudgedAt       sql.NullTime   `db:"judged_at"`
	Username       string         `db:"username"`
	DisplayName    string         `db:"display_name"`
	ProblemSlug    string         `db:"problem_slug"`
	ProblemTitle   string         `db:"problem_title"`
	ContestSlug    sql.NullString `db:"contest_slug"`
	Visibility     string         `db:"visibility"` // the problem's
	// The feedback policies that apply: the problem's (practice) and,
	// for a contest submission, the contest's and its end.
	ProblemFeedback      string         `db:"problem_feedback"`
	ContestFeedback      sql.NullString `db:"contest_feedback"`
	ContestFeedbackAfter sql.NullString `db:"contest_feedback_after"`
	ContestEndAt         sql.NullTime   `db:"contest_end_at"`
	// The contest's status page setting and visibility: whether others
	// may list this submission's verdict.
	ContestStatusVisibility sql.NullString `db:"contest_status_visibility"`
	ContestVisible          sql.NullBool   `db:"contest_visible"`
	// TeamID is the team the submission was made for (a team contest,
	// migration 0010); TeamExtID its CLICS id, TeamName its shown name.
	TeamID    sql.NullInt64  `db:"team_id"`
	TeamExtID sql.NullString `db:"team_ext_id"`
	TeamName  sql.NullString `db:"team_name"`
}

// Final reports whether the row holds an outcome (not a status).
func (s *Submission) Final() bool { return isFinal(s.Verdict) }

func isFinal(v string) bool {
	switch v {
	case "", "pending", "queued", "compiling", "judging":
		return false
	}
	return true
}

const submissionSelect = `SELECT s.id, s.user_id, s.problem_id, s.contest_id, s.language, s.source, s.verdict, s.score,
	s.time_ms, s.memory_kb, s.attempt, s.judge_id, s.testdata_hash, s.compile_message, s.created_at, s.judged_at,
	u.username, u.display_name, p.slug AS problem_slug, p.title AS problem_title, c.slug AS contest_slug,
	p.visibility, p.feedback AS problem_feedback, c.feedback AS contest_feedback,
	c.feedback_after AS contest_feedback_after, c.end_at AS contest_end_at,
	c.status_visibility AS contest_status_visibility, c.visible AS contest_visible,
	s.team_id, tm.ext_id AS team_ext_id, COALESCE(NULLIF(tm.display_name, ''), tm.name) AS team_name
	FROM submissions s
	JOIN users u ON u.id = s.user_id
	JOIN problems p ON p.id = s.problem_id
	LEFT JOIN contests c ON c.id = s.contest_id
	LEFT JOIN teams tm ON tm.id = s.team_id`

// listSelect is submissionSelect without the source (lists never show it).
var listSelect = strings.Replace(submissionSelect, "s.source,", "'' AS source,", 1)

// SubmissionCase is a row of submission_cases.
type SubmissionCase struct {
	SubmissionID int64   `db:"submission_id"`
	Index        int     `db:"case_index"`
	Verdict      string  `db:"verdict"`
	TimeMs       int64   `db:"time_ms"`
	MemoryKB     int64   `db:"memory_kb"`
	Score        float64 `db:"score"`
	Message      string  `db:"message"`
}

// NewSubmission is what CreateSubmission inserts.
type NewSubmission struct {
	UserID       int64
	ProblemID    int64
	ContestID    int64 // 0: practice
	TeamID       int64 // 0: none (a team contest's submissions have one)
	Language     string
	Source       string
	TestdataHash string
	// IdemKey is the client's idempotency key, unique per user.
	IdemKey string
}

// CreateSubmission inserts a queued submission (attempt 1) and its
// idempotency key in one transaction and returns the new row as
// SubmissionByID reads it (read inside the transaction). When the user
// already made a submission with that key it inserts nothing and returns
// that one, with created false.
func (s *Store) CreateSubmission(ctx context.Context, n NewSubmission) (sub Submission, created bool, err error) {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return sub, false, fmt.Errorf("store create submission: %w", err)
	}
	defer tx.Rollback()
	var contest, team any
	if n.ContestID > 0 {
		contest = n.ContestID
	}
	if n.TeamID > 0 {
		team = n.TeamID
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO submissions
		(user_id, problem_id, contest_id, team_id, language, source, verdict, attempt, testdata_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)`,
		n.UserID, n.ProblemID, contest, team, n.Language, n.Source, StatusQueued, n.TestdataHash)
	if err != nil {
		return sub, false, fmt.Errorf("store create submission: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return sub, false, fmt.Errorf("store create submission: %w", err)
	}
	_, err = tx.ExecContext(ctx, "INSERT INTO submission_keys (user_id, idem_key, submission_id) VALUES (?, ?, ?)",
		n.UserID, n.IdemKey, id)
	if err != nil {
		if errors.Is(mapErr("", err), ErrDuplicate) {
			// A concurrent request with the same key won: ours never was.
			_ = tx.Rollback()
			sub, err = s.SubmissionByKey(ctx, n.UserID, n.IdemKey)
			return sub, false, err
		}
		return sub, false, fmt.Errorf("store create submission key: %w", err)
	}
	if err := tx.GetContext(ctx, &sub, submissionSelect+" WHERE s.id = ?", id); err != nil {
		return Submission{}, false, fmt.Errorf("store create submission: read back %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Submission{}, false, fmt.Errorf("store create submission: commit: %w", err)
	}
	return sub, true, nil
}

// SubmissionByKey returns the user's submission made with an idempotency
// key, with its source, as SubmissionByID does, or ErrNotFound. One query:
// the key's row (its primary key) names the submission's.
func (s *Store) SubmissionByKey(ctx context.Context, userID int64, key string) (Submission, error) {
	var sub Submission
	err := s.DB.GetContext(ctx, &sub, submissionSelect+` JOIN submission_keys k ON k.submission_id = s.id
		WHERE k.user_id = ? AND k.idem_key = ?`, userID, key)
	if errors.Is(err, sql.ErrNoRows) {
		return Submission{}, fmt.Errorf("store submission by key: %w", ErrNotFound)
	}
	if err != nil {
		return Submission{}, fmt.Errorf("store submission by key: %w", err)
	}
	return sub, nil
}

// SubmissionByID returns one submission with its source, or ErrNotFound.
func (s *Store) SubmissionByID(ctx context.Context, id int64) (Submission, error) {
	var sub Submission
	err := s.DB.GetContext(ctx, &sub, submissionSelect+" WHERE s.id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return Submission{}, fmt.Errorf("store get submission %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Submission{}, fmt.Errorf("store get submission %d: %w", id, err)
	}
	return sub, nil
}

// SubmissionCases returns a submission's case results in case order.
func (s *Store) SubmissionCases(ctx context.Context, id int64) ([]SubmissionCase, error) {
	out := []SubmissionCase{}
	err := s.DB.SelectContext(ctx, &out, `SELECT submission_id, case_index, verdict, time_ms, memory_kb, score, message
		FROM submission_cases WHERE submission_id = ? ORDER BY case_index`, id)
	if err != nil {
		return nil, fmt.Errorf("store submission %d cases: %w", id, err)
	}
	return out, nil
}

// CaseCount returns the number of cases of a problem's test data version,
// or 0 when the version is unknown.
func (s *Store) CaseCount(ctx context.Context, problemID int64, hash string) (int, error) {
	var n int
	err := s.DB.GetContext(ctx, &n, "SELECT case_count FROM testdata_versions WHERE problem_id = ? AND hash = ?", problemID, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store case count %d: %w", problemID, err)
	}
	return n, nil
}

// SampleCases returns the 1-based indexes of the sample cases of a
// problem's test data version (the manifest's "sample": true), none when
// the version is unknown.
func (s *Store) SampleCases(ctx context.Context, problemID int64, hash string) ([]int, error) {
	var raw []byte
	err := s.DB.GetContext(ctx, &raw, "SELECT manifest FROM testdata_versions WHERE problem_id = ? AND hash = ?", problemID, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store sample cases %d: %w", problemID, err)
	}
	var m struct {
		Cases []struct {
			Index  int  `json:"index"`
			Sample bool `json:"sample"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("store sample cases %d: manifest: %w", problemID, err)
	}
	var out []int
	for _, c := range m.Cases {
		if c.Sample {
			out = append(out, c.Index)
		}
	}
	return out, nil
}

// TestdataExists reports whether any problem has (or had) test data with
// this hash: what a judge may download.
func (s *Store) TestdataExists(ctx context.Context, hash string) (bool, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, "SELECT COUNT(*) FROM testdata_versions WHERE hash = ?", hash); err != nil {
		return false, fmt.Errorf("store testdata %s: %w", hash, err)
	}
	return n > 0, nil
}

// SubmissionFilter selects submissions for ListSubmissions. Zero fields do
// not filter.
type SubmissionFilter struct {
	UserID    int64
	ProblemID int64
	ContestID int64
	Verdict   string
	Language  string
	// Before is the cursor: only ids below it (0: from the newest).
	Before int64
	// Limit caps the rows (default 50).
	Limit int
	// Restricted limits the rows to what a student may see: their own
	// (Viewer; 0 for an anonymous visitor), others' practice submissions
	// of public problems, and others' submissions in visible contests
	// whose status_visibility is 'all' (judging.CanSee is the same rule
	// for one row).
	Restricted bool
	Viewer     int64
}

// ListSubmissions returns submissions newest first, without their source.
// Every filter is served by an index whose last column is id
// (ix_submissions_user, _problem, _contest, _contest_user, or the primary
// key), so the page costs Limit rows plus those filtered out on the way.
func (s *Store) ListSubmissions(ctx context.Context, f SubmissionFilter) ([]Submission, error) {
	var where []string
	var args []any
	add := func(cond string, a ...any) { where = append(where, cond); args = append(args, a...) }
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
	if f.Before > 0 {
		add("s.id < ?", f.Before)
	}
	if f.Restricted {
		add(`(s.user_id = ? OR (s.contest_id IS NULL AND p.visibility = 'public')
			OR (c.visible = 1 AND c.status_visibility = 'all'))`, f.Viewer)
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	q := listSelect
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY s.id DESC LIMIT ?"
	args = append(args, f.Limit)
	out := []Submission{}
	if err := s.DB.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("store list submissions: %w", err)
	}
	return out, nil
}

// QueuedRef is an unjudged submission and the attempt it waits for.
type QueuedRef struct {
	ID        int64     `db:"id"`
	Attempt   int       `db:"attempt"`
	CreatedAt time.Time `db:"created_at"`
}

// QueuedSubmissions returns up to limit queued submissions with id > after,
// in id order (ix_submissions_verdict).
func (s *Store) QueuedSubmissions(ctx context.Context, after int64, limit int) ([]QueuedRef, error) {
	out := []QueuedRef{}
	err := s.DB.SelectContext(ctx, &out, `SELECT id, attempt, created_at FROM submissions
		WHERE verdict = ? AND id > ? ORDER BY id LIMIT ?`, StatusQueued, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store queued submissions: %w", err)
	}
	return out, nil
}

// ResultWrite is a judge's final result as ApplyResult writes it.
type ResultWrite struct {
	SubmissionID   int64
	Attempt        int
	Verdict        string
	Score          float64
	TimeMs         int64 // the slowest case's CPU time
	MemoryKB       int64 // the largest case's peak memory
	CompileMessage string
	JudgeID        string
	Cases          []SubmissionCase
}

// ApplyOutcome says what ApplyResult did.
type ApplyOutcome int

// Outcomes of ApplyResult.
const (
	// Applied: the result is now the submission's verdict.
	Applied ApplyOutcome = iota + 1
	// Duplicate: this attempt's result was already written.
	Duplicate
	// Stale: the submission moved on to a later attempt (a rejudge).
	Stale
	// Missing: no such submission.
	Missing
)

func (o ApplyOutcome) String() string {
	switch o {
	case Applied:
		return "applied"
	case Duplicate:
		return "duplicate"
	case Stale:
		return "stale"
	case Missing:
		return "missing"
	}
	return "unknown"
}

// ApplyResult writes a final result once, attempt-aware, in one
// transaction that locks the submission row: a result for an attempt lower
// than the row's is Stale, a second result for the row's attempt once it is
// final is Duplicate; both change nothing. A result for a higher attempt
// (leases expired in the queue, so it judged attempt 2 of a row still at 1)
// is applied and the row takes that attempt. Applying replaces the case
// rows and keeps problem_solves in step. It returns the row as it is after
// the call (when not Missing).
func (s *Store) ApplyResult(ctx context.Context, w ResultWrite) (ApplyOutcome, Submission, error) {
	var (
		o   ApplyOutcome
		sub Submission
	)
	err := retrying(ctx, func() (err error) {
		o, sub, err = s.applyResult(ctx, w)
		return err
	})
	return o, sub, err
}

// retrying runs a transaction (fn) again, up to four times in all, while
// MySQL rolls it back for a deadlock or a lock wait timeout and ctx lasts.
func retrying(ctx context.Context, fn func() error) error {
	for try := 1; ; try++ {
		err := fn()
		if try < 4 && retryable(err) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// retryable reports a deadlock or lock wait timeout: the transaction was
// rolled back and may simply run again.
func retryable(err error) bool {
	me, ok := errors.AsType[*mysql.MySQLError](err)
	return ok && (me.Number == 1213 || me.Number == 1205)
}

// lockedRow is what ApplyResult and Rejudge read of the submission they
// lock: what decides the outcome, and what keeps the case rows and
// problem_solves in step without reading the row again.
type lockedRow struct {
	Attempt   int          `db:"attempt"`
	Verdict   string       `db:"verdict"`
	UserID    int64        `db:"user_id"`
	ProblemID int64        `db:"problem_id"`
	CreatedAt time.Time    `db:"created_at"`
	JudgedAt  sql.NullTime `db:"judged_at"`
}

const lockRowQuery = `SELECT attempt, verdict, user_id, problem_id, created_at, judged_at
	FROM submissions WHERE id = ? FOR UPDATE`

// mayHaveCases reports whether the row may have case rows. The one write
// of case rows (applyResult) sets judged_at in the same transaction, and
// the one write that clears judged_at (Rejudge) deletes them with it: a
// row whose judged_at is NULL has none. That is every new and every
// rejudged submission, the rows nearly every result goes to, whose cases
// then cost no query. A final verdict counts too, so that a row written
// some other way is cleared all the same.
func (r *lockedRow) mayHaveCases() bool { return r.JudgedAt.Valid || isFinal(r.Verdict) }

func (s *Store) applyResult(ctx context.Context, w ResultWrite) (ApplyOutcome, Submission, error) {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return 0, Submission{}, fmt.Errorf("store apply result %d: %w", w.SubmissionID, err)
	}
	defer tx.Rollback()
	var cur lockedRow
	err = tx.GetContext(ctx, &cur, lockRowQuery, w.SubmissionID)
	if errors.Is(err, sql.ErrNoRows) {
		return Missing, Submission{}, nil
	}
	if err != nil {
		return 0, Submission{}, fmt.Errorf("store apply result %d: lock: %w", w.SubmissionID, err)
	}
	outcome := Applied
	switch {
	case w.Attempt < cur.Attempt:
		outcome = Stale
	case w.Attempt == cur.Attempt && isFinal(cur.Verdict):
		outcome = Duplicate
	}
	if outcome == Applied {
		var msg any
		if w.CompileMessage != "" {
			msg = w.CompileMessage
		}
		var judge any
		if w.JudgeID != "" {
			judge = w.JudgeID
		}
		var tms, mem any
		if len(w.Cases) > 0 {
			tms, mem = w.TimeMs, w.MemoryKB
		}
		if _, err := tx.ExecContext(ctx, `UPDATE submissions SET verdict = ?, score = ?, time_ms = ?, memory_kb = ?,
			attempt = ?, judge_id = ?, compile_message = ?, judged_at = CURRENT_TIMESTAMP(3) WHERE id = ?`,
			w.Verdict, w.Score, tms, mem, w.Attempt, judge, msg, w.SubmissionID); err != nil {
			return 0, Submission{}, fmt.Errorf("store apply result %d: %w", w.SubmissionID, err)
		}
		if err := replaceCases(ctx, tx, w.SubmissionID, cur.mayHaveCases(), w.Cases); err != nil {
			return 0, Submission{}, err
		}
		if err := syncSolve(ctx, tx, w.SubmissionID, &cur, w.Verdict); err != nil {
			return 0, Submission{}, err
		}
	}
	// The joined names and the contest's settings are not in the locked
	// row, nor is the judged_at the server set: one read returns them
	// all as SubmissionByID would.
	var sub Submission
	if err := tx.GetContext(ctx, &sub, submissionSelect+" WHERE s.id = ?", w.SubmissionID); err != nil {
		return 0, Submission{}, fmt.Errorf("store apply result %d: reread: %w", w.SubmissionID, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, Submission{}, fmt.Errorf("store apply result %d: commit: %w", w.SubmissionID, err)
	}
	return outcome, sub, nil
}

// replaceCases makes cases the submission's case rows; mayExist says
// whether it may have some already (lockedRow.mayHaveCases).
func replaceCases(ctx context.Context, tx *sqlx.Tx, id int64, mayExist bool, cases []SubmissionCase) error {
	if mayExist {
		// The submission row is locked FOR UPDATE, so its cases cannot
		// change under us: a plain read decides whether to delete, and a
		// DELETE that matches nothing (taking a gap lock that concurrent
		// inserts of other submissions deadlock on) is avoided.
		var n int
		if err := tx.GetContext(ctx, &n, "SELECT COUNT(*) FROM submission_cases WHERE submission_id = ?", id); err != nil {
			return fmt.Errorf("store cases of %d: %w", id, err)
		}
		if n > 0 {
			if _, err := tx.ExecContext(ctx, "DELETE FROM submission_cases WHERE submission_id = ?", id); err != nil {
				return fmt.Errorf("store cases of %d: %w", id, err)
			}
		}
	}
	const batch = 200
	for i := 0; i < len(cases); i += batch {
		part := cases[i:min(i+batch, len(cases))]
		q := "INSERT INTO submission_cases (submission_id, case_index, verdict, time_ms, memory_kb, score, message) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?),", len(part)), ",") +
			" ON DUPLICATE KEY UPDATE verdict = VALUES(verdict)" // a repeated case index: the last wins
		args := make([]any, 0, 7*len(part))
		for _, c := range part {
			args = append(args, id, c.Index, c.Verdict, c.TimeMs, c.MemoryKB, c.Score, c.Message)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("store cases of %d: %w", id, err)
		}
	}
	return nil
}

// mayBeAC reports whether verdict may be one the first-AC query counts
// (verdict = 'AC' in the column's collation, which ignores case and
// trailing spaces): anything but the codes judges and web nodes write for
// the other outcomes and the statuses.
func mayBeAC(verdict string) bool {
	switch verdict {
	case "WA", "TLE", "MLE", "OLE", "RE", "CE", "PE", "SE", "SK", "", "pending", "queued", "compiling", "judging":
		return false
	}
	return true
}

// syncSolve keeps problem_solves in step with the verdict of submission id
// changing from old.Verdict to verdict, old being its row as locked. The
// row of (user, problem) names the first of the user's submissions of the
// problem that is AC; only this submission's verdict changed, so:
//   - it turned AC: the ACs are those before plus this one, and the first
//     is the lower of the recorded one and this one (one statement);
//   - it may have stopped being AC (a rejudge, a WA of a higher attempt,
//     an override): it may have been the first, which is read again;
//   - neither was AC: the ACs, and the row, stay as they are (no query).
func syncSolve(ctx context.Context, tx *sqlx.Tx, id int64, old *lockedRow, verdict string) error {
	switch {
	case verdict == "AC":
		// MariaDB assigns left to right, a later assignment seeing the
		// earlier's new value: solved_at is compared with the first AC
		// before first_ac_id changes. The upsert locks the row, so two
		// ACs of one user and problem written at once both count.
		_, err := tx.ExecContext(ctx, `INSERT INTO problem_solves (user_id, problem_id, first_ac_id, solved_at)
			VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE
			solved_at = IF(VALUES(first_ac_id) < first_ac_id, VALUES(solved_at), solved_at),
			first_ac_id = LEAST(first_ac_id, VALUES(first_ac_id))`,
			old.UserID, old.ProblemID, id, old.CreatedAt)
		if err != nil {
			return fmt.Errorf("store sync solve %d: %w", id, err)
		}
		return nil
	case mayBeAC(old.Verdict) || mayBeAC(verdict):
		if err := recomputeSolve(ctx, tx, old.UserID, old.ProblemID); err != nil {
			return fmt.Errorf("store sync solve %d: %w", id, err)
		}
	}
	return nil
}

// recomputeSolve makes the problem_solves row of a user and a problem agree
// with their submissions (ix_submissions_user).
func recomputeSolve(ctx context.Context, tx *sqlx.Tx, userID, problemID int64) error {
	var first struct {
		ID sql.NullInt64 `db:"id"`
		At sql.NullTime  `db:"created_at"`
	}
	err := tx.GetContext(ctx, &first, `SELECT id, created_at FROM submissions
		WHERE user_id = ? AND problem_id = ? AND verdict = 'AC' ORDER BY id LIMIT 1`, userID, problemID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if first.ID.Valid {
		_, err = tx.ExecContext(ctx, `INSERT INTO problem_solves (user_id, problem_id, first_ac_id, solved_at)
			VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE first_ac_id = VALUES(first_ac_id), solved_at = VALUES(solved_at)`,
			userID, problemID, first.ID.Int64, first.At.Time)
	} else {
		_, err = tx.ExecContext(ctx, "DELETE FROM problem_solves WHERE user_id = ? AND problem_id = ?", userID, problemID)
	}
	return err
}

// Solved counts: how many problems a user solved, and how many users
// solved a problem.
func (s *Store) UserSolvedCount(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, "SELECT COUNT(*) FROM problem_solves WHERE user_id = ?", userID); err != nil {
		return 0, fmt.Errorf("store solved count of user %d: %w", userID, err)
	}
	return n, nil
}

// ProblemSolvedCount returns how many users solved a problem.
func (s *Store) ProblemSolvedCount(ctx context.Context, problemID int64) (int, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, "SELECT COUNT(*) FROM problem_solves WHERE problem_id = ?", problemID); err != nil {
		return 0, fmt.Errorf("store solved count of problem %d: %w", problemID, err)
	}
	return n, nil
}

// Rejudge resets a submission for a new attempt: at least minAttempt and
// above its current one, status queued, no verdict, no cases, the given
// test data version; problem_solves follows. It returns the row as reset.
func (s *Store) Rejudge(ctx context.Context, id int64, minAttempt int, testdataHash string) (Submission, error) {
	tx, err := s.DB.BeginTxx(ctx, nil)
	if err != nil {
		return Submission{}, fmt.Errorf("store rejudge %d: %w", id, err)
	}
	defer tx.Rollback()
	var cur lockedRow
	err = tx.GetContext(ctx, &cur, lockRowQuery, id)
	if errors.Is(err, sql.ErrNoRows) {
		return Submission{}, fmt.Errorf("store rejudge %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Submission{}, fmt.Errorf("store rejudge %d: %w", id, err)
	}
	next := max(cur.Attempt+1, minAttempt)
	if _, err := tx.ExecContext(ctx, `UPDATE submissions SET attempt = ?, verdict = ?, score = 0, time_ms = NULL,
		memory_kb = NULL, judge_id = NULL, compile_message = NULL, judged_at = NULL, testdata_hash = ? WHERE id = ?`,
		next, StatusQueued, testdataHash, id); err != nil {
		return Submission{}, fmt.Errorf("store rejudge %d: %w", id, err)
	}
	if err := replaceCases(ctx, tx, id, cur.mayHaveCases(), nil); err != nil {
		return Submission{}, err
	}
	if err := syncSolve(ctx, tx, id, &cur, StatusQueued); err != nil {
		return Submission{}, err
	}
	var sub Submission
	if err := tx.GetContext(ctx, &sub, submissionSelect+" WHERE s.id = ?", id); err != nil {
		return Submission{}, fmt.Errorf("store rejudge %d: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Submission{}, fmt.Errorf("store rejudge %d: commit: %w", id, err)
	}
	return sub, nil
}

// ContestSubmissions returns every submission of a contest (without
// source), in id order: what a scoreboard is rebuilt from.
func (s *Store) ContestSubmissions(ctx context.Context, contestID int64) ([]Submission, error) {
	out := []Submission{}
	if err := s.DB.SelectContext(ctx, &out, listSelect+" WHERE s.contest_id = ? ORDER BY s.id", contestID); err != nil {
		return nil, fmt.Errorf("store contest %d submissions: %w", contestID, err)
	}
	return out, nil
}

// ProblemByID returns one problem or ErrNotFound.
func (s *Store) ProblemByID(ctx context.Context, id int64) (Problem, error) {
	var p Problem
	err := s.DB.GetContext(ctx, &p, "SELECT "+problemCols+" FROM problems WHERE id = ?", id)
	if errors.Is(err, sql.ErrNoRows) {
		return Problem{}, fmt.Errorf("store get problem %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Problem{}, fmt.Errorf("store get problem %d: %w", id, err)
	}
	return p, nil
}

// ContestHasProblem returns the label of a problem in a contest, or
// ErrNotFound.
func (s *Store) ContestHasProblem(ctx context.Context, contestID, problemID int64) (string, error) {
	var label string
	err := s.DB.GetContext(ctx, &label, "SELECT label FROM contest_problems WHERE contest_id = ? AND problem_id = ?", contestID, problemID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store contest %d problem %d: %w", contestID, problemID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store contest %d problem %d: %w", contestID, problemID, err)
	}
	return label, nil
}

// JudgeByTokenHash returns the unrevoked judge with this token hash, or
// ErrNotFound.
func (s *Store) JudgeByTokenHash(ctx context.Context, hash []byte) (Judge, error) {
	var j Judge
	err := s.DB.GetContext(ctx, &j, "SELECT "+judgeCols+" FROM judges WHERE token_hash = ? AND revoked_at IS NULL", hash)
	if errors.Is(err, sql.ErrNoRows) {
		return Judge{}, fmt.Errorf("store judge by token: %w", ErrNotFound)
	}
	if err != nil {
		return Judge{}, fmt.Errorf("store judge by token: %w", err)
	}
	return j, nil
}
