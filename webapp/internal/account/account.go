package account

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// Limits of account fields.
const (
	MinPasswordLen    = 8
	MaxPasswordLen    = 72 // bcrypt ignores bytes after 72
	MaxDisplayNameLen = 64
	MaxEmailLen       = 254
)

// BcryptCost is the bcrypt work factor of new password hashes: 10, as
// Go's bcrypt.DefaultCost and PHP's password_hash (DOMjudge) use. On a
// 2-core machine 11 doubles a contest's login storm (3,000 logins: about
// 3 min at 10, 5.5 at 11); docs/limits.md has the measured trade-off.
const BcryptCost = 10

// ErrInvalid is wrapped by every *FieldError.
var ErrInvalid = errors.New("account: invalid")

// FieldError names the field that failed validation.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, a...)}
}

// ValidateUsername accepts 3 to 32 of [a-z0-9_.-].
func ValidateUsername(s string) error {
	if len(s) < 3 || len(s) > 32 {
		return fieldErr("username", "must be 3 to 32 characters long")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return fieldErr("username", "may contain only lower-case letters a-z, digits, '_', '.' and '-'")
		}
	}
	return nil
}

// ValidatePassword accepts 8 to 72 bytes of valid UTF-8.
func ValidatePassword(s string) error {
	switch {
	case !utf8.ValidString(s):
		return fieldErr("password", "must be valid UTF-8")
	case utf8.RuneCountInString(s) < MinPasswordLen:
		return fieldErr("password", "must be at least %d characters long", MinPasswordLen)
	case len(s) > MaxPasswordLen:
		return fieldErr("password", "must be at most %d bytes long", MaxPasswordLen)
	}
	return nil
}

// StripBidi removes the Unicode bidirectional controls (U+200E, U+200F,
// U+061C, U+202A–U+202E, U+2066–U+2069) from a display name: a name
// holding them could reverse the text around it wherever it is shown (a
// scoreboard row, a clarification), so names are stored without them.
// Callers strip, then validate.
func StripBidi(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0x200e, r == 0x200f, r == 0x061c, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, s)
}

// ValidateDisplayName accepts up to 64 printable characters (may be empty).
func ValidateDisplayName(s string) error {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxDisplayNameLen {
		return fieldErr("display_name", "must be at most %d characters of valid UTF-8", MaxDisplayNameLen)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fieldErr("display_name", "must not contain control characters")
		}
	}
	if strings.TrimSpace(s) != s {
		return fieldErr("display_name", "must not start or end with spaces")
	}
	return nil
}

// ValidateEmail accepts an empty string or one bare address.
func ValidateEmail(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxEmailLen {
		return fieldErr("email", "must be at most %d characters long", MaxEmailLen)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return fieldErr("email", "must be a bare e-mail address like name@example.org")
	}
	return nil
}

// HashPassword returns the bcrypt hash of password at cost (0 means
// BcryptCost; tests use bcrypt.MinCost to stay fast). CheckPassword reads
// the cost from the hash, so hashes of different costs coexist.
func HashPassword(password string, cost int) (string, error) {
	if cost == 0 {
		cost = BcryptCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("account: hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether password matches hash.
func CheckPassword(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// Dummy is a hash that no password matches, compared against when a login
// names a user that does not exist, so that such a login takes as long as
// one with a wrong password (no user enumeration by timing). It is made at
// the cost new passwords get, and made once: computing it is as slow as a
// login.
type Dummy struct{ hash []byte }

// NewDummy returns a Dummy of bcrypt cost (0 means BcryptCost).
func NewDummy(cost int) (Dummy, error) {
	h, err := HashPassword(RandomPassword(), cost)
	if err != nil {
		return Dummy{}, err
	}
	return Dummy{hash: []byte(h)}, nil
}

// Spend does the work of one CheckPassword without a user.
func (d Dummy) Spend(password string) {
	_ = bcrypt.CompareHashAndPassword(d.hash, []byte(password))
}

// RandomPassword returns a 16-character password from an alphabet without
// look-alike characters.
func RandomPassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 16)
	for i := range b {
		b[i] = alphabet[randIntn(len(alphabet))]
	}
	return string(b)
}

func randIntn(n int) int {
	// Rejection sampling over one byte; n ≤ 256.
	limit := 256 - 256%n
	var b [1]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		if int(b[0]) < limit {
			return int(b[0]) % n
		}
	}
}
