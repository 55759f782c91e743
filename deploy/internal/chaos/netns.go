package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/localsvc"
)

// netns is a network namespace the drill creates, with only its own
// loopback up. A judge inside it reaches nginx through a bridge: a listener
// created inside the namespace (on its 127.0.0.1) whose connections this
// process forwards to nginx on the host's loopback. Setting the
// namespace's loopback down drops every packet between the judge and the
// bridge: the TCP connection is neither closed nor reset, it goes silent,
// which is what a network partition looks like to the hub. (The kernel here
// has no netem qdisc and iptables is not installed; link down is the
// drop we have.)
type netns struct {
	name string
	l    net.Listener
}

func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// newNetns creates the namespace and the bridge to target.
func newNetns(name, target string) (*netns, error) {
	_ = ipCmd("netns", "del", name) // a leftover of an interrupted run
	if err := ipCmd("netns", "add", name); err != nil {
		return nil, err
	}
	n := &netns{name: name}
	if err := ipCmd("netns", "exec", name, "ip", "link", "set", "lo", "up"); err != nil {
		n.close()
		return nil, err
	}
	type res struct {
		l   net.Listener
		err error
	}
	ch := make(chan res, 1)
	go func() {
		// This goroutine's thread enters the namespace and is never
		// unlocked, so it dies with the goroutine and no other goroutine
		// runs in the namespace. The socket it creates stays there.
		runtime.LockOSThread()
		f, err := os.Open(filepath.Join("/run/netns", name))
		if err != nil {
			ch <- res{err: err}
			return
		}
		defer f.Close()
		if err := enterNetns(int(f.Fd())); err != nil {
			ch <- res{err: fmt.Errorf("setns: %w", err)}
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ch <- res{l, err}
	}()
	r := <-ch
	if r.err != nil {
		n.close()
		return nil, fmt.Errorf("chaos: bridge in %s: %w", name, r.err)
	}
	n.l = r.l
	go func() {
		for {
			c, err := n.l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer u.Close()
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(u, c); done <- struct{}{} }()
				go func() { _, _ = io.Copy(c, u); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	return n, nil
}

// addr is the bridge's address inside the namespace.
func (n *netns) addr() string { return n.l.Addr().String() }

func (n *netns) partition() error {
	return ipCmd("netns", "exec", n.name, "ip", "link", "set", "lo", "down")
}

func (n *netns) heal() error { return ipCmd("netns", "exec", n.name, "ip", "link", "set", "lo", "up") }

func (n *netns) close() {
	if n.l != nil {
		n.l.Close()
	}
	_ = ipCmd("netns", "del", n.name)
}

// startSpareJudge runs the spare judge (token issued by the demo data),
// with wrap before its command line (e.g. ip netns exec NAME) and extra
// flags, and waits until the hub has seen its heartbeat.
func (e *Env) startSpareJudge(ctx context.Context, wrap []string, hub string, extra ...string) (*localsvc.Proc, error) {
	id := e.spareJudge()
	dir := filepath.Join(e.Stack.Dir(), id)
	argv := append(append([]string{}, wrap...), filepath.Join(e.Bin, "judge"), "agent",
		"--hub", hub, "--id", id, "--token-file", filepath.Join(dir, "token"),
		"--dir", dir, "--admin", "", "--deliver-timeout", "2s")
	argv = append(argv, extra...)
	since := time.Now().UnixMilli()
	p, err := localsvc.StartProcess(id, e.Out, dir, []string{"VERDICT_LOG_FORMAT=text"}, argv...)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		v, err := e.RDB.HGet(ctx, e.Names.Judge(id), judgestate.FieldSeenMs).Result()
		if ms, perr := strconv.ParseInt(v, 10, 64); err == nil && perr == nil && ms >= since {
			return p, nil
		}
		select {
		case <-p.Done():
			return nil, fmt.Errorf("chaos: %s exited: %v", id, p.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	_ = p.Stop(5 * time.Second)
	return nil, errors.New("chaos: " + id + " did not reach the hub within 30 s")
}

// PartitionJudge: a judge in its own network namespace takes a task, then
// its packets are dropped; the task must be judged elsewhere, once.
func PartitionJudge(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("partition")
	ns, err := newNetns("verdict-drill-"+strconv.Itoa(os.Getpid()), e.Base[len("http://"):])
	if err != nil {
		r.fail("%v", err)
		return
	}
	defer ns.close()
	spare := e.spareJudge()
	p, err := e.startSpareJudge(ctx, []string{"nsenter", "--net=/run/netns/" + ns.name}, "ws://"+ns.addr()+"/judge")
	if err != nil {
		r.fail("%v", err)
		return
	}
	defer func() { _ = p.Stop(5 * time.Second) }()
	r.did("created network namespace %s (loopback only) and ran %s in it, reaching nginx through a bridge on %s", ns.name, spare, ns.addr())
	others := e.stopJudges(r)
	r.did("stopped %s so that %s takes the next task", strings.Join(others, ", "), spare)
	c, err := e.Student(ctx)
	if err != nil {
		r.fail("log in: %v", err)
		e.startJudges(ctx, r, others)
		return
	}
	id, _, err := c.SubmitRetry(ctx, NewKey(), Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 300)}, 30*time.Second)
	if err != nil {
		r.fail("submit: %v", err)
		e.startJudges(ctx, r, others)
		return
	}
	holder, err := e.leasedTo(ctx, id, 30*time.Second)
	if err == nil && holder != spare {
		err = fmt.Errorf("leased to %s, not %s", holder, spare)
	}
	if err != nil {
		r.fail("%v", err)
		e.startJudges(ctx, r, others)
		return
	}
	time.Sleep(300 * time.Millisecond)
	if err := ns.partition(); err != nil {
		r.fail("%v", err)
	}
	r.did("#%d leased to %s; set the namespace's loopback down (every packet between it and the hub dropped)", id, spare)
	e.startJudges(ctx, r, others)
	r.did("started %s again", strings.Join(others, ", "))
	final := e.verifyOnce(ctx, r, marker, map[int64]string{id: "AC"}, 1, 90*time.Second)
	if f, ok := final[id]; ok {
		r.check(f.JudgeID != spare && f.Attempt >= 2,
			fmt.Sprintf("#%d was judged elsewhere after the partitioned judge's lease expired (by %s, attempt %d)", id, f.JudgeID, f.Attempt),
			fmt.Sprintf("judged by %s attempt %d", f.JudgeID, f.Attempt))
	}
	if err := ns.heal(); err != nil {
		r.fail("%v", err)
	}
	time.Sleep(6 * time.Second)
	r.did("healed the partition and waited 6 s for the cut-off judge to deliver its stale result")
	res, err := e.results(ctx)
	if err == nil {
		r.check(len(res[id]) == 1, "still exactly one result for #"+strconv.FormatInt(id, 10)+" after the partition healed (the stale attempt was refused)",
			fmt.Sprintf("%d results", len(res[id])))
	}
}

// slowCgroup makes a CPU-quota cgroup (10% of one CPU: 10x slower than
// the judge believes) and returns what starts the spare judge inside it:
// a command line prefix that moves the shell into the cgroup before it
// execs the judge (so every process the judge starts, its prewarmed
// sandbox containers included, inherits the quota: a judge moved in after
// its start left those outside and ran at full speed), the judge's extra
// flags, and the cleanup.
//
// On cgroup v1 the sandbox puts runs in its own cpuacct, memory, pids and
// freezer cgroups, never in the cpu hierarchy, so they stay in the quota
// cgroup. On v2 the runs' cgroups must lie below the quota: the judge gets
// the quota cgroup as its --cgroup-parent (it moves itself to a
// supervisor leaf there, the runs go beside it).
func slowCgroup(name string) (wrap, flags []string, cleanup func(), err error) {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil { // v2
		dir := filepath.Join("/sys/fs/cgroup", name)
		_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+cpu"), 0)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("10000 100000"), 0); err != nil {
			removeCgroup(dir)
			return nil, nil, nil, fmt.Errorf("cpu.max: %w", err)
		}
		return enterWrap(dir), []string{"--cgroup-parent", name}, func() { removeCgroup(dir) }, nil
	}
	dir := filepath.Join("/sys/fs/cgroup/cpu", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, nil, err
	}
	for _, f := range [][2]string{{"cpu.cfs_period_us", "100000"}, {"cpu.cfs_quota_us", "10000"}} {
		if err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0); err != nil {
			removeCgroup(dir)
			return nil, nil, nil, fmt.Errorf("%s: %w", f[0], err)
		}
	}
	return enterWrap(dir), nil, func() { removeCgroup(dir) }, nil
}

// enterWrap is a command line prefix that joins cgroup dir, then execs the
// rest of the command line (the judge keeps the shell's pid).
func enterWrap(dir string) []string {
	return []string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, filepath.Join(dir, "cgroup.procs")}
}

