package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// QueueResult is item 5's Redis half.
type QueueResult struct {
	Backlog      int
	FillRate     float64 // enqueues/s while filling, 32 clients
	DrainRate    float64 // Peek+Lease dispatches/s by one dispatcher
	Drained      int     // all tasks leased (backlog and probes)
	ProbeRate    float64
	Probe        Summary // enqueue → lease of contest probes while backlog tasks were still queued
	ProbeIdle    Summary // the probes leased after the backlog was drained
	PeekWindow   int
	Judges       int
	DrainElapsed time.Duration // until the last backlog task was leased
}

// task is a minimal valid judge task.
func task(id int64, p protocol.Priority) queue.Task {
	return queue.Task{Task: protocol.Task{
		TaskRef: protocol.TaskRef{SubmissionID: id, Attempt: 1}, ProblemID: 1 + id%40,
		TestData: protocol.TestData{Hash: "bench" + strconv.FormatInt(id%40, 10), URL: "http://127.0.0.1:1/x"},
		Language: "cpp17", Source: "int main(){}", Limits: protocol.Limits{TimeMs: 1000, MemoryKiB: 262144, OutputBytes: 1 << 20},
		Mode: protocol.ModeICPC, Checker: protocol.Checker{Kind: protocol.CheckerDefault}, Priority: p,
	}, UserID: 1}
}

// Queue runs the queue half of item 5 against a fresh redis-server on a
// free loopback port: it fills the queue with backlog practice tasks
// through queue.Enqueue (the web nodes' Lua script), then one dispatcher
// does what the hub's dispatch pass does in Redis — Peek the head (64
// tasks) and Lease each to one of 100 judges round-robin — while contest
// tasks are enqueued at probeRate (open loop) and their enqueue-to-lease
// latency is recorded. The hub's policy and WebSocket push are not in this
// figure (the policy is measured on its own by Sched).
func Queue(ctx context.Context, dir string, backlog int, probeRate float64, probeFor time.Duration) (QueueResult, error) {
	res := QueueResult{Backlog: backlog, ProbeRate: probeRate, PeekWindow: 64, Judges: 100}
	var rs *localsvc.Redis
	_, err := localsvc.OnFreePort(nil, func(port int) (err error) {
		rs, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{Dir: dir, Port: port})
		return err
	})
	if err != nil {
		return res, fmt.Errorf("bench: redis: %w", err)
	}
	defer rs.Stop()
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr(), PoolSize: 64})
	defer rdb.Close()
	q, err := queue.New(queue.Config{Client: rdb, Names: rkeys.New("bench")})
	if err != nil {
		return res, err
	}

	// Fill.
	var next atomic.Int64
	t0 := time.Now()
	var wg sync.WaitGroup
	errc := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id := next.Add(1)
				if id > int64(backlog) {
					return
				}
				if err := q.Enqueue(ctx, task(id, protocol.PriorityPractice)); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return res, fmt.Errorf("bench: fill: %w", err)
	}
	res.FillRate = float64(backlog) / time.Since(t0).Seconds()

	// Dispatch while probing.
	sent := sync.Map{} // probe id → due time
	var rec, after Recorder
	var leased atomic.Int64
	dctx, stop := context.WithCancel(ctx)
	ddone := make(chan error, 1)
	dstart := time.Now()
	go func() {
		judge := 0
		for dctx.Err() == nil {
			ts, err := q.Peek(dctx, res.PeekWindow)
			if err != nil {
				ddone <- err
				return
			}
			if len(ts) == 0 {
				time.Sleep(time.Millisecond)
				continue
			}
			for _, t := range ts {
				judge = (judge + 1) % res.Judges
				if _, err := q.Lease(dctx, t.Task.TaskRef, "judge-"+strconv.Itoa(judge), time.Minute); err != nil {
					if errors.Is(err, queue.ErrNotQueued) {
						continue
					}
					ddone <- err
					return
				}
				n := leased.Add(1)
				if due, ok := sent.LoadAndDelete(t.Task.SubmissionID); ok {
					if n < int64(backlog) {
						rec.Add(time.Since(due.(time.Time)))
					} else {
						after.Add(time.Since(due.(time.Time)))
					}
				}
				if n == int64(backlog) {
					res.DrainElapsed = time.Since(dstart)
				}
			}
		}
		ddone <- nil
	}()
	base := int64(10_000_000)
	Pace(probeRate, probeFor, func(i int, due time.Time) {
		id := base + int64(i)
		sent.Store(id, due)
		if err := q.Enqueue(ctx, task(id, protocol.PriorityContest)); err != nil {
			sent.Delete(id)
			rec.Fail()
		}
	})
	time.Sleep(200 * time.Millisecond) // let the last probes be leased
	stop()
	if err := <-ddone; err != nil && !errors.Is(err, context.Canceled) {
		return res, fmt.Errorf("bench: dispatch: %w", err)
	}
	sent.Range(func(_, _ any) bool { rec.Fail(); return true }) // never leased
	res.Drained = int(leased.Load())
	if res.DrainElapsed == 0 {
		return res, fmt.Errorf("bench: dispatch: only %d of %d backlog tasks leased in %v", res.Drained, backlog, probeFor)
	}
	res.DrainRate = float64(backlog) / res.DrainElapsed.Seconds()
	res.Probe = rec.Summary()
	res.ProbeIdle = after.Summary()
	return res, nil
}

// SchedResult is item 5's policy half: ns per Pick with 100 judges.
type SchedResult struct {
	Policy      string
	NsPerPick   float64
	PlacedPerOp float64
}

var benchLine = regexp.MustCompile(`^BenchmarkPick100Judges/(\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) placed/op`)

// ParseSchedBench reads `go test -bench Pick100Judges` output.
func ParseSchedBench(r io.Reader) ([]SchedResult, error) {
	var out []SchedResult
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseFloat(m[2], 64)
		pl, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, SchedResult{Policy: m[1], NsPerPick: ns, PlacedPerOp: pl})
	}
	if len(out) == 0 {
		return nil, errors.New("bench: no BenchmarkPick100Judges lines in the go test output")
	}
	return out, sc.Err()
}

// Sched runs hub/internal/sched's BenchmarkPick100Judges with the go tool
// in root (the policies are internal to the hub, so they are measured in
// their own package) and parses its figures.
func Sched(ctx context.Context, root, goBin string) ([]SchedResult, error) {
	cmd := exec.CommandContext(ctx, goBin, "test", "-run", "^$", "-bench", "Pick100Judges", "-benchtime", "1s", "-count", "3", "./hub/internal/sched/")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("bench: go test -bench: %w\n%s", err, out.String())
	}
	rs, err := ParseSchedBench(&out)
	if err != nil {
		return nil, err
	}
	return MedianSched(rs), nil
}

// MedianSched reduces repeated runs to the median ns per pick of each
// policy, in the order policies first appear.
func MedianSched(rs []SchedResult) []SchedResult {
	var order []string
	by := map[string][]SchedResult{}
	for _, r := range rs {
		if _, ok := by[r.Policy]; !ok {
			order = append(order, r.Policy)
		}
		by[r.Policy] = append(by[r.Policy], r)
	}
	out := make([]SchedResult, 0, len(order))
	for _, p := range order {
		v := by[p]
		slices.SortFunc(v, func(a, b SchedResult) int { return cmp.Compare(a.NsPerPick, b.NsPerPick) })
		out = append(out, v[(len(v)-1)/2])
	}
	return out
}
