package judgetokens

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/rkeys"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func hash(tok string) []byte { h := sha256.Sum256([]byte(tok)); return h[:] }

func TestSyncMirrorsActiveJudges(t *testing.T) {
	ctx := context.Background()
	my := testenv.MySQL(t)
	rd := testenv.Redis(t)
	if _, err := store.Migrate(ctx, my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	st := store.New(my.DB)
	for _, name := range []string{"judge-1", "judge-2", "lab-3"} {
		if err := st.SetJudgeToken(ctx, name, hash("tok-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	// A stale entry from before (a revoked judge) must vanish.
	if err := rd.Client.HSet(ctx, rd.Names.JudgeTokens(), "deadbeef", "revoked").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB.ExecContext(ctx, "UPDATE judges SET revoked_at = NOW() WHERE name = 'lab-3'"); err != nil {
		t.Fatal(err)
	}
	n, err := Sync(ctx, st, rd.Client, rd.Names)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("synced %d judges, want 2", n)
	}
	got, err := rd.Client.HGetAll(ctx, rd.Names.JudgeTokens()).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		hex.EncodeToString(hash("tok-judge-1")): "judge-1",
		hex.EncodeToString(hash("tok-judge-2")): "judge-2",
	}
	if got[rkeys.JudgeTokensSynced] == "" {
		t.Errorf("hash %v lacks the loaded mark %q", got, rkeys.JudgeTokensSynced)
	}
	delete(got, rkeys.JudgeTokensSynced)
	if len(got) != len(want) {
		t.Fatalf("hash = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("hash[%s] = %q, want %q", k, got[k], v)
		}
	}
}

type failing struct{}

func (failing) ActiveJudges(context.Context) ([]store.Judge, error) {
	return nil, context.DeadlineExceeded
}

func TestSyncKeepsRedisWhenMySQLFails(t *testing.T) {
	ctx := context.Background()
	rd := testenv.Redis(t)
	if err := rd.Client.HSet(ctx, rd.Names.JudgeTokens(), "aa", "judge-1").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, failing{}, rd.Client, rd.Names); err == nil {
		t.Fatal("Sync succeeded with a failing source")
	}
	if v, _ := rd.Client.HGet(ctx, rd.Names.JudgeTokens(), "aa").Result(); v != "judge-1" {
		t.Error("a failed read of MySQL emptied the tokens in Redis")
	}
}

type judges []store.Judge

func (j judges) ActiveJudges(context.Context) ([]store.Judge, error) { return j, nil }

// TestSyncMarksAnEmptyTable: with no judge at all the table is still
// marked loaded, so the hub can tell "no such token" from "not loaded".
func TestSyncMarksAnEmptyTable(t *testing.T) {
	ctx := context.Background()
	rd := testenv.Redis(t)
	if _, err := Sync(ctx, judges(nil), rd.Client, rd.Names); err != nil {
		t.Fatal(err)
	}
	got, err := rd.Client.HGetAll(ctx, rd.Names.JudgeTokens()).Result()
	if err != nil || len(got) != 1 || got[rkeys.JudgeTokensSynced] == "" {
		t.Fatalf("table after syncing no judges = %v, %v; want only the loaded mark", got, err)
	}
}

// TestKeepRestoresAWipedTable: Redis restarted empty (FLUSHALL here); Keep
// restores the table within a probe interval, long before its next full
// sync.
func TestKeepRestoresAWipedTable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rd := testenv.Redis(t)
	src := judges{{Name: "judge-1", TokenHash: hash("tok-1")}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Keep(ctx, src, rd.Client, rd.Names, time.Hour, 50*time.Millisecond, slog.New(slog.DiscardHandler))
	}()
	field := hex.EncodeToString(hash("tok-1"))
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if v, _ := rd.Client.HGet(ctx, rd.Names.JudgeTokens(), field).Result(); v == "judge-1" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the token is not in Redis after 10 s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("first sync")
	if err := rd.Client.Del(ctx, rd.Names.JudgeTokens()).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor("after the table was wiped (the full sync is an hour away)")
	cancel()
	<-done
}

// Lookup answers from Redis once synced, from MySQL before (or when Redis
// lost the table), and ErrUnknown for a token neither knows.
func TestLookupRedisThenMySQL(t *testing.T) {
	ctx := context.Background()
	my := testenv.MySQL(t)
	rd := testenv.Redis(t)
	if _, err := store.Migrate(ctx, my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	st := store.New(my.DB)
	if err := st.SetJudgeToken(ctx, "judge-1", hash("tok-1")); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	check := func(step, token, want string, wantErr error) {
		t.Helper()
		got, err := Lookup(ctx, st, rd.Client, rd.Names, token, log)
		if got != want || !errors.Is(err, wantErr) {
			t.Fatalf("%s: Lookup(%q) = %q, %v; want %q, %v", step, token, got, err, want, wantErr)
		}
	}
	check("not synced: from MySQL", "tok-1", "judge-1", nil)
	check("not synced, unknown", "tok-2", "", ErrUnknown)
	if _, err := Sync(ctx, st, rd.Client, rd.Names); err != nil {
		t.Fatal(err)
	}
	// A token only Redis knows proves the answer came from Redis.
	if err := rd.Client.HSet(ctx, rd.Names.JudgeTokens(), hex.EncodeToString(hash("tok-redis")), "judge-r").Err(); err != nil {
		t.Fatal(err)
	}
	check("synced: from Redis", "tok-redis", "judge-r", nil)
	check("synced", "tok-1", "judge-1", nil)
	if _, err := st.DB.ExecContext(ctx, "UPDATE judges SET revoked_at = NOW() WHERE name = 'judge-1'"); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, st, rd.Client, rd.Names); err != nil {
		t.Fatal(err)
	}
	check("revoked", "tok-1", "", ErrUnknown)
}