// removeCgroup removes dir and the (empty) cgroups below it, deepest first.
func removeCgroup(dir string) {
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				removeCgroup(filepath.Join(dir, e.Name()))
			}
		}
	}
	_ = os.Remove(dir)
}

// SlowJudge: a third judge whose runs get 10% of a CPU (it reports its
// cores as usual); the scheduler must not let it hold the queue up.
//
// 36 submissions come one every 300 ms, about what the two fast judges
// can take on a quiet machine. A judge s times slower than the others
// finishes one task while a fast one finishes s, so even a scheduler that
// only fills free slots gives it about 1/s of a fast judge's share while
// every slot is busy, and one that knows its speed gives it nothing while
// a fast judge is free (the hub uses a judge's speed estimate from its
// second result on, sched.SpeedMeter). The pass rule, at most half the
// work of an average fast judge, holds for any such scheduler once s ≥ 2;
// the drill checks that the judge was at least that slow (its summed case
// wall times, what the hub learns speeds from), else it tested nothing: a
// judge moved into the cgroup after its start kept its prewarmed sandbox
// containers outside, ran at full speed, and took its full share.
func SlowJudge(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("slow")
	name := "verdict-drill-slow-" + strconv.Itoa(os.Getpid())
	wrap, flags, cleanup, err := slowCgroup(name)
	if err != nil {
		r.fail("cgroup: %v", err)
		return
	}
	defer cleanup()
	spare := e.spareJudge()
	p, err := e.startSpareJudge(ctx, wrap, e.Stack.HubURL(), flags...)
	if err != nil {
		r.fail("%v", err)
		return
	}
	defer func() { _ = p.Stop(10 * time.Second) }()
	r.did("started %s inside cpu cgroup %s capped at 10%% of one CPU (every process it starts inherits it: 10x slower than it reports)", spare, name)
	const n, gap = 36, 300 * time.Millisecond
	start := time.Now()
	want, _ := e.burst(ctx, r, n, 3, gap, nil, func(int) (Submission, string) {
		return Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 20)}, "AC"
	})
	r.did("%d submissions (A+B, ~20 ms CPU per case) from 3 sessions, one every %v", n, gap)
	final := e.verifyOnce(ctx, r, marker, want, n, 180*time.Second)
	per := map[string]int{}
	wall := map[string]time.Duration{} // summed case wall times: what the hub learns speeds from
	for _, f := range final {
		per[f.JudgeID]++
		for _, c := range f.Result.Cases {
			wall[f.JudgeID] += time.Duration(c.WallMs) * time.Millisecond
		}
	}
	fast, fastWall := 0, time.Duration(0)
	for j, c := range per {
		if j != spare {
			fast += c
			fastWall += wall[j]
		}
	}
	nfast := e.Stack.Config().Judges
	meanFast := float64(fast) / float64(nfast)
	runMs := func(w time.Duration, c int) float64 {
		if c == 0 {
			return 0
		}
		return float64(w.Milliseconds()) / float64(c)
	}
	slowRun, fastRun := runMs(wall[spare], per[spare]), runMs(fastWall, fast)
	r.did("all judged in %.1f s; per judge: %v; mean run (summed case wall times) %.0f ms on %s, %.0f ms on the others",
		time.Since(start).Seconds(), per, slowRun, spare, fastRun)
	r.check(per[spare] == 0 || slowRun >= 2*fastRun,
		fmt.Sprintf("the slow judge's runs took at least twice as long as the others' (%.0f vs %.0f ms)", slowRun, fastRun),
		"the cpu quota did not slow it: the drill tests nothing")
	r.check(float64(per[spare]) <= meanFast/2,
		fmt.Sprintf("the slow judge took at most half the work of an average fast judge (%d vs %.1f)", per[spare], meanFast),
		"the scheduler did not route around it")
}
