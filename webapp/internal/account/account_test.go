package account

import (
	"errors"
	"golang.org/x/crypto/bcrypt"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		fn    func(string) error
		in    string
		field string // "" = valid
	}{
		{"username ok", ValidateUsername, "alice_01.b-c", ""},
		{"username short", ValidateUsername, "ab", "username"},
		{"username long", ValidateUsername, strings.Repeat("a", 33), "username"},
		{"username 32", ValidateUsername, strings.Repeat("a", 32), ""},
		{"username upper", ValidateUsername, "Alice", "username"},
		{"username space", ValidateUsername, "al ice", "username"},
		{"username unicode", ValidateUsername, "алиса", "username"},
		{"password ok", ValidatePassword, "12345678", ""},
		{"password short", ValidatePassword, "1234567", "password"},
		{"password unicode counts runes", ValidatePassword, "пароль12", ""},
		{"password too long", ValidatePassword, strings.Repeat("x", 73), "password"},
		{"password bad utf8", ValidatePassword, "abcdefg\xff", "password"},
		{"display ok", ValidateDisplayName, "Alice Liddell", ""},
		{"display empty", ValidateDisplayName, "", ""},
		{"display control", ValidateDisplayName, "a\nb", "display_name"},
		{"display padded", ValidateDisplayName, " a", "display_name"},
		{"display long", ValidateDisplayName, strings.Repeat("é", 65), "display_name"},
		{"email empty", ValidateEmail, "", ""},
		{"email ok", ValidateEmail, "a@example.org", ""},
		{"email with name", ValidateEmail, "A <a@example.org>", "email"},
		{"email bad", ValidateEmail, "not-an-address", "email"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn(tc.in)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a FieldError on %s", err, tc.field)
			}
		})
	}
}

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("correct horse", 4)
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(h, "correct horse") || CheckPassword(h, "correct horsf") || CheckPassword("garbage", "x") {
		t.Fatal("CheckPassword is wrong")
	}
}

func TestRandomPassword(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		p := RandomPassword()
		if len(p) != 16 || ValidatePassword(p) != nil || strings.ContainsAny(p, "01lIoO") || seen[p] {
			t.Fatalf("bad or repeated password %q", p)
		}
		seen[p] = true
	}
}

// TestDummyCostsWhatALoginCosts: the unknown-user path must take as long
// as a wrong password at the configured cost, so the dummy has that cost.
func TestDummyCostsWhatALoginCosts(t *testing.T) {
	for _, cost := range []int{0, 4, 6} {
		d, err := NewDummy(cost)
		if err != nil {
			t.Fatal(err)
		}
		want := cost
		if want == 0 {
			want = BcryptCost
		}
		if got, err := bcrypt.Cost(d.hash); err != nil || got != want {
			t.Errorf("NewDummy(%d) cost = %d, %v; want %d", cost, got, err, want)
		}
		d.Spend("anything") // matches nothing, panics on nothing
	}
}

func TestStripBidi(t *testing.T) {
	for in, want := range map[string]string{
		"Alice":                       "Alice",
		"\u202eecilA":                 "ecilA",
		"a\u2066b\u2069c\u200e\u200f": "abc",
		"\u061c\u202a\u202b\u202c\u202d\u2067\u2068x": "x",
		"王小明 (Zürich)":                                "王小明 (Zürich)",
	} {
		if got := StripBidi(in); got != want {
			t.Errorf("StripBidi(%q) = %q, want %q", in, got, want)
		}
	}
}
