package rehearsal

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisconn"
)

// Pool is what one process's connection pools made its work wait for,
// over the whole run, from its /metrics: a command or query beyond the
// pool's connections waits for a free one, which no CPU profile shows.
type Pool struct {
	Process      string
	RedisSize    int
	RedisWaits   float64
	RedisWaitSec float64
	SQLWaits     float64 // the requests' MySQL pool (web nodes)
	SQLWaitSec   float64
	// BrowserWaits and BrowserWaitSec are the hub's browsers' Redis reads
	// that waited at its gate (--browser-reads), which keeps them from
	// taking the pool the judges' work needs (0 from the web nodes).
	BrowserWaits   float64
	BrowserWaitSec float64
	// Commands are the process's Redis commands that took it the most
	// time over the run, as it timed them (none from a process without
	// obs.RedisCommandSeconds).
	Commands    []CommandTime
	CommandsErr string
	Err         string
}

// commandsKept is how many of a process's Redis commands the report lists.
const commandsKept = 8

// pools reads the web nodes' and the hub's pool metrics.
func (r *run) pools(ctx context.Context) []Pool {
	sc := r.env.Stack.Config()
	var out []Pool
	for i, port := range sc.WebPorts {
		out = append(out, readPool(ctx, fmt.Sprintf("web-%d", i+1), port))
	}
	return append(out, readPool(ctx, "hub", sc.HubPort))
}

func readPool(ctx context.Context, process string, port int) Pool {
	p := Pool{Process: process}
	text, err := metricsText(ctx, port)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	v := metricValues(strings.NewReader(text))
	p.RedisSize = int(v[obs.RedisPoolSize])
	p.RedisWaits, p.RedisWaitSec = v[obs.RedisPoolWaits], v[obs.RedisPoolWaitSeconds]
	p.BrowserWaits, p.BrowserWaitSec = v[obs.HubBrowserReadWaits], v[obs.HubBrowserReadWaitSeconds]
	if cmds, err := obs.ReadHistograms(strings.NewReader(text), obs.RedisCommandSeconds, "command"); err == nil {
		p.Commands = commandTimes(nil, cmds, commandsKept)
	} else {
		p.CommandsErr = err.Error()
	}
	p.SQLWaits = v[`go_sql_wait_count_total{db_name="verdict"}`]
	p.SQLWaitSec = v[`go_sql_wait_duration_seconds_total{db_name="verdict"}`]
	return p
}

// metricsText reads a component's /metrics on a loopback port.
func metricsText(ctx context.Context, port int) (string, error) {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", fmt.Errorf("rehearsal: metrics of :%d: %w", port, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("rehearsal: metrics of :%d: %s", port, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("rehearsal: metrics of :%d: %w", port, err)
	}
	return string(b), nil
}

// hubDrops reads the browser sockets the hub closed itself, by reason;
// the error's text when its /metrics could not be read.
func (r *run) hubDrops(ctx context.Context) (map[string]float64, string) {
	m, err := r.hubMetrics(ctx)
	if err != nil {
		return nil, err.Error()
	}
	return droppedClients(metricValues(strings.NewReader(m))), ""
}

// droppedClients picks obs.HubDroppedClients's series out of a metrics
// read, by reason.
func droppedClients(vals map[string]float64) map[string]float64 {
	out := map[string]float64{}
	prefix := obs.HubDroppedClients + `{reason="`
	for k, v := range vals {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if reason, _, ok := strings.Cut(rest, `"`); ok {
				out[reason] = v
			}
		}
	}
	return out
}

// metricValues reads a Prometheus text exposition into series (the name
// with its labels as written) → value; comments and bad lines are skipped.
func metricValues(r io.Reader) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i <= 0 {
			continue
		}
		f, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = f
	}
	return out
}

