package judging

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// enqueueHook runs each enqueue script (the one whose keys name the queue)
// after before(n), n counting them from 1: a slow enqueue, and what
// happens meanwhile.
type enqueueHook struct {
	queue  string
	mu     sync.Mutex
	n      int
	before func(n int)
}

func (h *enqueueHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *enqueueHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *enqueueHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); n == "evalsha" || n == "eval" {
			for _, a := range cmd.Args() {
				if s, ok := a.(string); ok && s == h.queue {
					h.mu.Lock()
					h.n++
					n := h.n
					h.mu.Unlock()
					h.before(n)
					break
				}
			}
		}
		return next(ctx, cmd)
	}
}

// queuedWithoutTasks makes n queued submissions whose tasks Redis does not
// have (as after a Redis that lost its data).
func queuedWithoutTasks(t *testing.T, st *store.Store, n int) []int64 {
	t.Helper()
	ctx := context.Background()
	u, err := st.CreateUser(ctx, store.User{Username: "alice", DisplayName: "alice", Role: store.RoleStudent, PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := st.CreateProblem(ctx, store.Problem{Slug: "a-plus-b", Title: "A+B", Statement: "…",
		TimeLimitMs: 1000, MemoryLimitKB: 262144, Checker: store.CheckerDefault, Mode: store.ModeICPC,
		Visibility: store.VisibilityPublic, Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	zip, m, err := testpkg.Build([]testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zip)
	hash := hex.EncodeToString(sum[:])
	mj, _ := json.Marshal(m)
	if err := st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: pid, Hash: hash, SizeBytes: int64(len(zip)),
		CaseCount: 1, Manifest: mj}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range n {
		sub, _, err := st.CreateSubmission(ctx, store.NewSubmission{UserID: u.ID, ProblemID: pid, Language: "py3",
			Source: "print(3)", TestdataHash: hash, IdemKey: fmt.Sprintf("k%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sub.ID)
	}
	return ids
}

// The reconciler renews its lock as a pass goes, so a pass longer than the
// lock's lease keeps it; and a pass that finds the lock taken by another
// node stops at once rather than enqueueing the rest of its rows (the
// other node's pass does them).
func TestReconcilerStopsWhenItLosesItsLock(t *testing.T) {
	const interval = 200 * time.Millisecond // the lease: 3 × interval
	st, rd := storeAndRedis(t)
	ctx := context.Background()
	lockKey := rd.Names.Lock(ReconcilerLock)

	run := func(hook *enqueueHook) {
		t.Helper()
		rdb := redis.NewClient(rd.Options())
		t.Cleanup(func() { rdb.Close() })
		rdb.AddHook(hook)
		s, err := New(Config{Store: st, Redis: rdb, Names: rd.Names, NodeID: "node-a", ReconcileInterval: interval,
			Now: func() time.Time { return time.Now().Add(time.Minute) }}) // past ReconcileGrace
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { s.RunReconciler(rctx) })
		time.Sleep(2500 * time.Millisecond) // a pass, and the ticks after it
		cancel()
		wg.Wait()
	}
	queued := func(ids []int64) int {
		t.Helper()
		n := 0
		for _, id := range ids {
			if _, err := rd.Client.ZScore(ctx, rd.Names.Queue(), fmt.Sprint(id)).Result(); err == nil {
				n++
			}
		}
		return n
	}

	// Each enqueue takes more than the renewal interval, the pass five
	// times that, well past the lease: it keeps the lock and finishes.
	ids := queuedWithoutTasks(t, st, 5)
	var holders []string
	run(&enqueueHook{queue: rd.Names.Queue(), before: func(int) {
		time.Sleep(interval + 50*time.Millisecond)
		holders = append(holders, rd.Client.Get(ctx, lockKey).Val())
	}})
	if n := queued(ids); n != len(ids) {
		t.Fatalf("a pass that outlasts its lease but renews it: %d of %d enqueued", n, len(ids))
	}
	for i, h := range holders {
		if h != "node-a" {
			t.Fatalf("during enqueue %d the lock was held by %q, not the reconciler's node (not renewed)", i+1, h)
		}
	}

	// Another node takes the lock while the first enqueue runs: the pass
	// stops there, and the node does not take the lock back.
	for _, id := range ids {
		rd.Client.Del(ctx, rd.Names.Task(id))
		rd.Client.ZRem(ctx, rd.Names.Queue(), fmt.Sprint(id))
	}
	run(&enqueueHook{queue: rd.Names.Queue(), before: func(n int) {
		if n == 1 {
			time.Sleep(interval + 50*time.Millisecond)
			rd.Client.Set(ctx, lockKey, "node-b", 0)
		}
	}})
	if n := queued(ids); n != 1 {
		t.Fatalf("after losing the lock during its first enqueue the pass enqueued %d of %d, want 1", n, len(ids))
	}
	if h := rd.Client.Get(ctx, lockKey).Val(); h != "node-b" {
		t.Fatalf("the lock is %q's, want node-b's (taken back, or released though not held)", h)
	}
}
