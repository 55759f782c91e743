package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Problem visibilities.
const (
	VisibilityPublic      = "public"
	VisibilityPrivate     = "private"
	VisibilityContestOnly = "contest-only"
)

// Checker kinds.
const (
	CheckerExact   = "exact"
	CheckerDefault = "default"
	CheckerFloat   = "float"
	CheckerSpecial = "special"
	// CheckerICPC: the ICPC package format's default output validator
	// with the test data's flags (protocol.CheckerICPC).
	CheckerICPC = "icpc"
)

// Scoring modes of problems and rules of contests.
const (
	ModeICPC = "icpc"
	ModeIOI  = "ioi"
)

// Languages is a JSON array column of language ids.
type Languages []string

// Value implements driver.Valuer.
func (l Languages) Value() (driver.Value, error) {
	if l == nil {
		l = Languages{}
	}
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *Languages) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case []byte:
		b = v
	case string:
		b = []byte(v)
	case nil:
		*l = Languages{}
		return nil
	default:
		return fmt.Errorf("store: languages: unexpected %T", src)
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("store: languages: %w", err)
	}
	*l = out
	return nil
}

// Problem is a row of problems.
type Problem struct {
	ID             int64   `db:"id"`
	Slug           string  `db:"slug"`
	Title          string  `db:"title"`
	Statement      string  `db:"statement"`
	TimeLimitMs    int     `db:"time_limit_ms"`
	MemoryLimitKB  int     `db:"memory_limit_kb"`
	Checker        string  `db:"checker"`
	FloatTolerance float64 `db:"float_tolerance"`
	Mode           string  `db:"mode"`
	Visibility     string  `db:"visibility"`
	// Feedback is what practice submissions show their authors
	// (protocol.FeedbackPolicy, never closed).
	Feedback     string         `db:"feedback"`
	Languages    Languages      `db:"languages"`
	TestdataHash sql.NullString `db:"testdata_hash"`
	CreatedBy    sql.NullInt64  `db:"created_by"`
	CreatedAt    time.Time      `db:"created_at"`
	UpdatedAt    time.Time      `db:"updated_at"`
	// InputFile and OutputFile: file I/O instead of stdin / stdout ("":
	// the standard stream). OutputOnly: contestants upload outputs.
	InputFile  string `db:"input_file"`
	OutputFile string `db:"output_file"`
	OutputOnly bool   `db:"output_only"`
}

const problemCols = "id, slug, title, statement, time_limit_ms, memory_limit_kb, checker, float_tolerance, mode, visibility, feedback, languages, testdata_hash, created_by, created_at, updated_at, input_file, output_file, output_only"

// ProblemSummary is a problem in a list: no statement.
type ProblemSummary struct {
	ID            int64     `db:"id"`
	Slug          string    `db:"slug"`
	Title         string    `db:"title"`
	TimeLimitMs   int       `db:"time_limit_ms"`
	MemoryLimitKB int       `db:"memory_limit_kb"`
	Mode          string    `db:"mode"`
	Visibility    string    `db:"visibility"`
	UpdatedAt     time.Time `db:"updated_at"`
}

// CreateProblem inserts p (ID and timestamps ignored; TestdataHash too, set
// it with AddTestdataVersion) and returns its id. A taken slug is a
// *DuplicateError.
func (s *Store) CreateProblem(ctx context.Context, p Problem) (int64, error) {
	id, err := insertProblem(ctx, s.DB, p)
	if err != nil {
		return 0, mapErr("store create problem "+p.Slug, err)
	}
	return id, nil
}