// writePools is the pools' table.
func writePools(b *strings.Builder, rep *Report) {
	if len(rep.Pools) == 0 {
		return
	}
	b.WriteString("\n## Connection pools (whole run)\n\n")
	b.WriteString("Work that waited for a free connection (the metrics of each process): a wait runs out a request's deadline while the process and the server have CPU to spare, and shows in no CPU profile.\n\n")
	b.WriteString("| process | Redis pool | Redis waits | waited s | mean wait ms | MySQL waits (requests' pool) | waited s |\n|---|---|---|---|---|---|---|\n")
	for _, p := range rep.Pools {
		if p.Err != "" {
			fmt.Fprintf(b, "| %s | %s | | | | | |\n", p.Process, p.Err)
			continue
		}
		mean := 0.0
		if p.RedisWaits > 0 {
			mean = 1000 * p.RedisWaitSec / p.RedisWaits
		}
		fmt.Fprintf(b, "| %s | %s | %.0f | %.1f | %.1f | %.0f | %.1f |\n", p.Process,
			cmp.Or(strconv.Itoa(p.RedisSize), "?"), p.RedisWaits, p.RedisWaitSec, mean, p.SQLWaits, p.SQLWaitSec)
	}
	for _, p := range rep.Pools {
		if p.BrowserWaits > 0 {
			fmt.Fprintf(b, "\nThe %s's browsers' Redis reads (session reads, subscription snapshots) waited %.0f times, %.1f s in all (mean %.1f ms), for a slot of its `--browser-reads` gate, which keeps them from taking the connections its judges' work needs.\n",
				p.Process, p.BrowserWaits, p.BrowserWaitSec, 1000*p.BrowserWaitSec/p.BrowserWaits)
		}
	}
}

// writePoolWindows says when the hub's commands waited for its Redis pool
// and which commands took its time then; writeCommandTimes lists each
// process's slowest Redis commands over the run.
func writePoolWindows(b *strings.Builder, rep *Report) {
	if rep.PoolWindowsRead == 0 {
		return
	}
	fmt.Fprintf(b, "\nThe hub's pool waits by when (its /metrics read every %s): %d of %d windows had one.", latencyEvery, rep.PoolWindowsWaited, rep.PoolWindowsRead)
	if len(rep.PoolWindows) == 0 {
		b.WriteString("\n")
		return
	}
	fmt.Fprintf(b, " The %d with the most waiting, with the dispatcher's mean wait for a core then (a wake that found it idle → its pass: how starved the hub was) and the Redis commands that took the hub the most time then (calls, mean ms as the hub timed them, the pool's wait included):\n\n", len(rep.PoolWindows))
	b.WriteString("| from (contest time) | waits | waited s | mean wait ms | dispatcher's wait for a core ms | browsers | browsers' reads waited at the gate (s) | the commands that took the most time |\n|---|---|---|---|---|---|---|---|\n")
	for _, w := range rep.PoolWindows {
		wake := "–"
		if w.WakeMs >= 0 {
			wake = fmt.Sprintf("%.0f", w.WakeMs)
		}
		fmt.Fprintf(b, "| %s | %.0f | %.1f | %.0f | %s | %.0f | %.0f (%.1f) | %s |\n", contestClock(w.From, rep), w.Waits, w.WaitSec,
			1000*w.WaitSec/w.Waits, wake, w.Browsers, w.BrowserWaits, w.BrowserWaitSec, fmtCommands(w.Top))
	}
}

func writeCommandTimes(b *strings.Builder, rep *Report) {
	any := false
	for _, p := range rep.Pools {
		any = any || len(p.Commands) > 0 || p.CommandsErr != ""
	}
	if !any {
		return
	}
	fmt.Fprintf(b, "\n## Redis commands as each process timed them (whole run)\n\n")
	fmt.Fprintf(b, "From the call to the reply read (`%s`): the wait for a pooled connection, for a core and for Redis all count, which is what the caller waited; a script by its name, a pipeline or transaction by the commands in it. The %d that took each process the most time, then its reads sent with BLOCK (`%s`: their time is mostly the block, the wait for data to arrive, not a wait for a reply), with calls per acknowledged submission (%d); p99 is the histogram's bucket bound:\n\n", obs.RedisCommandSeconds, commandsKept, redisconn.BlockSuffix, rep.Submitted)
	b.WriteString("| process | command | calls | per submission | total s | mean ms | p99 ≤ ms | over 100 ms |\n|---|---|---|---|---|---|---|---|\n")
	subs := float64(max(rep.Submitted, 1))
	for _, p := range rep.Pools {
		if p.CommandsErr != "" {
			fmt.Fprintf(b, "| %s | %s | | | | | | |\n", p.Process, p.CommandsErr)
			continue
		}
		for _, c := range p.Commands {
			p99 := fmt.Sprintf("> %.0f", 1000*c.LastBound)
			if !math.IsInf(c.P99, 1) {
				p99 = fmt.Sprintf("%.1f", 1000*c.P99)
			}
			fmt.Fprintf(b, "| %s | `%s` | %.0f | %.1f | %.1f | %.2f | %s | %.0f |\n", p.Process, c.Command, c.Calls, c.Calls/subs, c.Sec, 1000*c.Sec/c.Calls, p99, c.Over100ms)
		}
	}
}
