package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// The driver runs a query with arguments as a PREPARE, an EXECUTE and a
// CLOSE that nothing answers: two round trips, and the server parses and
// describes the statement each time. The hot writes (a result, a submit)
// keep their fixed statements prepared instead: database/sql prepares a
// kept statement on a pool connection the first time it runs there and
// keeps it there, so from then on it costs one round trip. Only the hot
// paths' few fixed statements are kept, each once per connection
// (against the server's max_prepared_stmt_count); a statement whose text
// varies (a batch of case rows) is not.

// keep returns the kept statements of queries, by query, preparing the
// ones not kept yet. Preparing takes a connection of the pool: call it
// before BEGIN, holding none, or a pool whose every connection holds a
// transaction waiting for one more would hang. A transaction runs them
// through keptTx.
func (s *Store) keep(ctx context.Context, queries ...string) (map[string]*sqlx.Stmt, error) {
	out := make(map[string]*sqlx.Stmt, len(queries))
	for _, q := range queries {
		s.keptMu.Lock()
		st := s.kept[q]
		s.keptMu.Unlock()
		if st == nil {
			// Not under keptMu: a slow prepare holds back no other query.
			// Two first calls may both prepare; one statement is kept.
			p, err := s.DB.PreparexContext(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("store: prepare: %w", err)
			}
			s.keptMu.Lock()
			if st = s.kept[q]; st == nil {
				if s.kept == nil {
					s.kept = map[string]*sqlx.Stmt{}
				}
				s.kept[q], st = p, p
			}
			s.keptMu.Unlock()
			if st != p {
				p.Close()
			}
		}
		out[q] = st
	}
	return out, nil
}

// txQuerier is what the statements of a transaction run on: a *sqlx.Tx,
// or a keptTx.
type txQuerier interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// keptTx runs a transaction's statements through their kept statements
// (Store.keep) when it has them, and like the transaction otherwise.
type keptTx struct {
	tx   *sqlx.Tx
	kept map[string]*sqlx.Stmt
}

// GetContext is sqlx's Tx.GetContext.
func (k keptTx) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	if st := k.kept[query]; st != nil {
		return k.tx.StmtxContext(ctx, st).GetContext(ctx, dest, args...)
	}
	return k.tx.GetContext(ctx, dest, query, args...)
}

// ExecContext is sql's Tx.ExecContext.
func (k keptTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := k.kept[query]; st != nil {
		return k.tx.StmtxContext(ctx, st).ExecContext(ctx, args...)
	}
	return k.tx.ExecContext(ctx, query, args...)
}
