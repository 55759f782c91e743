package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/judge/internal/lang"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

// Runner runs one program in the sandbox; *sandbox.Sandbox implements it.
type Runner interface {
	Run(ctx context.Context, spec sandbox.Spec) (sandbox.Result, error)
}

// ErrConfig is wrapped by New for a bad Config.
var ErrConfig = errors.New("agent: bad configuration")

// Defaults of Config (and of `judge agent`'s flags).
const (
	DefaultQueueSize       = 2
	DefaultCacheBytes      = 2 << 30
	DefaultBuildCacheBytes = 512 << 20
	DefaultBackoffMin      = 500 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultDeliverTimeout  = 30 * time.Second
)

// Config configures an Agent. Zero values take the documented defaults.
type Config struct {
	// HubURL is the hub's judge endpoint, ws:// or wss://, e.g.
	// wss://oj.example.edu/judge. Required.
	HubURL string
	// JudgeID names this judge to the hub. Required.
	JudgeID string
	// Token authenticates the judge (hello, and test data downloads).
	// Required.
	Token string
	// Dir holds the agent's state: cache/ (test data), outbox/ (results not
	// yet delivered), work/ (per-slot scratch). Required.
	Dir string
	// Languages offered (already detected). Required, at least one.
	Languages []lang.Available
	// Runner runs programs; required (a *sandbox.Sandbox with at least
	// MaxParallel slots).
	Runner Runner
	// MaxParallel is how many tasks run at once. Default NumCPU-1, at
	// least 1.
	MaxParallel int
	// QueueSize is how many accepted tasks may wait locally beyond the
	// running ones. Default DefaultQueueSize, 2 (the hub skips judges
	// whose queue passes 3).
	QueueSize int
	// CPUs lists the CPUs runs may be pinned to; each slot gets its own.
	// Default: the process's affinity. Runs are pinned only when there are
	// at least MaxParallel CPUs; the highest ones are used, leaving CPU 0 to
	// the agent and the system when there is a spare.
	CPUs []int
	// CacheBytes bounds the unpacked test data kept. Default
	// DefaultCacheBytes, 2 GiB.
	CacheBytes int64
	// BuildCacheBytes bounds each language's kept compiler build cache
	// (languages with a BuildCache, i.e. Go). Default
	// DefaultBuildCacheBytes, 512 MiB; negative
	// turns the build cache off (every compile starts cold).
	BuildCacheBytes int64
	// TestDataURL builds the download URL of a package when a task carries
	// none. Default: the hub URL's host over http(s),
	// /api/judge/testdata/{hash}.
	TestDataURL func(hash string) string
	// HTTPClient downloads test data. Default: 10 minute timeout.
	HTTPClient *http.Client
	// BackoffMin and BackoffMax bound the reconnect delay, which doubles
	// after each failed attempt, with jitter. Defaults DefaultBackoffMin
	// (500 ms) and DefaultBackoffMax (30 s).
	BackoffMin, BackoffMax time.Duration
	// DeliverTimeout bounds how long a drain waits to deliver finished
	// results once every task is done; what is left stays in the outbox for
	// the next start. Default DefaultDeliverTimeout, 30 s.
	DeliverTimeout time.Duration
	// TestlibDir is a directory holding testlib.h, compiled with a
	// checker or interactor that includes it when the package carries no
	// copy of its own (the package's wins). The judge then offers
	// protocol.LanguageTestlib in hello. Empty: none.
	TestlibDir string
	// AgentVersion is reported in hello. Default "dev".
	AgentVersion string
	// Logger; default discards.
	Logger *slog.Logger
	// Registry receives the agent's metrics when set.
	Registry prometheus.Registerer
}

func (c Config) withDefaults() (Config, error) {
	var errs []error
	u, err := url.Parse(c.HubURL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		errs = append(errs, fmt.Errorf("hub URL %q: want ws://host/path or wss://host/path", c.HubURL))
	}
	if c.JudgeID == "" {
		errs = append(errs, errors.New("no judge id"))
	}
	if c.Token == "" {
		errs = append(errs, errors.New("no token"))
	}
	if c.Dir == "" {
		errs = append(errs, errors.New("no state directory"))
	}
	if len(c.Languages) == 0 {
		errs = append(errs, errors.New("no languages available"))
	}
	if c.Runner == nil {
		errs = append(errs, errors.New("no sandbox"))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// A default is for zero; a negative count, size or duration (but
	// BuildCacheBytes's) counts as zero, as it always has.
	c.MaxParallel = cmp.Or(max(c.MaxParallel, 0), max(1, runtime.NumCPU()-1))
	c.QueueSize = cmp.Or(max(c.QueueSize, 0), DefaultQueueSize)
	if c.CPUs == nil {
		c.CPUs = allowedCPUs()
	}
	c.BuildCacheBytes = cmp.Or(c.BuildCacheBytes, DefaultBuildCacheBytes) // negative: off
	c.CacheBytes = cmp.Or(max(c.CacheBytes, 0), DefaultCacheBytes)
	if c.TestDataURL == nil {
		base := DefaultTestDataBase(u)
		c.TestDataURL = func(hash string) string { return base + hash }
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 10 * time.Minute}
	}
	c.BackoffMin = cmp.Or(max(c.BackoffMin, 0), DefaultBackoffMin)
	c.BackoffMax = cmp.Or(max(c.BackoffMax, 0), DefaultBackoffMax)
	c.DeliverTimeout = cmp.Or(max(c.DeliverTimeout, 0), DefaultDeliverTimeout)
	c.AgentVersion = cmp.Or(c.AgentVersion, "dev")
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// DefaultTestDataBase is where test data is downloaded from when a task has
// no URL: the hub URL's scheme (ws→http, wss→https) and host, path
// /api/judge/testdata/ (the hash is appended).
func DefaultTestDataBase(hub *url.URL) string {
	scheme := "http"
	if strings.EqualFold(hub.Scheme, "wss") {
		scheme = "https"
	}
	return scheme + "://" + hub.Host + "/api/judge/testdata/"
}

// slotCPUs picks a CPU per slot, or nil when there are too few to pin.
func slotCPUs(cpus []int, slots int) []int {
	if len(cpus) < slots || slots < 1 {
		return nil
	}
	// Prefer the highest CPUs: CPU 0 takes most interrupts and the agent.
	return append([]int(nil), cpus[len(cpus)-slots:]...)
}
