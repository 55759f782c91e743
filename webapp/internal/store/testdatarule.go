package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// TestdataRule is what the feedback policy needs of a problem's test data
// version: its sample cases, its subtasks (from the manifest) and the
// problem's scoring mode (subtask scores mean something in ModeIOI only).
type TestdataRule struct {
	Samples  []int
	Subtasks []TestdataSubtask
	Mode     string
	// ProgramLanguage is the judge language of the package's checker or
	// interactor when it is not C or C++ (testpkg.Manifest's
	// checker_language, interactor_language): its tasks need judges that
	// run such programs (protocol.Checker.Language).
	ProgramLanguage string
	// Grading: the manifest has the ICPC default grader's rules
	// (testpkg.Manifest's grading): its tasks need judges that grade by
	// them (protocol.Task.Grading).
	Grading bool
}

// TestdataSubtask is one subtask of a manifest: name, points, cases
// (1-based indexes).
type TestdataSubtask struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Cases  []int  `json:"cases"`
	// Depends: the subtasks it needs passed in full (testpkg.Subtask).
	Depends []string `json:"depends,omitempty"`
	// Sum: it scores the sum of its cases' shares when all are accepted
	// (testpkg.Subtask.Sum).
	Sum bool `json:"sum,omitempty"`
}

// TestdataRuleOf reads the TestdataRule of a problem's test data version;
// an unknown version has no samples and no subtasks.
func (s *Store) TestdataRuleOf(ctx context.Context, problemID int64, hash string) (TestdataRule, error) {
	var row struct {
		Manifest []byte `db:"manifest"`
		Mode     string `db:"mode"`
	}
	err := s.DB.GetContext(ctx, &row, `SELECT v.manifest, p.mode FROM testdata_versions v
		JOIN problems p ON p.id = v.problem_id WHERE v.problem_id = ? AND v.hash = ?`, problemID, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return TestdataRule{}, nil
	}
	if err != nil {
		return TestdataRule{}, fmt.Errorf("store testdata rule %d: %w", problemID, err)
	}
	var m struct {
		Cases []struct {
			Index  int  `json:"index"`
			Sample bool `json:"sample"`
		} `json:"cases"`
		Subtasks           []TestdataSubtask `json:"subtasks"`
		CheckerLanguage    string            `json:"checker_language"`
		InteractorLanguage string            `json:"interactor_language"`
		Grading            json.RawMessage   `json:"grading"`
	}
	if err := json.Unmarshal(row.Manifest, &m); err != nil {
		return TestdataRule{}, fmt.Errorf("store testdata rule %d: manifest: %w", problemID, err)
	}
	out := TestdataRule{Subtasks: m.Subtasks, Mode: row.Mode, ProgramLanguage: m.CheckerLanguage,
		Grading: len(m.Grading) > 0 && string(m.Grading) != "null"}
	if out.ProgramLanguage == "" {
		out.ProgramLanguage = m.InteractorLanguage
	}
	for _, c := range m.Cases {
		if c.Sample {
			out.Samples = append(out.Samples, c.Index)
		}
	}
	return out, nil
}
