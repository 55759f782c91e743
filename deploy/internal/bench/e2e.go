package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// E2EConfig bounds item 2. Zero fields take the defaults.
type E2EConfig struct {
	// CapacityFor is the closed-loop saturating phase (default 20 s);
	// completions before Warm (default 4 s) are the pipeline filling and
	// do not count.
	CapacityFor, Warm time.Duration
	// InFlight is how many submissions the closed loop keeps in the system
	// (default 6: three per judge slot of the default stack, 2 judges × 1).
	InFlight int
	// PhaseFor is each open-loop phase (default 20 s); Drain bounds the
	// wait for its last verdicts (default 30 s).
	PhaseFor, Drain time.Duration
	// Fractions of the capacity the phases offer (default 0.5, 0.8, 1).
	Fractions []float64
	// LimitReps is how many bare compiles the physical limit takes the
	// median of (default 3).
	LimitReps int
	// Cores the physical limit divides by (default: this machine's).
	Cores int
}

func (c *E2EConfig) defaults(cores int) {
	d := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	d(&c.CapacityFor, 20*time.Second)
	d(&c.Warm, 4*time.Second)
	d(&c.PhaseFor, 20*time.Second)
	d(&c.Drain, 30*time.Second)
	if c.InFlight == 0 {
		c.InFlight = 6
	}
	if c.Fractions == nil {
		c.Fractions = []float64{0.5, 0.8, 1}
	}
	if c.LimitReps == 0 {
		c.LimitReps = 3
	}
	if c.Cores == 0 {
		c.Cores = cores
	}
}

// E2EPhase is one open-loop phase of item 2.
type E2EPhase struct {
	Fraction  float64
	Offered   float64 // submissions/s
	Submitted int
	Completed int     // final verdicts received on the WebSockets
	Rate      float64 // completions/s (Throughput over the phase)
	Wrong     int     // final verdicts other than AC
	Latency   Summary // due time of the POST → final verdict on the owner's WebSocket
	Lag       time.Duration
}

// E2EResult is item 2.
type E2EResult struct {
	Limit      Limit
	Capacity   float64 // completions/s in the closed-loop phase, after Warm
	CapacityN  int     // completions it counted
	CapLatency Summary // submit → verdict in the closed loop (queueing included)
	InFlight   int
	Users      int
	Retried    int // POSTs retried with their key (429, 502–504, transport errors)
	Phases     []E2EPhase
}

func decodeState(b []byte) (protocol.SubmissionState, error) {
	var s protocol.SubmissionState
	err := json.Unmarshal(b, &s)
	return s, err
}

// watch reads a user's live WebSocket (subscribed to the user's
// submission list) and reports every final status to t until ctx ends.
func watch(ctx context.Context, l *harness.Live, t *harness.Verdicts) {
	for {
		raw, err := l.ReadRaw(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintln(os.Stderr, "bench: live socket:", err)
			}
			return
		}
		now := time.Now()
		env, err := protocol.Decode(protocol.LinkLive, raw)
		if err != nil || env.Type != protocol.TypeEvent {
			continue
		}
		ev, err := protocol.DecodeData[protocol.Event](env)
		if err != nil || ev.Kind != protocol.EventStatus {
			continue
		}
		if st, err := decodeState(ev.Body); err == nil && st.Status.Final() {
			t.Done(st.SubmissionID, harness.Final{At: now, Verdict: st.Status})
		}
	}
}

