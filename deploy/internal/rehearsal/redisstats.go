package rehearsal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// RedisStats is Redis's own account of its work since it started (INFO
// server, cpu, stats and commandstats): Redis has no CPU profile to take,
// and this says which commands its time went to.
type RedisStats struct {
	Uptime time.Duration
	// CPU is its user and system time since it started.
	CPU time.Duration
	// NetIn and NetOut are the bytes it read from and wrote to clients.
	NetIn, NetOut int64
	// Forks is how many times it forked (INFO stats total_forks: AOF
	// rewrites here, the local stack saves no RDB), LastFork how long its
	// last fork held its one thread, AOFRewrites the AOF's rewrites, and
	// DelayedFsyncs the times a write waited for an fsync of the AOF
	// still running after 2 s (aof_delayed_fsync).
	Forks, AOFRewrites, DelayedFsyncs int64
	LastFork                          time.Duration
	// Stalls are the moments its latency monitor recorded: an event
	// (a fork, a command, a write of the AOF …) that held its thread
	// longer than the threshold the local stack sets
	// (localsvc.RedisLatencyThreshold), at most 160 an event, the latest
	// kept.
	Stalls []RedisStall
	// Commands are the commands that took it the most time, most first.
	// A script's (EVALSHA) or a transaction's (EXEC) time includes the
	// commands it ran, and they count on their own lines too: the lines
	// do not add up.
	Commands []RedisCommand
}

// RedisStall is one sample of Redis's latency monitor (LATENCY HISTORY):
// at most one an event a second, the longest of that second.
type RedisStall struct {
	Event   string
	At      time.Time
	Latency time.Duration
}

// RedisCommand is one command's line of INFO commandstats.
type RedisCommand struct {
	Name   string // lower case; a subcommand as "client|setname"
	Calls  int64
	Total  time.Duration
	Failed int64 // rejected (before running) or failed (while running)
}

// errNoCommandStats: INFO's text held no commandstats line.
var errNoCommandStats = errors.New("no commandstats in INFO")

// parseRedisInfo reads the text of INFO (any sections; the ones
// RedisStats needs) and keeps the top commands by time.
func parseRedisInfo(text string, top int) (RedisStats, error) {
	var s RedisStats
	var cpu float64
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch {
		case strings.HasPrefix(k, "cmdstat_"):
			c, err := parseCommandStat(strings.TrimPrefix(k, "cmdstat_"), v)
			if err != nil {
				return RedisStats{}, err
			}
			s.Commands = append(s.Commands, c)
		case k == "uptime_in_seconds":
			n, _ := strconv.ParseInt(v, 10, 64)
			s.Uptime = time.Duration(n) * time.Second
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			cpu += f
		case k == "total_net_input_bytes":
			s.NetIn, _ = strconv.ParseInt(v, 10, 64)
		case k == "total_net_output_bytes":
			s.NetOut, _ = strconv.ParseInt(v, 10, 64)
		case k == "total_forks":
			s.Forks, _ = strconv.ParseInt(v, 10, 64)
		case k == "latest_fork_usec":
			n, _ := strconv.ParseInt(v, 10, 64)
			s.LastFork = time.Duration(n) * time.Microsecond
		case k == "aof_rewrites":
			s.AOFRewrites, _ = strconv.ParseInt(v, 10, 64)
		case k == "aof_delayed_fsync":
			s.DelayedFsyncs, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if len(s.Commands) == 0 {
		return RedisStats{}, errNoCommandStats
	}
	s.CPU = time.Duration(cpu * float64(time.Second))
	slices.SortFunc(s.Commands, func(a, b RedisCommand) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(a.Name, b.Name))
	})
	if len(s.Commands) > top {
		s.Commands = s.Commands[:top]
	}
	return s, nil
}

