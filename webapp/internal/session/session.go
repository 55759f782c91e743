package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/rkeys"
)

// ErrNotFound: no live session has that id.
var ErrNotFound = errors.New("session: not found")

// Session is one logged-in browser.
type Session struct {
	ID        string // the cookie value
	UserID    int64
	CSRF      string
	CreatedAt time.Time
	// Epoch is the user's session epoch at login (store.User.SessionEpoch);
	// the session is valid only while the user's is the same.
	Epoch uint32
}

// Store keeps sessions in Redis.
type Store struct {
	rdb   redis.UniversalClient
	names rkeys.Names
	ttl   time.Duration
}

// IndexTTLFactor: a user's session index lives this many idle TTLs after
// their last login (12 weeks with the default week).
const IndexTTLFactor = 12

// NewStore returns a Store whose sessions expire ttl after their last use.
func NewStore(rdb redis.UniversalClient, names rkeys.Names, ttl time.Duration) *Store {
	return &Store{rdb: rdb, names: names, ttl: ttl}
}

// TTL is the idle lifetime of a session.
func (s *Store) TTL() time.Duration { return s.ttl }

func (s *Store) key(id string) string {
	h := sha256.Sum256([]byte(id))
	return s.names.Session(hex.EncodeToString(h[:]))
}

func random() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// Create starts a session for userID. The role is stored beside the user id
// for the hub, which authorises live channels from the session alone
// (CONTRACT with hub/internal/hub readSession: fields user_id and role).
// The web nodes themselves read the role from MySQL on every request.
func (s *Store) Create(ctx context.Context, userID int64, role string, epoch uint32) (Session, error) {
	ss := Session{ID: random(), UserID: userID, CSRF: random(), CreatedAt: time.Now().UTC().Truncate(time.Millisecond), Epoch: epoch}
	k := s.key(ss.ID)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, "user_id", userID, "role", role, "csrf", ss.CSRF, "created_ms", ss.CreatedAt.UnixMilli(), "epoch", epoch)
		p.PExpire(ctx, k, s.ttl)
		// The user's index is renewed at every login only, never on the
		// request path, so it lives much longer than an idle session
		// (IndexTTLFactor × the idle TTL). A session kept busy longer than
		// that without a new login drops out of the index; the session
		// epoch in MySQL still voids it on the web nodes.
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
// ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	if len(id) != 43 { // base64url of 32 bytes
		return Session{}, ErrNotFound
	}
	k := s.key(id)
	var all *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, k)
		p.PExpire(ctx, k, s.ttl) // no-op on a missing key
		return nil
	})
	if err != nil {
		return Session{}, fmt.Errorf("session get: %w", err)
	}
	m := all.Val()
	uid, err := strconv.ParseInt(m["user_id"], 10, 64)
	if len(m) == 0 || err != nil || m["csrf"] == "" {
		return Session{}, ErrNotFound
	}
	ms, _ := strconv.ParseInt(m["created_ms"], 10, 64)
	// A session made before epochs existed has none: 0, the epoch every
	// user starts with, so an upgrade logs nobody out.
	epoch, _ := strconv.ParseUint(m["epoch"], 10, 32)
	return Session{ID: id, UserID: uid, CSRF: m["csrf"], CreatedAt: time.UnixMilli(ms).UTC(), Epoch: uint32(epoch)}, nil
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
