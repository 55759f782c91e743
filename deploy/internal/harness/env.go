package harness

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // the stack's MariaDB
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/deploy/internal/stack"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Options configures the stack Start runs.
type Options struct {
	// Root is the checkout whose components are built and run.
	Root string
	// Dir holds the stack's state and the built binaries; a temporary
	// directory when empty (removed by stop).
	Dir string
	// Out receives the stack's own output; io.Discard when nil.
	Out io.Writer
	// Bin, when set, holds prebuilt component binaries (nothing is built).
	Bin string
	// StaticDir is the root nginx serves; default Root/frontend/dist when
	// it exists, else Dir.
	StaticDir string
	// Judges run by the stack (default 2; negative: none, e.g. when the
	// caller connects simulated judges with the spare tokens); SpareJudges
	// more tokens are issued for judges the caller starts itself
	// (Env.Stack.Dir()/judge-N/token, numbered after the stack's own judges).
	Judges, SpareJudges int
	// Env is added to every component's environment.
	Env []string
	// WebNodes is the number of web nodes (default: the stack's, 2).
	WebNodes int
	// Configure, when set, adjusts the stack's configuration before it
	// starts (its ports are zero: the stack chooses free ones as it
	// starts, FreePorts; Env.Stack.Config tells them).
	Configure func(*stack.Config)
}

// Env is a running stack with the handles drills and benchmarks need.
type Env struct {
	Stack *stack.Stack
	DB    *sql.DB       // as the web nodes' MySQL user
	RDB   *redis.Client // the stack's Redis
	Names rkeys.Names
	Base  string    // http://127.0.0.1:<nginx port>
	Bin   string    // the built binaries
	Out   io.Writer // the stack's own output

	logins map[string]string // demo username → password
}

// Start builds the components (unless o.Bin), runs a stack on free
// loopback ports (stack.Config.FreePorts) with the demo data and returns once it is ready and its
// judges are connected, with the function that stops it.
func Start(ctx context.Context, o Options) (*Env, func(), error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Judges == 0 {
		o.Judges = 2
	}
	o.Judges = max(o.Judges, 0)
	tmp := ""
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "verdict-stack-")
		if err != nil {
			return nil, nil, fmt.Errorf("harness: %w", err)
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
	static := o.StaticDir
	if static == "" {
		static = filepath.Join(o.Root, "frontend", "dist")
		if _, err := os.Stat(static); err != nil {
			static = o.Dir // API only
		}
	}
	cfg := stack.Config{
		Dir: filepath.Join(o.Dir, "var"), BinDir: bin, StaticDir: static,
		Demo: true, Restart: true, Judges: o.Judges, SpareJudges: o.SpareJudges, Out: o.Out,
		Env: o.Env, FreePorts: true,
	}
	if o.WebNodes > 0 {
		cfg.WebPorts = make([]int, o.WebNodes)
	}
	if o.Configure != nil {
		o.Configure(&cfg)
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
		return nil, nil, fmt.Errorf("harness: the stack did not start: %w", err)
	case <-ctx.Done():
		stop()
		return nil, nil, ctx.Err()
	}
	e := &Env{Stack: s, Names: rkeys.New("verdict"), Base: strings.TrimSuffix(s.URL(), "/"), Bin: bin, Out: o.Out}
	dsn, err := s.MySQLAppDSN()
	if err == nil {
		e.DB, err = sql.Open("mysql", dsn)
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("harness: mysql: %w", err)
	}
	e.DB.SetMaxOpenConns(4)
	e.RDB = redis.NewClient(&redis.Options{Addr: s.RedisAddr()})
	if e.logins, err = readLogins(filepath.Join(s.Dir(), "demo-logins.txt")); err != nil {
		e.close()
		stop()
		return nil, nil, err
	}
	// The judges must have said hello (languages) before anyone submits.
	if err := e.WaitJudges(ctx, o.Judges, 60*time.Second); err != nil {
		e.close()
		stop()
		return nil, nil, err
	}
	return e, func() {
		e.close()
		stop()
	}, nil
}

func (e *Env) close() {
	e.DB.Close()
	e.RDB.Close()
}

// readLogins parses the demo logins file ("username password (label)").
func readLogins(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("harness: demo logins: %w", err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			m[f[0]] = f[1]
		}
	}
	if m["student"] == "" || m["admin"] == "" {
		return nil, errors.New("harness: no student or admin in the demo logins")
	}
	return m, nil
}

// WaitJudges waits until /api/languages reports n live judges.
func (e *Env) WaitJudges(ctx context.Context, n int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last int
	for time.Now().Before(deadline) {
		var v struct {
			Live int `json:"live_judges"`
		}
		if err := GetJSON(ctx, e.Base+"/api/languages", &v); err == nil {
			last = v.Live
			if v.Live >= n {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("harness: %d live judges after %v, want %d", last, within, n)
}

// Student logs in as the demo student through nginx.
func (e *Env) Student(ctx context.Context) (*Client, error) {
	return Login(ctx, e.Base, "student", e.logins["student"])
}

// Admin logs in as the demo admin through nginx, from the loopback
// address from (the zero Addr: any).
func (e *Env) Admin(ctx context.Context, from netip.Addr) (*Client, error) {
	return LoginFrom(ctx, e.Base, "admin", e.logins["admin"], from)
}
