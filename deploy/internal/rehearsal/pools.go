package rehearsal

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
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
	Err          string
}

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
	p.RedisSize = int(v["verdict_redis_pool_size"])
	p.RedisWaits, p.RedisWaitSec = v["verdict_redis_pool_waits_total"], v["verdict_redis_pool_wait_seconds_total"]
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
}
