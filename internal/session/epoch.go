package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// ErrContended: PublishEpoch lost its race to other writers of the same
// user's epoch too many times in a row.
var ErrContended = errors.New("session: epoch publish contended")

// publishTries bounds PublishEpoch's compare-and-set loop.
const publishTries = 5

// swapEpochScript sets KEYS[1] to ARGV[2] if it still holds ARGV[1] (""
// for a missing key).
var swapEpochScript = redisscript.Named("session.swapEpoch", redis.NewScript(`
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`))

// PublishEpoch copies a user's session epoch into Redis (rkeys UserEpoch)
// for the hubs, reading it from truth (MySQL) after it has read the copy
// and writing it only if the copy did not change meanwhile, retrying
// otherwise. However many web nodes publish at once, the copy so ends at
// a value read after every change they published, never at an older one;
// and it follows MySQL down as well as up (a database restored from a
// backup). Web nodes call it after every change of the epoch and at
// every login.
func PublishEpoch(ctx context.Context, rdb redis.Cmdable, n rkeys.Names, userID int64, truth func(context.Context) (uint32, error)) error {
	key := n.UserEpoch(userID)
	for range publishTries {
		old, err := rdb.Get(ctx, key).Result()
		if errors.Is(err, redis.Nil) {
			old = ""
		} else if err != nil {
			return fmt.Errorf("session: publish epoch of user %d: %w", userID, err)
		}
		e, err := truth(ctx)
		if err != nil {
			return fmt.Errorf("session: publish epoch of user %d: %w", userID, err)
		}
		v := strconv.FormatUint(uint64(e), 10)
		if v == old {
			return nil
		}
		ok, err := swapEpochScript.Run(ctx, rdb, []string{key}, old, v).Bool()
		if err != nil {
			return fmt.Errorf("session: publish epoch of user %d: %w", userID, err)
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("session: publish epoch of user %d: %w", userID, ErrContended)
}

// ReadEpoch returns a user's published state; known is false when no web
// node has published it (no login and no change since the upgrade that
// brought epochs to Redis).
func ReadEpoch(ctx context.Context, rdb redis.Cmdable, n rkeys.Names, userID int64) (cur Current, known bool, err error) {
	s, err := rdb.Get(ctx, n.UserEpoch(userID)).Result()
	if errors.Is(err, redis.Nil) {
		return Current{}, false, nil
	}
	if err != nil {
		return Current{}, false, fmt.Errorf("session: read epoch of user %d: %w", userID, err)
	}
	e, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return Current{}, false, fmt.Errorf("session: read epoch of user %d: bad value %q: %w", userID, s, err)
	}
	// A disabled account's epoch moved on when it was disabled: the
	// epoch alone ends its sessions.
	return Current{Epoch: uint32(e)}, true, nil
}

// Read returns the session whose id is id, without extending its life,
// checked against its user's published epoch (Current.Valid): the hubs'
// way in. No such session is ErrNotFound; an ended one ErrEnded (also an
// ErrNotFound). A user whose epoch was never published is taken at the
// session's word.
func Read(ctx context.Context, rdb redis.Cmdable, n rkeys.Names, id string) (Record, error) {
	if !ValidID(id) {
		return Record{}, ErrNotFound
	}
	m, err := rdb.HGetAll(ctx, Key(n, id)).Result()
	if err != nil {
		return Record{}, fmt.Errorf("session: read: %w", err)
	}
	r, err := Decode(m)
	if err != nil {
		return Record{}, err
	}
	cur, known, err := ReadEpoch(ctx, rdb, n, r.UserID)
	if err != nil {
		return Record{}, err
	}
	if known && !cur.Valid(r.Epoch) {
		return Record{}, ErrEnded
	}
	return r, nil
}
