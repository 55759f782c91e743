package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/internal/rkeys"
)

// CookieName is the browser cookie that holds the session id.
const CookieName = "verdict_session"

// IDLen is the length of a session id: 32 random bytes in unpadded
// base64url.
const IDLen = 43

// ValidID reports whether id has the shape of a session id. Anything else
// names no session, without a Redis round trip.
func ValidID(id string) bool { return len(id) == IDLen }

// Key is the Redis key of the session whose id (cookie value) is id.
func Key(n rkeys.Names, id string) string {
	h := sha256.Sum256([]byte(id))
	return n.Session(hex.EncodeToString(h[:]))
}

// Roles a user, and so a session, may have (MySQL users.role).
const (
	RoleAdmin   = "admin"
	RoleSetter  = "setter"
	RoleStudent = "student"
)

// ValidRole reports whether r is one of the roles.
func ValidRole(r string) bool {
	return r == RoleAdmin || r == RoleSetter || r == RoleStudent
}

// Fields of the session hash.
const (
	FieldUserID    = "user_id"
	FieldRole      = "role"
	FieldCSRF      = "csrf"
	FieldCreatedMs = "created_ms"
	FieldEpoch     = "epoch"
)

// ErrNotFound: no live session has that id (none, expired, malformed, or
// ended: see ErrEnded).
var ErrNotFound = errors.New("session: not found")

// ErrEnded: the session exists but its user's epoch moved on (a password
// change or reset, a new role, a disabled account, a logout everywhere).
// It is an ErrNotFound.
var ErrEnded = endedError{}

type endedError struct{}

func (endedError) Error() string        { return "session: ended" }
func (endedError) Is(target error) bool { return target == ErrNotFound }

// Record is a session as its hash holds it.
type Record struct {
	UserID int64
	// Role is the user's role at login. The hub authorises live channels
	// from it; the web nodes read the role from MySQL on every request.
	Role      string
	CSRF      string
	CreatedAt time.Time // to the millisecond
	// Epoch is the user's session epoch at login.
	Epoch uint32
}

// Fields returns r as field/value pairs for HSET.
func (r Record) Fields() []any {
	return []any{
		FieldUserID, r.UserID,
		FieldRole, r.Role,
		FieldCSRF, r.CSRF,
		FieldCreatedMs, r.CreatedAt.UnixMilli(),
		FieldEpoch, r.Epoch,
	}
}

// Decode reads a session hash (HGETALL). A hash that is empty, lacks a
// user id or a CSRF token, or holds a value it cannot read is
// ErrNotFound. Two fields may be missing, from sessions written before
// they existed: the role (a student) and the epoch (0, the epoch every
// user starts with, so an upgrade logs nobody out).
func Decode(m map[string]string) (Record, error) {
	uid, err := strconv.ParseInt(m[FieldUserID], 10, 64)
	if err != nil || uid < 1 || m[FieldCSRF] == "" {
		return Record{}, ErrNotFound
	}
	r := Record{UserID: uid, Role: m[FieldRole], CSRF: m[FieldCSRF]}
	if r.Role == "" {
		r.Role = RoleStudent
	}
	if !ValidRole(r.Role) {
		return Record{}, ErrNotFound
	}
	ms, _ := strconv.ParseInt(m[FieldCreatedMs], 10, 64)
	r.CreatedAt = time.UnixMilli(ms).UTC()
	if s, ok := m[FieldEpoch]; ok {
		e, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return Record{}, ErrNotFound
		}
		r.Epoch = uint32(e)
	}
	return r, nil
}

// Current is a user's state now, as far as sessions are concerned.
type Current struct {
	// Epoch is the user's session epoch (MySQL users.session_epoch). It
	// moves on at every password change or reset, role change and
	// disabling, which ends every session made before.
	Epoch    uint32
	Disabled bool
}

// Valid reports whether a session made at epoch may still be used by a
// user in state c. Web nodes and hubs apply this one rule.
func (c Current) Valid(epoch uint32) bool { return !c.Disabled && epoch == c.Epoch }
