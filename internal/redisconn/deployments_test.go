package redisconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/registry"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// TestDeployments runs the queue's and the registry's whole contract (every
// Lua script, pub/sub, the results stream and its consumer group) against
// real servers in each mode the components can be configured for: one
// Redis, Redis behind a Sentinel, and a three-node Redis Cluster.
func TestDeployments(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	single := func(t *testing.T, dir string) redisconn.Options {
		var r *localsvc.Redis
		_, err := localsvc.OnFreePort(nil, func(port int) (err error) {
			r, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Stop() })
		return redisconn.Options{Addrs: []string{r.Addr()}, DB: 2, Prefix: "oj"}
	}
	deployments := []struct {
		name  string
		mode  redisconn.Mode
		start func(t *testing.T, dir string) redisconn.Options
	}{
		{"single", redisconn.ModeSingle, single},
		{"sentinel", redisconn.ModeSentinel, func(t *testing.T, dir string) redisconn.Options {
			master := single(t, filepath.Join(dir, "master"))
			var s *localsvc.Sentinel
			_, err := localsvc.OnFreePort(nil, func(port int) (err error) {
				s, err = localsvc.StartSentinel(ctx, localsvc.SentinelConfig{Dir: filepath.Join(dir, "sentinel"), Port: port,
					MasterName: "verdict-master", MasterAddr: master.Addrs[0]})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Stop() })
			return redisconn.Options{Addrs: []string{s.Addr()}, MasterName: "verdict-master", DB: 1, Prefix: "oj"}
		}},
		{"cluster", redisconn.ModeCluster, func(t *testing.T, dir string) redisconn.Options {
			c, err := localsvc.StartRedisCluster(ctx, localsvc.RedisClusterConfig{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Stop() })
			return redisconn.Options{Addrs: c.Addrs(), Prefix: "oj"}
		}},
	}
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			o := d.start(t, t.TempDir())
			if o.Mode() != d.mode {
				t.Fatalf("options %s select mode %s", o, o.Mode())
			}
			c, err := o.Client()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Ping(ctx).Err(); err != nil {
				t.Fatalf("ping %s: %v", o, err)
			}
			contract(ctx, t, c, o.Names())
			if d.mode == redisconn.ModeCluster {
				// The keys really are spread over a cluster whose nodes own
				// different slots, and all of Verdict's sit in one slot.
				n := o.Names()
				slots := map[int64]bool{}
				for _, k := range []string{n.Queue(), n.Leases(), n.Task(1), n.Results(), n.LiveState("submission", 1), n.Registry(rkeys.RoleWeb)} {
					s, err := c.(*redis.ClusterClient).ClusterKeySlot(ctx, k).Result()
					if err != nil {
						t.Fatal(err)
					}
					slots[s] = true
				}
				if len(slots) != 1 {
					t.Errorf("keys spread over slots %v, want one", slots)
				}
			}
		})
	}
}

func task(id int64, user int64) queue.Task {
	return queue.Task{
		Task: protocol.Task{
			TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: 1}, ProblemID: 7,
			TestData: protocol.TestData{Hash: strings.Repeat("ab", 32), URL: "http://web/blob"},
			Language: "cpp17", Source: "int main(){}",
			Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 65536, OutputBytes: 1 << 20},
			Mode:   protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: protocol.PriorityContest,
		},
		UserID: user, ContestID: 3,
	}
}

