package scoreboard

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// restartAfterFirstPage restarts Redis (SIGTERM, its AOF written, then
// started again on the same port and files) once, just after the first
// page of the first HSCAN it sees was answered.
type restartAfterFirstPage struct {
	once    sync.Once
	restart func()
}

func (*restartAfterFirstPage) DialHook(next redis.DialHook) redis.DialHook { return next }
func (*restartAfterFirstPage) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *restartAfterFirstPage) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "hscan" && err == nil {
			h.once.Do(h.restart)
		}
		return err
	}
}

// A whole read of the board is a scan in pages. The contest rehearsal
// with faults (2026-12-07 22:16) read one across Redis's restart: the
// client dialled the restarted Redis, the loading wait waited for its
// data, and the scan went on with its cursor in a table hashed anew, so
// the read lacked fields of every part of the board, and the node's board
// lacked 22 contestants' rows for 30 s (until its next whole read), taken
// off every browser's board at each of its publishes. A scan's pages are
// now read on one connection, and a scan a restart cut starts again.
func TestWholeReadAcrossARedisRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var rd *localsvc.Redis
	port, err := localsvc.OnFreePort(nil, func(port int) (err error) {
		rd, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port, AOF: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rd.Stop() })
	rdb, err := redisconn.Options{Addrs: []string{rd.Addr()}}.Client() // with the loading wait, as the web nodes
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	b := New(rdb, rkeys.New("test"))
	c := Contest{ID: 1, Params: Params{Rule: RuleICPC, Start: t0}}
	// Six pages of fields: 1,000 users with 5 cells each.
	const users, problems = 1000, 5
	if err := b.Rebuild(ctx, c, nil, nil); err != nil {
		t.Fatal(err)
	}
	for u := int64(1); u <= users; u++ {
		for p := int64(1); p <= problems; p++ {
			e := Entry{SubmissionID: u*problems + p, Attempt: 1, At: t0.Add(time.Duration(p) * time.Minute), Verdict: "WA"}
			if _, err := b.ApplyCell(ctx, c, CellKey{UserID: u, ProblemID: p}, User{ID: u, Username: fmt.Sprintf("u%d", u)}, e); err != nil {
				t.Fatal(err)
			}
		}
	}

	restarts := 0
	restart := func() {
		restarts++
		if err := rd.Stop(); err != nil {
			t.Errorf("stop Redis: %v", err)
			return
		}
		again, err := localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port, AOF: true})
		if err != nil {
			t.Errorf("start Redis again: %v", err)
			return
		}
		rd = again
	}
	rdb.AddHook(&restartAfterFirstPage{restart: restart})
	complete := func(views map[CellKey]View, names map[int64]User) error {
		if len(views) != users*problems || len(names) != users {
			return fmt.Errorf("%d cells of %d users, want %d of %d", len(views), len(names), users*problems, users)
		}
		return nil
	}
	views, names, err := b.Views(ctx, c.ID)
	if restarts != 1 {
		t.Fatalf("Redis restarted %d times in the read, want once: the test cannot test", restarts)
	}
	if err != nil {
		t.Fatalf("the read across Redis's restart: %v (the scan, cut, is started again)", err)
	}
	if err := complete(views, names); err != nil {
		t.Fatalf("the read across Redis's restart: %v", err)
	}
	// A rebuild's scan, cut the same way, starts again too.
	rdb.AddHook(&restartAfterFirstPage{restart: restart})
	if err := b.Rebuild(ctx, c, nil, nil); err != nil || restarts != 2 {
		t.Fatalf("a rebuild across Redis's restart: %v (restarts %d, want 2)", err, restarts)
	}
	views, names, err = b.Views(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := complete(views, names); err != nil {
		t.Fatalf("the read after it: %v", err)
	}
}
