package rehearsal

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The kernel's own count of connections it could not hand to a server in
// time (/proc/net/netstat, the TcpExt line; the whole machine, which on a
// rehearsal is the stack and its browsers over loopback). A handshake
// that completes while its listen socket's accept queue is full is
// dropped (ListenOverflows): the client hears nothing and sends its SYN
// again after 1, then 3, then 7 s — seconds of latency no server
// measures, and a transport error where the client gives up first. In the
// rehearsals of 2026-12-05 nginx's accept queue (its default backlog,
// 511) filled in the first seconds of the contest.

// TCPStats are the kernel's TCP counters the report reads.
type TCPStats struct {
	// ListenOverflows: handshakes dropped for a full accept queue.
	ListenOverflows int64
	// ListenDrops: every handshake a listen socket dropped (the overflows
	// and the rest, e.g. out of memory).
	ListenDrops int64
	// SynRetrans: SYNs the clients sent again (an unanswered handshake).
	SynRetrans int64
}

// sub is s − o, counter by counter.
func (s TCPStats) sub(o TCPStats) TCPStats {
	return TCPStats{ListenOverflows: s.ListenOverflows - o.ListenOverflows,
		ListenDrops: s.ListenDrops - o.ListenDrops, SynRetrans: s.SynRetrans - o.SynRetrans}
}

// parseNetstat reads the TcpExt counters of /proc/net/netstat: a line of
// names, then a line of values, both starting "TcpExt:".
func parseNetstat(r io.Reader) (TCPStats, error) {
	var names []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "TcpExt:" {
			continue
		}
		if names == nil {
			names = f[1:]
			continue
		}
		vals := f[1:]
		if len(vals) != len(names) {
			return TCPStats{}, fmt.Errorf("netstat: TcpExt has %d names and %d values", len(names), len(vals))
		}
		var s TCPStats
		found := 0
		for i, n := range names {
			var p *int64
			switch n {
			case "ListenOverflows":
				p = &s.ListenOverflows
			case "ListenDrops":
				p = &s.ListenDrops
			case "TCPSynRetrans":
				p = &s.SynRetrans
			default:
				continue
			}
			v, err := strconv.ParseInt(vals[i], 10, 64)
			if err != nil {
				return TCPStats{}, fmt.Errorf("netstat: TcpExt %s: %w", n, err)
			}
			*p = v
			found++
		}
		if found != 3 {
			return TCPStats{}, fmt.Errorf("netstat: TcpExt lacks ListenOverflows, ListenDrops or TCPSynRetrans")
		}
		return s, nil
	}
	if err := sc.Err(); err != nil {
		return TCPStats{}, fmt.Errorf("netstat: %w", err)
	}
	return TCPStats{}, fmt.Errorf("netstat: no TcpExt counters")
}

// readTCPStats reads the machine's counters now.
func readTCPStats() (TCPStats, error) {
	f, err := os.Open("/proc/net/netstat")
	if err != nil {
		return TCPStats{}, err
	}
	defer f.Close()
	return parseNetstat(f)
}

// TCPSecond is one second of real time and what the kernel counted in it.
type TCPSecond struct {
	At time.Time
	TCPStats
}

// TCPReport is what the kernel counted over the contest (its start to the
// staff's last step, like the hub's samples).
type TCPReport struct {
	Total TCPStats
	// Worst are the seconds with the most overflows (then SYNs sent
	// again), worst first; only seconds that had any.
	Worst []TCPSecond
	// Somaxconn is net.core.somaxconn, the most any listen backlog gets
	// (0: unread).
	Somaxconn int
	Err       string
}

// tcpEvery is how often the counters are read: a 2 KB file, a few
// microseconds of the kernel's time.
const tcpEvery = time.Second

// sampleTCP reads the counters every tcpEvery until stop (or ctx) and
// returns what they counted meanwhile, with the n worst seconds.
func sampleTCP(ctx context.Context, stop <-chan struct{}, n int) TCPReport {
	var rep TCPReport
	if b, err := os.ReadFile("/proc/sys/net/core/somaxconn"); err == nil {
		rep.Somaxconn, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	first, err := readTCPStats()
	if err != nil {
		rep.Err = err.Error()
		return rep
	}
	prev := first
	var secs []TCPSecond
	t := time.NewTicker(tcpEvery)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-stop:
			done = true
		case <-t.C:
		}
		cur, err := readTCPStats()
		if err != nil {
			rep.Err = err.Error()
			continue
		}
		if d := cur.sub(prev); d != (TCPStats{}) {
			secs = append(secs, TCPSecond{At: time.Now(), TCPStats: d})
		}
		prev = cur
	}
	rep.Total = prev.sub(first)
	rep.Worst = worstSeconds(secs, n)
	return rep
}

// worstSeconds returns the n seconds with the most overflows (then
// retransmitted SYNs), worst first, ties by time.
func worstSeconds(secs []TCPSecond, n int) []TCPSecond {
	out := slices.Clone(secs)
	slices.SortFunc(out, func(a, b TCPSecond) int {
		return cmp.Or(-cmp.Compare(a.ListenOverflows, b.ListenOverflows), -cmp.Compare(a.SynRetrans, b.SynRetrans), a.At.Compare(b.At))
	})
	return out[:min(n, len(out))]
}

// writeTCP writes the report's section on the kernel's counters.
func writeTCP(b *strings.Builder, rep *Report) {
	t := rep.TCP
	if t == nil {
		return
	}
	b.WriteString("\n## Connections the kernel dropped (TCP counters, the contest)\n\n")
	if t.Err != "" && t.Total == (TCPStats{}) {
		fmt.Fprintf(b, "Not read: %s.\n", t.Err)
		return
	}
	fmt.Fprintf(b, "Handshakes dropped because a listen socket's accept queue was full (ListenOverflows, the whole machine): **%d**; all handshakes listen sockets dropped: %d; SYNs the clients sent again: %d. A dropped handshake costs its client 1, 3 or 7 s before its SYN is sent again, or a transport error; the accept queues are at most net.core.somaxconn = %d (nginx's is the edge's --listen-backlog, Go's servers take somaxconn).\n",
		t.Total.ListenOverflows, t.Total.ListenDrops, t.Total.SynRetrans, t.Somaxconn)
	if len(t.Worst) == 0 {
		return
	}
	b.WriteString("\n| second (contest time) | overflows | SYNs sent again |\n|---|---|---|\n")
	for _, s := range t.Worst {
		fmt.Fprintf(b, "| %s | %d | %d |\n", contestClock(s.At, rep), s.ListenOverflows, s.SynRetrans)
	}
}
