package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCreateProblemWithTestdata: the problem and its test data version are
// written together or not at all.
func TestCreateProblemWithTestdata(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	p := Problem{Slug: "imported", Title: "Imported", TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: CheckerDefault,
		Mode: ModeICPC, Visibility: VisibilityPrivate, Languages: Languages{}}
	hash := strings.Repeat("ab", 32)
	v := TestdataVersion{ProblemID: 999999, Hash: hash, SizeBytes: 10, CaseCount: 2, Manifest: []byte(`{"version":1}`)}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := s.DB.Get(&n, "SELECT COUNT(*) FROM "+table); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// The version fails (its manifest is not JSON): the problem is not kept.
	bad := v
	bad.Manifest = []byte("not json")
	if _, err := s.CreateProblemWithTestdata(ctx, p, bad); err == nil {
		t.Fatal("a version with an invalid manifest was accepted")
	}
	if n, m := count("problems"), count("testdata_versions"); n != 0 || m != 0 {
		t.Fatalf("after a failed import: %d problems, %d versions; want none", n, m)
	}

	id, err := s.CreateProblemWithTestdata(ctx, p, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ProblemByID(ctx, id)
	if err != nil || got.Slug != "imported" || got.TestdataHash.String != hash {
		t.Fatalf("problem %+v, %v", got, err)
	}
	vs, err := s.TestdataVersions(ctx, id)
	if err != nil || len(vs) != 1 || vs[0].ProblemID != id || vs[0].CaseCount != 2 {
		t.Fatalf("versions %+v, %v (the given ProblemID must be replaced by the new id)", vs, err)
	}

	// A taken slug is a DuplicateError and writes nothing more.
	_, err = s.CreateProblemWithTestdata(ctx, p, v)
	var dup *DuplicateError
	if !errors.As(err, &dup) || dup.Key != "uk_problems_slug" {
		t.Fatalf("duplicate slug: %v", err)
	}
	if n, m := count("problems"), count("testdata_versions"); n != 1 || m != 1 {
		t.Fatalf("after a duplicate: %d problems, %d versions; want 1 and 1", n, m)
	}

	// AddTestdataVersion keeps its contract after the refactor.
	if err := s.AddTestdataVersion(ctx, TestdataVersion{ProblemID: 999999, Hash: hash, Manifest: []byte(`{}`)}); err == nil {
		t.Fatal("a version for a missing problem was accepted")
	}
	if err := s.AddTestdataVersion(ctx, v2(v, id)); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTestdataVersion(ctx, v2(v, id)); err != nil {
		t.Fatalf("re-adding the same version is idempotent: %v", err)
	}
	if got, _ := s.ProblemByID(ctx, id); got.TestdataHash.String != strings.Repeat("cd", 32) {
		t.Fatalf("current hash %q after a new version", got.TestdataHash.String)
	}
}

func v2(v TestdataVersion, id int64) TestdataVersion {
	v.ProblemID, v.Hash = id, strings.Repeat("cd", 32)
	return v
}
