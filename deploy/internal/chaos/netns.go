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

// slowCgroup makes a CPU-quota cgroup (20% of one CPU: 5x slower than
// the judge believes) and returns a function that moves a process into it
// (its children, the compilers and the sandboxed runs, inherit it) and the
// cleanup.
func slowCgroup(name string) (func(pid int) error, func(), error) {
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil { // v2
		dir := filepath.Join("/sys/fs/cgroup", name)
		_ = os.WriteFile("/sys/fs/cgroup/cgroup.subtree_control", []byte("+cpu"), 0)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "cpu.max"), []byte("20000 100000"), 0); err != nil {
			return nil, nil, fmt.Errorf("cpu.max: %w", err)
		}
		return enter(dir), func() { _ = os.Remove(dir) }, nil
	}
	dir := filepath.Join("/sys/fs/cgroup/cpu", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), []byte("20000"), 0); err != nil {
		return nil, nil, err
	}
	return enter(dir), func() { _ = os.Remove(dir) }, nil
}

func enter(dir string) func(pid int) error {
	return func(pid int) error {
		return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
	}
}

// SlowJudge: a third judge whose runs get 20% of a CPU (it reports its
// cores as usual); the scheduler must not let it hold the queue up.
func SlowJudge(ctx context.Context, e *Env, r *Result) {
	marker := newMarker("slow")
	name := "verdict-drill-slow-" + strconv.Itoa(os.Getpid())
	join, cleanup, err := slowCgroup(name)
	if err != nil {
		r.fail("cgroup: %v", err)
		return
	}
	defer cleanup()
	spare := e.spareJudge()
	p, err := e.startSpareJudge(ctx, nil, e.Stack.HubURL())
	if err != nil {
		r.fail("%v", err)
		return
	}
	defer func() { _ = p.Stop(10 * time.Second) }()
	if err := join(p.Pid()); err != nil {
		r.fail("move %s into %s: %v", spare, name, err)
		return
	}
	r.did("ran %s in cpu cgroup %s capped at 20%% of one CPU (its compilers and runs inherit it: 5x slower than it reports)", spare, name)
	const n = 24
	start := time.Now()
	want, _ := e.burst(ctx, r, n, 3, 250*time.Millisecond, nil, func(int) (Submission, string) {
		return Submission{Problem: "a-plus-b", Language: "cpp17", Source: burn(marker, 20)}, "AC"
	})
	r.did("%d submissions (A+B, ~20 ms CPU per case) from 3 sessions at 4/s", n)
	final := e.verifyOnce(ctx, r, marker, want, n, 180*time.Second)
	per := map[string]int{}
	for _, f := range final {
		per[f.JudgeID]++
	}
	fast := 0
	for j, c := range per {
		if j != spare {
			fast += c
		}
	}
	nfast := e.Stack.Config().Judges
	meanFast := float64(fast) / float64(nfast)
	r.did("all judged in %.1f s; per judge: %v", time.Since(start).Seconds(), per)
	r.check(float64(per[spare]) <= meanFast/2,
		fmt.Sprintf("the slow judge took at most half the work of an average fast judge (%d vs %.1f)", per[spare], meanFast),
		"the scheduler did not route around it")
}
