package session

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
	shared "github.com/verdict-oj/verdict/internal/session"
)

// ErrNotFound: no live session has that id.
var ErrNotFound = shared.ErrNotFound

// Session is one logged-in browser: its id (the cookie value) and what
// Redis holds for it. Record.Epoch is the user's session epoch at login
// (store.User.SessionEpoch); the session is valid only while the user's is
// the same (shared.Current.Valid).
type Session struct {
	ID string
	shared.Record
}

// Store keeps sessions in Redis.
type Store struct {
	rdb   redis.UniversalClient
	names rkeys.Names
	ttl   time.Duration
}

// ReadRetry is how long Get tries again a read that met no Redis: a
// restart's stop takes about a second on the 2-core VM, and go-redis,
// once as many dials as its pool's size have failed, dials again only
// once a second, so a request can see Redis as refused up to a second
// after it listens again. During a long outage every request with a
// session waits this long before its 503 (holding its connection, before
// the admission gate).
const ReadRetry = 3 * time.Second

// IndexTTLFactor: a user's session index lives this many idle TTLs after
// their last login (12 weeks with the default week).
const IndexTTLFactor = 12

// NewStore returns a Store whose sessions expire ttl after their last use.
func NewStore(rdb redis.UniversalClient, names rkeys.Names, ttl time.Duration) *Store {
	return &Store{rdb: rdb, names: names, ttl: ttl}
}

// TTL is the idle lifetime of a session.
func (s *Store) TTL() time.Duration { return s.ttl }

func (s *Store) key(id string) string { return shared.Key(s.names, id) }

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Create starts a session for userID. The role is stored beside the user id
// for the hub, which authorises live channels from the session alone; the
// web nodes themselves read the role from MySQL on every request. The
// caller publishes the user's epoch (PublishEpoch) for the hub.
func (s *Store) Create(ctx context.Context, userID int64, role string, epoch uint32) (Session, error) {
	ss := Session{ID: random(), Record: shared.Record{UserID: userID, Role: role, CSRF: random(),
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond), Epoch: epoch}}
	k := s.key(ss.ID)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, ss.Fields()...)
		p.PExpire(ctx, k, s.ttl)
		// The user's index is renewed at every login only, never on the
		// request path, so it lives much longer than an idle session
		// (IndexTTLFactor × the idle TTL). A session kept busy longer than
		// that without a new login drops out of the index; the session
		// epoch (in MySQL for the web nodes, published in Redis for the
		// hubs) still voids it.
		u := s.names.UserSessions(userID)
		p.SAdd(ctx, u, k)
		p.PExpire(ctx, u, IndexTTLFactor*s.ttl)
		return nil
	})
	if err != nil {
		return Session{}, fmt.Errorf("session create: %w", err)
	}
	return ss, nil
}

// Get returns the live session with this id and extends its life, or
// ErrNotFound. Its epoch is for the caller to check against MySQL.
//
// A read that met no Redis (a connection Redis closed as it stopped, none
// to be had while it restarts) is tried again for up to ReadRetry, never
// past ctx's deadline: reading the session and renewing its life is safe
// to repeat, and every page and API request begins here. In the 40×
// rehearsal with faults, 70 requests were answered 503 in the second
// Redis took to stop (2026-12-07 18:38); Redis's load after it is waited
// out by the client (redisconn).
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	if !shared.ValidID(id) {
		return Session{}, ErrNotFound
	}
	k := s.key(id)
	var all *redis.MapStringStringCmd
	err := redisconn.Again(ctx, ReadRetry, redisconn.Unreached, func() error {
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			all = p.HGetAll(ctx, k)
			p.PExpire(ctx, k, s.ttl) // no-op on a missing key
			return nil
		})
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("session get: %w", err)
	}
	r, err := shared.Decode(all.Val())
	if err != nil {
		return Session{}, err
	}
	return Session{ID: id, Record: r}, nil
}

// PublishEpoch copies userID's session epoch, as truth reads it from
// MySQL, into Redis for the hubs (shared.PublishEpoch), which then refuse
// every session made at another epoch. Call it after any change of the
// epoch and at login.
func (s *Store) PublishEpoch(ctx context.Context, userID int64, truth func(context.Context) (uint32, error)) error {
	return shared.PublishEpoch(ctx, s.rdb, s.names, userID, truth)
}

// EndUser ends every indexed session of userID except keep (a session id,
// or "" for none) and returns how many it ended.
func (s *Store) EndUser(ctx context.Context, userID int64, keep string) (int, error) {
	u := s.names.UserSessions(userID)
	keys, err := s.rdb.SMembers(ctx, u).Result()
	if err != nil {
		return 0, fmt.Errorf("session end user %d: %w", userID, err)
	}
	keepKey := ""
	if keep != "" {
		keepKey = s.key(keep)
	}
	var end []string
	for _, k := range keys {
		if k != keepKey {
			end = append(end, k)
		}
	}
	if len(end) == 0 {
		return 0, nil
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, end...)
		p.SRem(ctx, u, toAny(end)...)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("session end user %d: %w", userID, err)
	}
	return len(end), nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Delete ends a session (a no-op if it is gone).
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.rdb.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("session delete: %w", err)
	}
	return nil
}