// E2E is item 2: judging end to end through nginx. Every bench user has a
// browser WebSocket (/ws through nginx, its session cookie) subscribed to
// its own submission list; submissions are POSTed through nginx, each
// user from its own loopback address, round-robin over the users, and
// latency runs from the POST's due time to the final verdict on the
// owner's socket. First the physical limit (bare compile + runs, in dir),
// then a closed loop of InFlight submissions measures the capacity, then
// open-loop phases offer Fractions of it.
func E2E(ctx context.Context, f *Fixture, dir string, cfg E2EConfig, cores int) (E2EResult, error) {
	cfg.defaults(cores)
	res := E2EResult{InFlight: cfg.InFlight, Users: len(f.Users)}
	var err error
	if res.Limit, err = MeasureLimit(ctx, dir, Solution(0), f.Cases, cfg.LimitReps, cfg.Cores); err != nil {
		return res, err
	}
	wctx, stopWatch := context.WithCancel(ctx)
	var lives []*harness.Live
	defer func() {
		stopWatch()
		for _, l := range lives {
			l.Close()
		}
	}()
	t := harness.NewVerdicts()
	for _, u := range f.Users {
		l, err := u.DialLive(ctx)
		if err != nil {
			return res, err
		}
		lives = append(lives, l)
		if _, err := l.Subscribe(ctx, protocol.Channel{Kind: protocol.ChannelUser, ID: u.User().ID}); err != nil {
			return res, err
		}
		go watch(wctx, l, t)
	}
	var seq, retried atomic.Int64
	defer func() { res.Retried = int(retried.Load()) }()
	// submit posts one submission from user i%n and waits for its verdict
	// until wctx's deadline; it returns when the verdict came.
	submit := func(ctx context.Context, i int) (harness.Final, error) {
		u := f.Users[i%len(f.Users)]
		n := int(seq.Add(1))
		id, tries, err := u.SubmitRetry(ctx, harness.NewKey(), harness.Submission{Problem: ProblemSlug, Language: Language, Source: Solution(n)}, 10*time.Second)
		retried.Add(int64(len(tries) - 1))
		if err != nil {
			return harness.Final{}, err
		}
		return t.Wait(ctx, id)
	}

	// Warm-up: one submission (the judges fetch the test data).
	wu, cancel := context.WithTimeout(ctx, 60*time.Second)
	fin, err := submit(wu, 0)
	cancel()
	if err != nil {
		return res, fmt.Errorf("bench: warm-up submission: %w", err)
	}
	if fin.Verdict != protocol.VerdictAC {
		return res, fmt.Errorf("bench: warm-up submission judged %s, want AC (is g++ available to the judges?)", fin.Verdict)
	}

	// Capacity: closed loop.
	var capRec Recorder
	var mu sync.Mutex
	var done []time.Duration
	start := time.Now()
	end := start.Add(cfg.CapacityFor)
	cctx, cancel := context.WithTimeout(ctx, cfg.CapacityFor+cfg.Drain)
	var wg sync.WaitGroup
	var next atomic.Int64
	for range cfg.InFlight {
		wg.Go(func() {
			for time.Now().Before(end) && cctx.Err() == nil {
				t0 := time.Now()
				fin, err := submit(cctx, int(next.Add(1)))
				if err != nil {
					capRec.Fail()
					time.Sleep(200 * time.Millisecond)
					continue
				}
				capRec.Add(fin.At.Sub(t0))
				mu.Lock()
				done = append(done, fin.At.Sub(start))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	cancel()
	res.Capacity, res.CapacityN = Throughput(done, cfg.Warm, cfg.CapacityFor)
	res.CapLatency = capRec.Summary()
	if res.Capacity <= 0 {
		return res, fmt.Errorf("bench: capacity: only %d verdicts in %v (%d errors)", res.CapacityN, cfg.CapacityFor-cfg.Warm, res.CapLatency.Errors)
	}

	// Open-loop phases.
	for i, rate := range Rates(res.Capacity, cfg.Fractions) {
		ph := E2EPhase{Fraction: cfg.Fractions[i], Offered: rate}
		var rec Recorder
		var wrong atomic.Int64
		var pdone []time.Duration
		pctx, cancel := context.WithTimeout(ctx, cfg.PhaseFor+cfg.Drain)
		pstart := time.Now()
		ph.Submitted, ph.Lag = Pace(rate, cfg.PhaseFor, func(_ int, due time.Time) {
			fin, err := submit(pctx, int(next.Add(1)))
			if err != nil {
				rec.Fail()
				return
			}
			rec.Add(fin.At.Sub(due))
			if fin.Verdict != protocol.VerdictAC {
				wrong.Add(1)
			}
			mu.Lock()
			pdone = append(pdone, fin.At.Sub(pstart))
			mu.Unlock()
		})
		cancel()
		ph.Latency = rec.Summary()
		ph.Completed = ph.Latency.N
		ph.Wrong = int(wrong.Load())
		ph.Rate, _ = Throughput(pdone, 0, time.Duration(1<<62))
		res.Phases = append(res.Phases, ph)
	}
	return res, nil
}