// contract drives every queue and registry operation once and checks the
// outcome; a Lua script touching a key outside its slot, a pub/sub message
// not delivered or a stream command refused fails here.
func contract(ctx context.Context, t *testing.T, c redis.UniversalClient, n rkeys.Names) {
	t.Helper()
	q, err := queue.New(queue.Config{Client: c, Names: n, MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe(ctx, n.Events("submission", 1), n.Events("user", 42), n.QueueChanged())
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription confirmation
		t.Fatal(err)
	}
	msgs := sub.Channel()
	expect := func(what string, ok func(*redis.Message) bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case m := <-msgs:
				if ok(m) {
					return
				}
			case <-deadline:
				t.Fatalf("no pub/sub message: %s", what)
			}
		}
	}

	for _, id := range []int64{1, 2} {
		if err := q.Enqueue(ctx, task(id, 42)); err != nil {
			t.Fatalf("enqueue %d: %v", id, err)
		}
	}
	expect("queue changed", func(m *redis.Message) bool { return m.Channel == n.QueueChanged() })
	if err := q.Enqueue(ctx, task(1, 42)); err == nil {
		t.Fatal("a duplicate enqueue was accepted")
	}
	peek, err := q.Peek(ctx, 10)
	if err != nil || len(peek) != 2 || peek[0].Task.SubmissionID != 1 {
		t.Fatalf("peek = %+v, %v", peek, err)
	}
	if pos, err := q.Positions(ctx, []int64{1, 2}); err != nil || pos[0] != 1 || pos[1] != 2 {
		t.Fatalf("positions = %v, %v", pos, err)
	}
	ref1 := protocol.TaskRef{SubmissionID: 1, Attempt: 1}
	if _, err := q.Lease(ctx, ref1, "judge-a", time.Minute); err != nil {
		t.Fatalf("lease: %v", err)
	}
	held, err := q.Renew(ctx, "judge-a", []protocol.TaskRef{ref1}, time.Minute)
	if err != nil || len(held) != 1 || held[0].UserID != 42 || held[0].ContestID != 3 {
		t.Fatalf("renew = %+v, %v", held, err)
	}
	if _, err := q.PublishSubmission(ctx, queue.SubmissionUpdate{SubmissionID: 1, Attempt: 1, Owner: 42,
		Status: protocol.VerdictJudging, Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC, CPUMs: 3}},
		Guard: queue.GuardLeased}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	expect("a cases event", func(m *redis.Message) bool {
		return m.Channel == n.Events("submission", 1) && strings.Contains(m.Payload, `"kind":"cases"`)
	})
	expect("a status event on the user's channel", func(m *redis.Message) bool { return m.Channel == n.Events("user", 42) })
	snap, err := q.Submission(ctx, 1)
	if err != nil || len(snap.State.Cases) != 1 || snap.Owner != 42 {
		t.Fatalf("live state = %+v, %v", snap, err)
	}
	if _, err := q.PublishDoc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: 3}, protocol.EventScoreboard,
		json.RawMessage(`{"rows":1}`), json.RawMessage(`{"rows":[1]}`)); err != nil {
		t.Fatalf("publish doc: %v", err)
	}
	if seq, doc, err := q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: 3}); err != nil || seq != 1 || string(doc) != `{"rows":[1]}` {
		t.Fatalf("doc = %d %s %v", seq, doc, err)
	}
	if err := q.EnsureResultsGroup(ctx); err != nil {
		t.Fatalf("results group: %v", err)
	}
	first, err := q.Complete(ctx, "judge-a", protocol.Result{TaskRef: ref1, Verdict: protocol.VerdictAC, Score: 100, JudgeID: "judge-a",
		Cases: []protocol.CaseResult{{Case: 1, Verdict: protocol.VerdictAC}}})
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	if c, err := q.Complete(ctx, "judge-a", protocol.Result{TaskRef: ref1, Verdict: protocol.VerdictAC, JudgeID: "judge-a"}); err != nil || !c.Again || c.ID != first.ID {
		t.Fatalf("the judge's repeat = %+v, %v, want %s again", c, err, first.ID)
	}
	if _, err := q.Complete(ctx, "judge-b", protocol.Result{TaskRef: ref1, Verdict: protocol.VerdictAC, JudgeID: "judge-b"}); !errors.Is(err, queue.ErrStale) {
		t.Fatalf("another judge's result for the completed attempt: %v", err)
	}
	// Task 2: leased with a lease that expires, reaped back to the queue,
	// released, leased again and expired twice: a system error.
	ref2 := protocol.TaskRef{SubmissionID: 2, Attempt: 1}
	if _, err := q.Lease(ctx, ref2, "judge-b", 10*time.Millisecond); err != nil {
		t.Fatalf("lease 2: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	exp, err := q.Reap(ctx, 10)
	if err != nil || len(exp) != 1 || !exp[0].Requeued || exp[0].Ref.Attempt != 2 {
		t.Fatalf("reap = %+v, %v", exp, err)
	}
	ref2.Attempt = 2
	if _, err := q.Lease(ctx, ref2, "judge-b", time.Minute); err != nil {
		t.Fatalf("lease 2 again: %v", err)
	}
	if err := q.Release(ctx, ref2, "judge-b"); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, err := q.Lease(ctx, ref2, "judge-b", 10*time.Millisecond); err != nil {
		t.Fatalf("lease 2 a third time: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if exp, err := q.Reap(ctx, 10); err != nil || len(exp) != 1 || exp[0].Requeued {
		t.Fatalf("second reap = %+v, %v (want a system error)", exp, err)
	}
	streams, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: n.ResultsGroup(), Consumer: "web-1",
		Streams: []string{n.Results(), ">"}, Count: 10, Block: time.Second}).Result()
	if err != nil || len(streams) != 1 || len(streams[0].Messages) != 2 {
		t.Fatalf("results stream = %+v, %v", streams, err)
	}
	got := map[int64]string{}
	for _, m := range streams[0].Messages {
		e, err := queue.ParseResult(m)
		if err != nil {
			t.Fatal(err)
		}
		got[e.SubmissionID] = string(e.Result.Verdict)
	}
	if got[1] != "AC" || got[2] != "SE" {
		t.Fatalf("results %v, want 1 AC and 2 SE", got)
	}
	if l, err := q.Len(ctx); err != nil || l != 0 {
		t.Fatalf("queue length %d, %v", l, err)
	}
	if rate, err := q.CompletionRate(ctx, time.Minute); err != nil || rate <= 0 {
		t.Fatalf("completion rate %v, %v", rate, err)
	}

	reg, err := registry.New(registry.Config{Client: c, Names: n, Role: rkeys.RoleWeb, Addr: "127.0.0.1:8081", Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Register(ctx); err != nil {
		t.Fatalf("register: %v", err)
	}
	if live, _, err := registry.Live(ctx, c, n, rkeys.RoleWeb, time.Minute); err != nil || fmt.Sprint(live) != "[127.0.0.1:8081]" {
		t.Fatalf("live = %v, %v", live, err)
	}
	if err := reg.Deregister(ctx); err != nil {
		t.Fatalf("deregister: %v", err)
	}

	// One connection to the server that holds a key (in a cluster, not
	// any node: another would answer MOVED).
	board := n.ScoreboardViews(1)
	if err := c.HSet(ctx, board, "a", "1", "b", "2").Err(); err != nil {
		t.Fatal(err)
	}
	var fields map[string]string
	if err := redisconn.OnOneConn(ctx, c, board, func(cn *redis.Conn) (err error) {
		fields, err = cn.HGetAll(ctx, board).Result()
		return err
	}); err != nil || fmt.Sprint(fields) != "map[a:1 b:2]" {
		t.Fatalf("OnOneConn: %v, %v", fields, err)
	}
}
