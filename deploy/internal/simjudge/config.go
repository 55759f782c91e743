package simjudge

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// ErrConfig is wrapped by New for a bad Config.
var ErrConfig = errors.New("simjudge: bad configuration")

// Defaults of Config (and of Model, and of `verdict-stack simjudge`'s
// flags).
const (
	DefaultSlots          = 8
	DefaultSpeed          = 1.0
	DefaultCompileTime    = 300 * time.Millisecond
	DefaultCaseTime       = 20 * time.Millisecond
	DefaultSigma          = 0.25
	DefaultMaxDataBytes   = 1 << 30
	DefaultBackoffMin     = 500 * time.Millisecond
	DefaultBackoffMax     = 30 * time.Second
	DefaultResendAfter    = 10 * time.Second
	DefaultDeliverTimeout = 30 * time.Second
)

// Config configures one simulated judge. Zero values take the documented
// defaults.
type Config struct {
	// HubURL is the hub's judge endpoint, exactly what `judge agent --hub`
	// takes: ws://host:port/judge or wss://host/judge, through nginx (the
	// edge proxies /judge) or the hub's own listener. Required.
	HubURL string
	// ID is the judge id, registered on the web side with Token. Required.
	ID string
	// Token authenticates the judge: in hello, and as "Authorization:
	// Bearer <token>" on test data downloads. Required.
	Token string
	// Slots is how many tasks are judged at once (hello's max_parallel).
	// Default DefaultSlots (8).
	Slots int
	// Queue is how many accepted tasks may wait for a slot. Default 0: a
	// task that arrives while every slot is taken is rejected busy.
	Queue int
	// Speed divides every simulated time: 2.0 is twice as fast. Default 1.
	Speed float64
	// Languages offered in hello. Default DefaultLanguages().
	Languages []protocol.Language
	// Seed of the run-time model (see Model): the same seed gives every
	// attempt the same simulated work on every run.
	Seed uint64
	// CompileTime is the simulated compile duration before the speed
	// factor. Default DefaultCompileTime (300 ms).
	CompileTime time.Duration
	// CaseTime is the mean run time of a case before the speed factor, for
	// sources whose marker gives no ms. Default DefaultCaseTime (20 ms).
	CaseTime time.Duration
	// Sigma is the lognormal spread of case times (Model.Sigma). Default
	// DefaultSigma (0.25); negative: none.
	Sigma float64
	// Cores is reported in hello and heartbeats. Default Slots.
	Cores int
	// TestDataBase is where a package is downloaded (hash appended) when a
	// task carries no URL. Default: the hub URL's host over http(s),
	// /api/judge/testdata/, as the agent does.
	TestDataBase string
	// MaxDataBytes bounds one downloaded package. Default 1 GiB.
	MaxDataBytes int64
	// BackoffMin and BackoffMax bound the reconnect delay, which doubles
	// after each failed attempt, jittered in [d/2, d]. Defaults 500 ms, 30 s.
	BackoffMin, BackoffMax time.Duration
	// ResendAfter: a result not acknowledged this long after it was written
	// on the current connection is written again. Default 10 s.
	ResendAfter time.Duration
	// DeliverTimeout bounds how long a drain waits for results to be
	// acknowledged once every task is done. Default 30 s.
	DeliverTimeout time.Duration
	// AgentVersion is reported in hello. Default "simjudge".
	AgentVersion string
	// Logger; default discards.
	Logger *slog.Logger
	// HTTPClient downloads test data (and dials the WebSocket). Default: a
	// client with a 10 minute timeout.
	HTTPClient *http.Client
	// OnEvent, when set, is called for every change of a task (see Event),
	// synchronously from the judge's goroutines and never with a lock
	// held: it must be quick and safe for concurrent use.
	OnEvent func(Event)
}

// DefaultLanguages are the built-in language ids of the real judge
// (judge/internal/lang.Defaults), with version strings that say they are
// simulated.
func DefaultLanguages() []protocol.Language {
	ids := []string{"c17", "cpp17", "cpp20", "py3", "java17", "go"}
	out := make([]protocol.Language, len(ids))
	for i, id := range ids {
		out[i] = protocol.Language{ID: id, Version: "simulated " + id}
	}
	return out
}

func (c Config) withDefaults() (Config, error) {
	var errs []error
	u, err := url.Parse(c.HubURL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		errs = append(errs, fmt.Errorf("hub URL %q: want ws://host/path or wss://host/path", c.HubURL))
	}
	if c.ID == "" {
		errs = append(errs, errors.New("no judge id"))
	}
	if c.Token == "" {
		errs = append(errs, errors.New("no token"))
	}
	if c.Slots < 0 || c.Queue < 0 || c.Cores < 0 {
		errs = append(errs, fmt.Errorf("negative slots %d, queue %d or cores %d", c.Slots, c.Queue, c.Cores))
	}
	if c.Speed < 0 {
		errs = append(errs, fmt.Errorf("speed %v < 0", c.Speed))
	}
	for i, l := range c.Languages {
		if l.ID == "" {
			errs = append(errs, fmt.Errorf("languages[%d]: empty id", i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// Slots, Speed and Cores are not negative (checked above); for the
	// durations and sizes a negative value counts as zero, as it always
	// has.
	c.Slots = cmp.Or(c.Slots, DefaultSlots)
	c.Speed = cmp.Or(c.Speed, DefaultSpeed)
	c.Cores = cmp.Or(c.Cores, c.Slots)
	if c.Languages == nil {
		c.Languages = DefaultLanguages()
	}
	c.CompileTime = cmp.Or(max(c.CompileTime, 0), DefaultCompileTime)
	c.CaseTime = cmp.Or(max(c.CaseTime, 0), DefaultCaseTime)
	if c.TestDataBase == "" {
		scheme := "http"
		if strings.EqualFold(u.Scheme, "wss") {
			scheme = "https"
		}
		c.TestDataBase = scheme + "://" + u.Host + "/api/judge/testdata/"
	}
	c.MaxDataBytes = cmp.Or(max(c.MaxDataBytes, 0), DefaultMaxDataBytes)
	c.BackoffMin = cmp.Or(max(c.BackoffMin, 0), DefaultBackoffMin)
	c.BackoffMax = cmp.Or(max(c.BackoffMax, 0), DefaultBackoffMax)
	c.ResendAfter = cmp.Or(max(c.ResendAfter, 0), DefaultResendAfter)
	c.DeliverTimeout = cmp.Or(max(c.DeliverTimeout, 0), DefaultDeliverTimeout)
	c.AgentVersion = cmp.Or(c.AgentVersion, "simjudge")
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 10 * time.Minute}
	}
	return c, nil
}
