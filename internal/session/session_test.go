package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// id is a well-formed session id.
var id = strings.Repeat("a", IDLen)

func TestDecode(t *testing.T) {
	full := map[string]string{"user_id": "7", "role": "admin", "csrf": "c", "created_ms": "1500", "epoch": "3"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range full {
			m[a] = b
		}
		if v == "-" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name string
		m    map[string]string
		want Record
		err  error
	}{
		{"full", full, Record{UserID: 7, Role: RoleAdmin, CSRF: "c", CreatedAt: time.UnixMilli(1500).UTC(), Epoch: 3}, nil},
		{"empty", map[string]string{}, Record{}, ErrNotFound},
		{"no user", with("user_id", "-"), Record{}, ErrNotFound},
		{"user not a number", with("user_id", "x"), Record{}, ErrNotFound},
		{"user zero", with("user_id", "0"), Record{}, ErrNotFound},
		{"no csrf", with("csrf", "-"), Record{}, ErrNotFound},
		{"no role: a student", with("role", "-"), Record{UserID: 7, Role: RoleStudent, CSRF: "c", CreatedAt: time.UnixMilli(1500).UTC(), Epoch: 3}, nil},
		{"unknown role", with("role", "root"), Record{}, ErrNotFound},
		{"no epoch: 0", with("epoch", "-"), Record{UserID: 7, Role: RoleAdmin, CSRF: "c", CreatedAt: time.UnixMilli(1500).UTC()}, nil},
		{"bad epoch", with("epoch", "-1"), Record{}, ErrNotFound},
		{"epoch too large", with("epoch", "4294967296"), Record{}, ErrNotFound},
		{"no creation time", with("created_ms", "-"), Record{UserID: 7, Role: RoleAdmin, CSRF: "c", CreatedAt: time.UnixMilli(0).UTC(), Epoch: 3}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.m)
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Fatalf("Decode = %+v, %v; want %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		name  string
		cur   Current
		epoch uint32
		want  bool
	}{
		{"same epoch", Current{Epoch: 2}, 2, true},
		{"older session", Current{Epoch: 3}, 2, false},
		{"newer session", Current{Epoch: 1}, 2, false},
		{"disabled", Current{Epoch: 2, Disabled: true}, 2, false},
		{"zero", Current{}, 0, true},
	}
	for _, tc := range tests {
		if got := tc.cur.Valid(tc.epoch); got != tc.want {
			t.Errorf("%s: Valid(%d) = %v, want %v", tc.name, tc.epoch, got, tc.want)
		}
	}
}

func TestValidIDAndRole(t *testing.T) {
	ids := []struct {
		id   string
		want bool
	}{
		{"", false}, {"short", false}, {id, true}, {id + "a", false},
	}
	for _, tc := range ids {
		if ValidID(tc.id) != tc.want {
			t.Errorf("ValidID(%q) = %v", tc.id, !tc.want)
		}
	}
	roles := []struct {
		role string
		want bool
	}{
		{RoleAdmin, true}, {RoleSetter, true}, {RoleStudent, true}, {"", false}, {"Admin", false},
	}
	for _, tc := range roles {
		if ValidRole(tc.role) != tc.want {
			t.Errorf("ValidRole(%q) = %v", tc.role, !tc.want)
		}
	}
	if ErrEnded.Error() != "session: ended" || !errors.Is(ErrEnded, ErrNotFound) || errors.Is(ErrNotFound, ErrEnded) {
		t.Fatal("ErrEnded must be an ErrNotFound, not the other way round")
	}
}

// A record written with Fields reads back through Redis unchanged.
func TestRecordRoundTrip(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	for _, r := range []Record{
		{UserID: 1, Role: RoleStudent, CSRF: "x", CreatedAt: time.UnixMilli(1_700_000_000_123).UTC()},
		{UserID: 1 << 40, Role: RoleAdmin, CSRF: "y", CreatedAt: time.UnixMilli(5).UTC(), Epoch: 1<<32 - 1},
		{UserID: 9, Role: RoleSetter, CSRF: "z", CreatedAt: time.UnixMilli(0).UTC(), Epoch: 4},
	} {
		k := Key(env.Names, id)
		if err := env.Client.HSet(ctx, k, r.Fields()...).Err(); err != nil {
			t.Fatal(err)
		}
		got, err := Read(ctx, env.Client, env.Names, id)
		if err != nil || got != r {
			t.Fatalf("read back %+v, %v; want %+v", got, err, r)
		}
		env.Client.Del(ctx, k)
	}
	if !strings.HasPrefix(Key(env.Names, id), env.Names.Session("")) || strings.Contains(Key(env.Names, id), id) {
		t.Fatalf("key %q: want the session prefix and no cookie in it", Key(env.Names, id))
	}
}

func fixed(e uint32) func(context.Context) (uint32, error) {
	return func(context.Context) (uint32, error) { return e, nil }
}

// Read refuses a session whose user's published epoch moved on, and takes
// a user whose epoch was never published at the session's word.
func TestReadChecksPublishedEpoch(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	r := Record{UserID: 7, Role: RoleAdmin, CSRF: "c", CreatedAt: time.UnixMilli(1).UTC(), Epoch: 2}
	if err := env.Client.HSet(ctx, Key(env.Names, id), r.Fields()...).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(ctx, env.Client, env.Names, id); err != nil {
		t.Fatalf("never published: %v, want the session", err)
	}
	steps := []struct {
		publish uint32
		err     error
	}{
		{2, nil},
		{3, ErrEnded},
		{1, ErrEnded}, // MySQL restored from a backup: followed down
		{2, nil},
	}
	for _, s := range steps {
		if err := PublishEpoch(ctx, env.Client, env.Names, 7, fixed(s.publish)); err != nil {
			t.Fatal(err)
		}
		cur, known, err := ReadEpoch(ctx, env.Client, env.Names, 7)
		if err != nil || !known || cur.Epoch != s.publish {
			t.Fatalf("ReadEpoch = %+v, %v, %v; want epoch %d", cur, known, err, s.publish)
		}
		if _, err := Read(ctx, env.Client, env.Names, id); !errors.Is(err, s.err) || (s.err == nil) != (err == nil) {
			t.Fatalf("published %d: Read err %v, want %v", s.publish, err, s.err)
		}
	}
	if _, err := Read(ctx, env.Client, env.Names, "short"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("malformed id: %v", err)
	}
	if _, err := Read(ctx, env.Client, env.Names, strings.Repeat("b", IDLen)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	env.Client.Set(ctx, env.Names.UserEpoch(7), "junk", 0)
	if _, err := Read(ctx, env.Client, env.Names, id); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("unreadable epoch: %v, want an error that is not ErrNotFound", err)
	}
}

// Publishers racing each other never leave the copy at a value older than
// one a successful publisher read: here the truth moves from 10 to 11
// halfway through, and once any publisher started after the move has
// succeeded, the copy is 11 whatever the earlier ones do.
func TestPublishEpochConverges(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	var truth atomic.Uint32
	truth.Store(10)
	read := func(context.Context) (uint32, error) { return truth.Load(), nil }
	var wg sync.WaitGroup
	var lateOK atomic.Int32
	errs := make(chan error, 40)
	for i := range 40 {
		if i == 20 {
			truth.Store(11)
		}
		wg.Go(func() {
			err := PublishEpoch(ctx, env.Client, env.Names, 5, read)
			if err == nil && i >= 20 {
				lateOK.Add(1)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil && !errors.Is(err, ErrContended) {
			t.Fatal(err)
		}
	}
	if lateOK.Load() == 0 {
		t.Fatal("every publisher after the move was contended")
	}
	cur, known, err := ReadEpoch(ctx, env.Client, env.Names, 5)
	if err != nil || !known || cur.Epoch != 11 {
		t.Fatalf("copy %+v, %v, %v; want 11", cur, known, err)
	}
	if err := PublishEpoch(ctx, env.Client, env.Names, 6, func(context.Context) (uint32, error) {
		return 0, errors.New("mysql down")
	}); err == nil || !strings.Contains(err.Error(), "mysql down") {
		t.Fatalf("truth failing: %v", err)
	}
	if _, known, _ := ReadEpoch(ctx, env.Client, env.Names, 6); known {
		t.Fatal("published an epoch it could not read")
	}
}
