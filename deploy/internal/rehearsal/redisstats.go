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
	// Commands are the commands that took it the most time, most first.
	// A script's (EVALSHA) or a transaction's (EXEC) time includes the
	// commands it ran, and they count on their own lines too: the lines
	// do not add up.
	Commands []RedisCommand
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
	text, err := r.env.RDB.Info(ctx, "server", "cpu", "stats", "commandstats").Result()
	if err != nil {
		return nil, fmt.Errorf("INFO: %w", err)
	}
	s, err := parseRedisInfo(text, 15)
	if err != nil {
		return nil, err
	}
	return &s, nil
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
}
