package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Asset kinds (problem_assets.kind).
const (
	AssetImage      = "image"
	AssetAttachment = "attachment"
)

// ProblemAsset is an image or attachment of a problem's statement; its
// bytes are the blob Hash.
type ProblemAsset struct {
	ProblemID int64  `db:"problem_id"`
	Name      string `db:"name"`
	Kind      string `db:"kind"`
	Hash      string `db:"hash"`
	SizeBytes int64  `db:"size_bytes"`
}

// CreateProblemWithAssets is CreateProblemWithTestdata that also records
// the statement's assets, all in one transaction (an import).
func (s *Store) CreateProblemWithAssets(ctx context.Context, p Problem, v TestdataVersion, assets []ProblemAsset) (int64, error) {
	if len(assets) == 0 {
		return s.CreateProblemWithTestdata(ctx, p, v)
	}
	var id int64
	err := s.inTx(ctx, "store create problem "+p.Slug+" with test data and assets", func(tx *sqlx.Tx) error {
		var err error
		if id, err = insertProblem(ctx, tx, p); err != nil {
			return err
		}
		v.ProblemID = id
		if err := addTestdata(ctx, tx, v); err != nil {
			return err
		}
		return insertAssets(ctx, tx, id, assets)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

func insertAssets(ctx context.Context, tx *sqlx.Tx, problemID int64, assets []ProblemAsset) error {
	for _, a := range assets {
		if _, err := tx.ExecContext(ctx, `INSERT INTO problem_assets (problem_id, name, kind, hash, size_bytes)
			VALUES (?, ?, ?, ?, ?)`, problemID, a.Name, a.Kind, a.Hash, a.SizeBytes); err != nil {
			return fmt.Errorf("asset %s: %w", a.Name, err)
		}
	}
	return nil
}

// ProblemAssetByName returns one asset of a problem, or ErrNotFound.
func (s *Store) ProblemAssetByName(ctx context.Context, problemID int64, name string) (ProblemAsset, error) {
	var a ProblemAsset
	err := s.DB.GetContext(ctx, &a, `SELECT problem_id, name, kind, hash, size_bytes FROM problem_assets
		WHERE problem_id = ? AND name = ?`, problemID, name)
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("store asset %q of problem %d: %w", name, problemID, ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("store asset %q of problem %d: %w", name, problemID, err)
	}
	return a, nil
}