// CreateProblemWithTestdata creates p and records v (its ProblemID is
// ignored) as its current test data in one transaction: on any error
// nothing is written. A taken slug is a *DuplicateError. For importing a
// whole problem package.
func (s *Store) CreateProblemWithTestdata(ctx context.Context, p Problem, v TestdataVersion) (int64, error) {
	var id int64
	err := s.inTx(ctx, "store create problem "+p.Slug+" with test data", func(tx *sqlx.Tx) error {
		var err error
		if id, err = insertProblem(ctx, tx, p); err != nil {
			return err
		}
		v.ProblemID = id
		return addTestdata(ctx, tx, v)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func insertProblem(ctx context.Context, db sqlx.ExecerContext, p Problem) (int64, error) {
	res, err := db.ExecContext(ctx, `INSERT INTO problems
		(slug, title, statement, time_limit_ms, memory_limit_kb, checker, float_tolerance, mode, visibility, feedback, languages, created_by,
		input_file, output_file, output_only)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(NULLIF(?, ''), 'full'), ?, ?, ?, ?, ?)`,
		p.Slug, p.Title, p.Statement, p.TimeLimitMs, p.MemoryLimitKB, p.Checker, p.FloatTolerance,
		p.Mode, p.Visibility, p.Feedback, p.Languages, p.CreatedBy, p.InputFile, p.OutputFile, p.OutputOnly)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// loadProblemBySlug reads one problem or ErrNotFound (ProblemBySlug:
// through the cache).
func (s *Store) loadProblemBySlug(ctx context.Context, slug string) (Problem, error) {
	var p Problem
	err := s.DB.GetContext(ctx, &p, "SELECT "+problemCols+" FROM problems WHERE slug = ?", slug)
	if errors.Is(err, sql.ErrNoRows) {
		return Problem{}, fmt.Errorf("store get problem %q: %w", slug, ErrNotFound)
	}
	if err != nil {
		return Problem{}, fmt.Errorf("store get problem %q: %w", slug, err)
	}
	return p, nil
}

// ListProblems returns the problems of the given visibilities (all when
// none is given) in id order. Uses ix_problems_visibility.
func (s *Store) ListProblems(ctx context.Context, visibilities ...string) ([]ProblemSummary, error) {
	q := "SELECT id, slug, title, time_limit_ms, memory_limit_kb, mode, visibility, updated_at FROM problems"
	var args []any
	if len(visibilities) > 0 {
		var err error
		q, args, err = sqlxIn(q+" WHERE visibility IN (?) ORDER BY id", visibilities)
		if err != nil {
			return nil, err
		}
	} else {
		q += " ORDER BY id"
	}
	out := []ProblemSummary{}
	if err := s.DB.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("store list problems: %w", err)
	}
	return out, nil
}

// TestdataVersion is a row of testdata_versions.
type TestdataVersion struct {
	ID         int64           `db:"id"`
	ProblemID  int64           `db:"problem_id"`
	Hash       string          `db:"hash"`
	SizeBytes  int64           `db:"size_bytes"`
	CaseCount  int             `db:"case_count"`
	Manifest   json.RawMessage `db:"manifest"`
	UploadedBy sql.NullInt64   `db:"uploaded_by"`
	CreatedAt  time.Time       `db:"created_at"`
}

// AddTestdataVersion records v (idempotent on problem and hash) and makes
// it the problem's current test data, in one transaction.
func (s *Store) AddTestdataVersion(ctx context.Context, v TestdataVersion) error {
	return s.inTx(ctx, "store add testdata", func(tx *sqlx.Tx) error { return addTestdata(ctx, tx, v) })
}

func addTestdata(ctx context.Context, tx *sqlx.Tx, v TestdataVersion) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO testdata_versions
		(problem_id, hash, size_bytes, case_count, manifest, uploaded_by) VALUES (?, ?, ?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE id = id`,
		v.ProblemID, v.Hash, v.SizeBytes, v.CaseCount, string(v.Manifest), v.UploadedBy); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, "UPDATE problems SET testdata_hash = ? WHERE id = ?", v.Hash, v.ProblemID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var one int
		if err := tx.GetContext(ctx, &one, "SELECT 1 FROM problems WHERE id = ?", v.ProblemID); err != nil {
			return fmt.Errorf("problem %d: %w", v.ProblemID, ErrNotFound)
		}
	}
	return nil
}

// TestdataVersions returns a problem's test data versions, newest first.
func (s *Store) TestdataVersions(ctx context.Context, problemID int64) ([]TestdataVersion, error) {
	out := []TestdataVersion{}
	err := s.DB.SelectContext(ctx, &out, `SELECT id, problem_id, hash, size_bytes, case_count, manifest, uploaded_by, created_at
		FROM testdata_versions WHERE problem_id = ? ORDER BY id DESC`, problemID)
	if err != nil {
		return nil, fmt.Errorf("store testdata versions %d: %w", problemID, err)
	}
	return out, nil
}

// UpdateProblem rewrites the editable columns of problem p.ID (slug,
// title, statement, limits, checker, tolerance, mode, visibility,
// languages). A taken slug is a *DuplicateError; an unknown id ErrNotFound.
func (s *Store) UpdateProblem(ctx context.Context, p Problem) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE problems SET slug = ?, title = ?, statement = ?, time_limit_ms = ?,
		memory_limit_kb = ?, checker = ?, float_tolerance = ?, mode = ?, visibility = ?,
		feedback = COALESCE(NULLIF(?, ''), feedback), languages = ?,
		input_file = ?, output_file = ?, output_only = ? WHERE id = ?`,
		p.Slug, p.Title, p.Statement, p.TimeLimitMs, p.MemoryLimitKB, p.Checker, p.FloatTolerance,
		p.Mode, p.Visibility, p.Feedback, p.Languages, p.InputFile, p.OutputFile, p.OutputOnly, p.ID)
	if err != nil {
		return mapErr("store update problem "+p.Slug, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.ProblemByID(ctx, p.ID); err != nil {
			return fmt.Errorf("store update problem: %w", err)
		}
	}
	return nil
}

// ProblemIDsBySlug maps the given slugs to problem ids; unknown slugs are
// absent from the map.
func (s *Store) ProblemIDsBySlug(ctx context.Context, slugs []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(slugs) == 0 {
		return out, nil
	}
	q, args, err := sqlxIn("SELECT id, slug FROM problems WHERE slug IN (?)", slugs)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID   int64  `db:"id"`
		Slug string `db:"slug"`
	}
	if err := s.DB.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, fmt.Errorf("store problem ids: %w", err)
	}
	for _, r := range rows {
		out[r.Slug] = r.ID
	}
	return out, nil
}
