package chaos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/deploy/internal/stack"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Options configures the stack the drills run against.
type Options struct {
	// Root is the checkout whose components are built and run.
	Root string
	// Dir holds the stack's state and the built binaries; a temporary
	// directory when empty (removed by stop).
	Dir string
	// Out receives the stack's own output (the drills' reports go
	// elsewhere); io.Discard when nil.
	Out io.Writer
	// Bin, when set, holds prebuilt component binaries (nothing is built).
	Bin string
	// Judges run by the stack (default 2); one spare judge token is always
	// issued for the drills that start a judge themselves.
	Judges int
}

// Env is a running stack with the handles the drills need.
type Env struct {
	Stack *stack.Stack
	DB    *sql.DB       // as the web nodes' MySQL user
	RDB   *redis.Client // the stack's Redis
	Names rkeys.Names
	Base  string // http://127.0.0.1:<nginx port>
	Bin   string // the built binaries

	studentPass string
	out         io.Writer
}

// Start builds the components, runs a stack on free loopback ports and
// returns once it is ready, with the function that stops it.
func Start(ctx context.Context, o Options) (*Env, func(), error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Judges == 0 {
		o.Judges = 2
	}
	tmp := ""
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "verdict-chaos-")
		if err != nil {
			return nil, nil, fmt.Errorf("chaos: %w", err)
		}
		tmp, o.Dir = d, d
	}
	cleanup := func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
	bin := o.Bin
	if bin == "" {
		bin = filepath.Join(o.Dir, "bin")
		if err := stack.Build(o.Root, bin); err != nil {
			cleanup()
			return nil, nil, err
		}
	} else if b, err := filepath.Abs(bin); err == nil {
		bin = b
	}
	static := filepath.Join(o.Root, "frontend", "dist")
	if _, err := os.Stat(static); err != nil {
		static = o.Dir // the drills use the API only
	}
	cfg := stack.Config{
		Dir: filepath.Join(o.Dir, "var"), BinDir: bin, StaticDir: static,
		Demo: true, Restart: true, Judges: o.Judges, SpareJudges: 1, Out: o.Out,
		// Drills and benchmarks submit far more than a student may.
		// On one machine the judges share the CPUs with MySQL, the web
		// nodes and the load itself, so load1 is always "foreign load":
		// the hub's guard against it (--overload) would hold every task.
		Env: []string{"VERDICT_WEBAPP_SUBMIT_PER_MINUTE=100000", "VERDICT_HUB_OVERLOAD=1000"},
	}
	if err := stack.UseFreePorts(&cfg); err != nil {
		cleanup()
		return nil, nil, err
	}
	s, err := stack.New(cfg)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Run(rctx) }()
	stop := func() {
		cancel()
		<-errc
		cleanup()
	}
	select {
	case <-s.Ready():
	case err := <-errc:
		cancel()
		cleanup()
		return nil, nil, fmt.Errorf("chaos: the stack did not start: %w", err)
	case <-ctx.Done():
		stop()
		return nil, nil, ctx.Err()
	}
	e := &Env{Stack: s, Names: rkeys.New("verdict"), Base: strings.TrimSuffix(s.URL(), "/"), Bin: bin, out: o.Out}
	dsn, err := s.MySQLAppDSN()
	if err == nil {
		e.DB, err = sql.Open("mysql", dsn)
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("chaos: mysql: %w", err)
	}
	e.DB.SetMaxOpenConns(4)
	e.RDB = redis.NewClient(&redis.Options{Addr: s.RedisAddr()})
	b, err := os.ReadFile(filepath.Join(s.Dir(), "demo-logins.txt"))
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("chaos: demo logins: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "student" {
			e.studentPass = f[1]
		}
	}
	if e.studentPass == "" {
		stop()
		return nil, nil, errors.New("chaos: no student in the demo logins")
	}
	// The judges must have said hello (languages) before anyone submits.
	if err := e.waitJudges(ctx, o.Judges, 60*time.Second); err != nil {
		stop()
		return nil, nil, err
	}
	return e, func() {
		e.DB.Close()
		e.RDB.Close()
		stop()
	}, nil
}

// waitJudges waits until /api/languages reports n live judges.
func (e *Env) waitJudges(ctx context.Context, n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last int
	for time.Now().Before(deadline) {
		var v struct {
			Live int `json:"live_judges"`
		}
		if err := getJSON(ctx, e.Base+"/api/languages", &v); err == nil {
			last = v.Live
			if v.Live >= n {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("chaos: %d live judges after %v, want %d", last, within, n)
}

// Student logs in as the demo student through nginx.
func (e *Env) Student(ctx context.Context) (*Client, error) {
	return Login(ctx, e.Base, "student", e.studentPass)
}
