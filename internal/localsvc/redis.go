package localsvc

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisConfig configures a local Redis server.
type RedisConfig struct {
	// Dir holds the AOF files and the log. Required; reused as it is.
	Dir string
	// Port is the loopback TCP port. Required: OnFreePort chooses one,
	// and another when StartRedis fails with ErrPortInUse.
	Port int
	// AOF turns the append-only file on (appendfsync everysec), so data
	// survives a restart. Default false; the stack turns it on. The file
	// is rewritten when it has doubled and is at least AOFRewriteMin
	// bytes: at Redis's own 64 MiB a 3,000-contestant rehearsal (whose
	// data stays small while its streams and boards are written
	// constantly) forked a rewrite 16 times, 1–2.5 CPU s each.
	AOF bool
	// AOFRewriteMin is auto-aof-rewrite-min-size in bytes. Default
	// DefaultAOFRewriteMin.
	AOFRewriteMin int64
	// Databases is the number of logical databases. Default 16.
	Databases int
	// ReadyTimeout bounds the wait for PONG. Default 20 s.
	ReadyTimeout time.Duration
	// Log receives the server's output. Default io.Discard.
	Log io.Writer
	// Args are extra server arguments (e.g. cluster mode), appended last.
	Args []string
	// Nice moves the server ahead of this process and its other
	// children in the CPU's queue: a negative niceness adjustment (nice(1)),
	// applied only when this process may raise priorities (root). On one
	// machine shared with web nodes, a hub and a load generator, every
	// request waits on the server's answers: a store runnable but queued
	// behind them slows all of them at once. 0 leaves it as it is.
	Nice int
}

// RedisLatencyThreshold is a local Redis's latency-monitor-threshold: it
// records each event (a fork, a slow command, a write of its AOF …) that
// holds its one thread longer (LATENCY LATEST, LATENCY HISTORY), which
// the contest rehearsal reports. The monitor costs a clock read an event.
const RedisLatencyThreshold = 20 * time.Millisecond

// DefaultAOFRewriteMin is the AOF size below which a local Redis never
// rewrites its file: 512 MiB of disk at most between rewrites.
const DefaultAOFRewriteMin = 512 << 20

// Redis is a running local Redis server.
type Redis struct {
	cfg  RedisConfig
	proc *Proc
}

// Addr returns host:port.
func (r *Redis) Addr() string { return "127.0.0.1:" + strconv.Itoa(r.cfg.Port) }

// Proc returns the server process.
func (r *Redis) Proc() *Proc { return r.proc }

// StartRedis starts redis-server and waits for PONG.
func StartRedis(ctx context.Context, cfg RedisConfig) (*Redis, error) {
	if cfg.Dir == "" || cfg.Port == 0 {
		return nil, fmt.Errorf("redis: Dir and Port are required")
	}
	if cfg.Databases == 0 {
		cfg.Databases = 16
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 20 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.AOFRewriteMin <= 0 {
		cfg.AOFRewriteMin = DefaultAOFRewriteMin
	}
	bin, err := lookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	cfg.Dir = dir
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	aof := "no"
	if cfg.AOF {
		aof = "yes"
	}
	r := &Redis{cfg: cfg}
	argv := []string{bin,
		"--port", strconv.Itoa(cfg.Port),
		"--bind", "127.0.0.1",
		"--protected-mode", "no",
		"--dir", dir,
		"--daemonize", "no",
		"--save", "",
		"--appendonly", aof,
		"--appendfsync", "everysec",
		"--auto-aof-rewrite-min-size", strconv.FormatInt(cfg.AOFRewriteMin, 10),
		"--latency-monitor-threshold", strconv.FormatInt(RedisLatencyThreshold.Milliseconds(), 10),
		"--databases", strconv.Itoa(cfg.Databases),
		"--pidfile", filepath.Join(dir, "redis.pid"),
	}
	bind := &BindWatch{}
	r.proc, err = StartProcess("redis", io.MultiWriter(cfg.Log, bind), dir, nil, Niced(cfg.Nice, append(argv, cfg.Args...))...)
	if err != nil {
		return nil, err
	}
	// A short read timeout: what holds the port may accept and never
	// answer (waitFor then sees this server gone at once).
	c := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1, ReadTimeout: time.Second})
	defer c.Close()
	err = waitFor(ctx, r.proc, cfg.ReadyTimeout, func(ctx context.Context) error {
		return isServer(ctx, c, r.proc)
	})
	if err != nil {
		_ = r.proc.Stop(2 * time.Second)
		if bind.Seen() {
			return nil, fmt.Errorf("redis: port %d: %w (%w)", cfg.Port, ErrPortInUse, err)
		}
		return nil, fmt.Errorf("redis: %w", err)
	}
	return r, nil
}

// isServer checks that the Redis answering c is p, not another server
// that holds the port p could not bind (p exits soon after).
func isServer(ctx context.Context, c *redis.Client, p *Proc) error {
	info, err := c.InfoMap(ctx, "server").Result()
	if err != nil {
		return err
	}
	if pid := info["Server"]["process_id"]; pid != strconv.Itoa(p.Pid()) {
		return fmt.Errorf("%s answers as pid %s, not %d", c.Options().Addr, pid, p.Pid())
	}
	return nil
}

// Stop shuts Redis down (SIGTERM makes it finish the AOF), killing it
// after 10 s.
func (r *Redis) Stop() error { return r.proc.Stop(10 * time.Second) }
