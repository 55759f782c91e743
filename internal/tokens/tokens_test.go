package tokens

import (
	"context"
	"encoding/hex"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestHashAndField(t *testing.T) {
	tests := []struct {
		token, field string
	}{
		// sha256sum of the text, in hex.
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tc := range tests {
		if got := FieldOf(tc.token); got != tc.field {
			t.Errorf("FieldOf(%q) = %s, want %s", tc.token, got, tc.field)
		}
		if got := Field(Hash(tc.token)); got != tc.field {
			t.Errorf("Field(Hash(%q)) = %s", tc.token, got)
		}
		if len(Hash(tc.token)) != 32 {
			t.Errorf("Hash(%q) is %d bytes", tc.token, len(Hash(tc.token)))
		}
	}
	a, b := New(), New()
	if a == b || len(a) != 64 {
		t.Fatalf("New gave %q and %q", a, b)
	}
	if _, err := hex.DecodeString(a); err != nil {
		t.Fatal(err)
	}
}

// What Replace writes, Lookup, Loaded and Judges read back.
func TestRoundTrip(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	rdb, n := env.Client, env.Names

	if _, err := Lookup(ctx, rdb, n, "t1"); !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("empty Redis: %v, want ErrNotLoaded", err)
	}
	if ok, err := Loaded(ctx, rdb, n); ok || err != nil {
		t.Fatalf("Loaded = %v, %v", ok, err)
	}
	steps := []struct {
		name    string
		entries []Entry
		lookups map[string]string // token → name, "" = ErrUnknown
		judges  []string
	}{
		{"no judges", nil, map[string]string{"t1": ""}, []string{}},
		{"two judges, one with two tokens", []Entry{{"j1", Hash("t1")}, {"j2", Hash("t2")}, {"j1", Hash("t3")}},
			map[string]string{"t1": "j1", "t2": "j2", "t3": "j1", "t4": ""}, []string{"j1", "j2"}},
		{"t1 revoked", []Entry{{"j2", Hash("t2")}}, map[string]string{"t1": "", "t2": "j2"}, []string{"j2"}},
	}
	for _, s := range steps {
		if err := Replace(ctx, rdb, n, s.entries, time.Now()); err != nil {
			t.Fatal(err)
		}
		if ok, err := Loaded(ctx, rdb, n); !ok || err != nil {
			t.Fatalf("%s: Loaded = %v, %v", s.name, ok, err)
		}
		for tok, want := range s.lookups {
			got, err := Lookup(ctx, rdb, n, tok)
			if want == "" && !errors.Is(err, ErrUnknown) || want != "" && (err != nil || got != want) {
				t.Fatalf("%s: Lookup(%s) = %q, %v; want %q", s.name, tok, got, err, want)
			}
		}
		got, err := Judges(ctx, rdb, n)
		if err != nil || !slices.Equal(got, s.judges) {
			t.Fatalf("%s: Judges = %v, %v; want %v", s.name, got, err, s.judges)
		}
	}
}
