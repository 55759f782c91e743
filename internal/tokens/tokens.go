package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
)

var (
	// ErrUnknown: the table is loaded and does not hold the token.
	ErrUnknown = errors.New("tokens: unknown judge token")
	// ErrNotLoaded: the table is not in Redis (no web node synced it
	// since Redis started); whether the token is valid cannot be told.
	ErrNotLoaded = errors.New("tokens: judge token table not loaded")
)

// New returns a new judge token: 32 random bytes in hex.
func New() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand aborts the program instead)
	return hex.EncodeToString(b[:])
}

// Hash is how a judge token is stored (MySQL judges.token_hash): the
// SHA-256 of its text.
func Hash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Field is the field of rkeys.JudgeTokens for a stored hash: its hex.
func Field(hash []byte) string { return hex.EncodeToString(hash) }

// FieldOf is the field of rkeys.JudgeTokens for a token.
func FieldOf(token string) string { return Field(Hash(token)) }

// Entry is one judge whose token is valid.
type Entry struct {
	Name string
	Hash []byte // Hash(token)
}

// Replace rewrites the table to hold exactly entries, marked loaded at
// now, in one MULTI/EXEC: a revoked token disappears, and a Redis that
// lost its data is refilled.
func Replace(ctx context.Context, rdb redis.Cmdable, n rkeys.Names, entries []Entry, now time.Time) error {
	fields := make([]any, 0, 2*len(entries)+2)
	for _, e := range entries {
		fields = append(fields, Field(e.Hash), e.Name)
	}
	fields = append(fields, rkeys.JudgeTokensSynced, now.UnixMilli())
	key := n.JudgeTokens()
	_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, key)
		p.HSet(ctx, key, fields...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("tokens: write %s: %w", key, err)
	}
	return nil
}

// Lookup returns the name of the judge whose token this is; ErrUnknown or
// ErrNotLoaded when the table cannot name one.
func Lookup(ctx context.Context, rdb redis.Cmdable, n rkeys.Names, token string) (string, error) {
	name, err := rdb.HGet(ctx, n.JudgeTokens(), FieldOf(token)).Result()
	if err == nil && name != "" {
		return name, nil
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("tokens: look up: %w", err)
	}
	loaded, err := Loaded(ctx, rdb, n)
	switch {
	case err != nil:
		return "", err
	case !loaded:
		return "", ErrNotLoaded
	}
	return "", ErrUnknown
}

// Loaded reports whether the table is in Redis.
func Loaded(ctx context.Context, rdb redis.Cmdable, n rkeys.Names) (bool, error) {
	ok, err := rdb.HExists(ctx, n.JudgeTokens(), rkeys.JudgeTokensSynced).Result()
	if err != nil {
		return false, fmt.Errorf("tokens: check table: %w", err)
	}
	return ok, nil
}

// Judges returns the names of the judges with a valid token, sorted, once
// each.
func Judges(ctx context.Context, rdb redis.Cmdable, n rkeys.Names) ([]string, error) {
	m, err := rdb.HGetAll(ctx, n.JudgeTokens()).Result()
	if err != nil {
		return nil, fmt.Errorf("tokens: judge names: %w", err)
	}
	names := make([]string, 0, len(m))
	for field, name := range m {
		if field != rkeys.JudgeTokensSynced {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}