// parseCommandStat reads one commandstats value:
// "calls=12,usec=340,usec_per_call=28.33,rejected_calls=0,failed_calls=1".
func parseCommandStat(name, v string) (RedisCommand, error) {
	c := RedisCommand{Name: name}
	var usec, rejected, failed int64
	seen := 0
	for f := range strings.SplitSeq(v, ",") {
		k, val, _ := strings.Cut(f, "=")
		var dst *int64
		switch k {
		case "calls":
			dst, seen = &c.Calls, seen+1
		case "usec":
			dst, seen = &usec, seen+1
		case "rejected_calls":
			dst = &rejected
		case "failed_calls":
			dst = &failed
		default:
			continue // usec_per_call, and what a later Redis adds
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return RedisCommand{}, fmt.Errorf("commandstats %s: %s: %w", name, f, err)
		}
		*dst = n
	}
	c.Failed = rejected + failed
	if seen < 2 {
		return RedisCommand{}, fmt.Errorf("commandstats %s: %q has no calls or usec", name, v)
	}
	c.Total = time.Duration(usec) * time.Microsecond
	return c, nil
}

// redisStats reads the stack's Redis's account of itself.
func (r *run) redisStats(ctx context.Context) (*RedisStats, error) {
	return readRedisStats(ctx, r.env.RDB)
}

// readRedisStats reads a Redis's account of itself: INFO, and its latency
// monitor's events.
func readRedisStats(ctx context.Context, rdb *redis.Client) (*RedisStats, error) {
	text, err := rdb.Info(ctx, "server", "cpu", "stats", "persistence", "commandstats").Result()
	if err != nil {
		return nil, fmt.Errorf("INFO: %w", err)
	}
	s, err := parseRedisInfo(text, 15)
	if err != nil {
		return nil, err
	}
	latest, err := rdb.Do(ctx, "LATENCY", "LATEST").Slice()
	if err != nil {
		return nil, fmt.Errorf("LATENCY LATEST: %w", err)
	}
	events, err := latencyEvents(latest)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		h, err := rdb.Do(ctx, "LATENCY", "HISTORY", ev).Slice()
		if err != nil {
			return nil, fmt.Errorf("LATENCY HISTORY %s: %w", ev, err)
		}
		st, err := latencyHistory(ev, h)
		if err != nil {
			return nil, err
		}
		s.Stalls = append(s.Stalls, st...)
	}
	return &s, nil
}

// latencyEvents reads the events' names out of LATENCY LATEST's answer
// (one array an event: its name, then times and figures).
func latencyEvents(v []any) ([]string, error) {
	var names []string
	for _, e := range v {
		a, ok := e.([]any)
		if !ok || len(a) == 0 {
			return nil, fmt.Errorf("LATENCY LATEST: an entry %v is not an event's array", e)
		}
		name, ok := a[0].(string)
		if !ok {
			return nil, fmt.Errorf("LATENCY LATEST: an event's name %v is not a string", a[0])
		}
		names = append(names, name)
	}
	return names, nil
}

// latencyHistory reads LATENCY HISTORY's answer for an event: pairs of a
// Unix time (seconds) and milliseconds.
func latencyHistory(event string, v []any) ([]RedisStall, error) {
	var out []RedisStall
	for _, e := range v {
		a, ok := e.([]any)
		if !ok || len(a) < 2 {
			return nil, fmt.Errorf("LATENCY HISTORY %s: a sample %v is not [time, ms]", event, e)
		}
		at, ok1 := a[0].(int64)
		ms, ok2 := a[1].(int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("LATENCY HISTORY %s: a sample %v is not [time, ms]", event, e)
		}
		out = append(out, RedisStall{Event: event, At: time.Unix(at, 0), Latency: time.Duration(ms) * time.Millisecond})
	}
	return out, nil
}

// writeRedis is Redis's profile: the commands that took it the most time
// since it started, per submission acknowledged.
func writeRedis(b *strings.Builder, rep *Report) {
	b.WriteString("\n## Where Redis's time went (INFO commandstats, since it started)\n\n")
	s := rep.Redis
	if s == nil {
		fmt.Fprintf(b, "None read: %s.\n", cmp.Or(rep.RedisErr, "none recorded"))
		return
	}
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	fmt.Fprintf(b, "Over %s (a `--faults` restart starts it again) Redis used %.1f s of CPU; it read %.0f MiB from its clients and wrote %.0f MiB to them. The %d commands that took it the most time, with calls per acknowledged submission (%d) and their time as a share of its CPU (the rest went to its clients' sockets and its event loop). A script's (`evalsha`) or a transaction's (`exec`) time includes the commands it ran, which count on their own lines too:\n\n",
		s.Uptime.Round(time.Second), s.CPU.Seconds(), mib(s.NetIn), mib(s.NetOut), len(s.Commands), rep.Submitted)
	b.WriteString("| command | calls | per submission | total s | share of CPU | mean µs | failed |\n|---|---|---|---|---|---|---|\n")
	subs := float64(max(rep.Submitted, 1))
	for _, c := range s.Commands {
		mean, share := 0.0, 0.0
		if c.Calls > 0 {
			mean = float64(c.Total) / float64(time.Microsecond) / float64(c.Calls)
		}
		if s.CPU > 0 {
			share = 100 * float64(c.Total) / float64(s.CPU)
		}
		fmt.Fprintf(b, "| `%s` | %d | %.1f | %.1f | %.0f %% | %.0f | %d |\n", strings.ReplaceAll(c.Name, "|", "\\|"),
			c.Calls, float64(c.Calls)/subs, c.Total.Seconds(), share, mean, c.Failed)
	}
	writeRedisStalls(b, rep)
}

// writeRedisStalls says when Redis's one thread was held: its forks (each
// copies the page tables of its whole memory while nothing else runs) and
// what its latency monitor recorded.
func writeRedisStalls(b *strings.Builder, rep *Report) {
	s := rep.Redis
	fmt.Fprintf(b, "\nIt forked %d times (%d rewrites of its append-only file; the local stack saves no snapshot), the last fork holding its thread %.1f ms; a write waited for a late fsync of the file %d times. ",
		s.Forks, s.AOFRewrites, float64(s.LastFork)/float64(time.Millisecond), s.DelayedFsyncs)
	if len(s.Stalls) == 0 {
		fmt.Fprintf(b, "Its latency monitor recorded nothing that held its thread over %d ms.\n", localsvc.RedisLatencyThreshold.Milliseconds())
		return
	}
	type ev struct {
		n       int
		max     time.Duration
		longest []RedisStall
	}
	byEvent := map[string]*ev{}
	var names []string
	for _, st := range s.Stalls {
		e := byEvent[st.Event]
		if e == nil {
			e = &ev{}
			byEvent[st.Event] = e
			names = append(names, st.Event)
		}
		e.n++
		e.max = max(e.max, st.Latency)
		e.longest = append(e.longest, st)
	}
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(byEvent[y].max, byEvent[x].max), cmp.Compare(x, y))
	})
	fmt.Fprintf(b, "Its latency monitor recorded these events holding its thread over %d ms (at most one a second, its longest; the latest 160 an event), with the five longest of each (contest time):\n\n",
		localsvc.RedisLatencyThreshold.Milliseconds())
	b.WriteString("| event | seconds with one | max ms | the longest (contest time: ms) |\n|---|---|---|---|\n")
	for _, name := range names {
		e := byEvent[name]
		slices.SortStableFunc(e.longest, func(x, y RedisStall) int { return cmp.Compare(y.Latency, x.Latency) })
		var when []string
		for _, st := range e.longest[:min(5, len(e.longest))] {
			when = append(when, fmt.Sprintf("%s: %d", contestClock(st.At, rep), st.Latency.Milliseconds()))
		}
		fmt.Fprintf(b, "| `%s` | %d | %d | %s |\n", name, e.n, e.max.Milliseconds(), strings.Join(when, ", "))
	}
}
