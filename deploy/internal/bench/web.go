package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/protocol"
)

// WebConfig bounds item 4. Zero fields take the defaults.
type WebConfig struct {
	// Workers of the closed loop (default 16).
	Workers int
	// Warm (default 0.5 s, discarded), Closed (default 4 s) and Open
	// (default 5 s) are each target's time in each loop, spread over
	// Rounds (default 4) interleaved rounds.
	Warm, Closed, Open time.Duration
	Rounds             int
	// OpenFraction of the smallest closed-loop maximum of the API targets
	// is the open-loop rate of every target (default 0.5).
	OpenFraction float64
	// NginxBin is the nginx binary (default "nginx").
	NginxBin string
}

func (c *WebConfig) defaults() {
	if c.Workers == 0 {
		c.Workers = 16
	}
	d := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	d(&c.Warm, 500*time.Millisecond)
	d(&c.Closed, 4*time.Second)
	d(&c.Open, 5*time.Second)
	if c.Rounds == 0 {
		c.Rounds = 4
	}
	if c.OpenFraction == 0 {
		c.OpenFraction = 0.5
	}
	if c.NginxBin == "" {
		c.NginxBin = "nginx"
	}
}

// WebTarget is one URL measured in item 4.
type WebTarget struct {
	Name   string // e.g. "problem list"
	Via    string // "keepalive", "no keepalive", "static file"
	Path   string
	Bytes  int // response body size (uncompressed)
	Max    float64
	Closed Summary // latency in the closed loop
	Open   Summary // latency at OpenRate, from the due time
	Lag    time.Duration
}

// WebResult is item 4.
type WebResult struct {
	Workers  int
	Rounds   int
	OpenRate float64
	Targets  []WebTarget
}

// Find returns the target of name via via.
func (r WebResult) Find(name, via string) (WebTarget, bool) {
	for _, t := range r.Targets {
		if t.Name == name && t.Via == via {
			return t, true
		}
	}
	return WebTarget{}, false
}

// Web is item 4: GET /api/problems (anonymous) and GET
// /api/submissions/{id} (the owner's session: with the source and 20
// cases) through the stack's nginx (upstream keepalive, the edge's
// default), through a second nginx with the same configuration but no
// upstream keepalive, and the same bytes as static files of the stack's
// nginx (staticDir is its root): the upper bound. For each, a closed loop
// of Workers finds the maximum, then every target gets the same open-loop
// rate, below the saturation of all of them. The targets take turns in
// interleaved rounds.
func Web(ctx context.Context, f *Fixture, staticDir, workDir string, cfg WebConfig) (WebResult, error) {
	cfg.defaults()
	res := WebResult{Workers: cfg.Workers, Rounds: cfg.Rounds}
	e := f.Env
	owner := f.Users[len(f.Users)-1]
	id, _, err := owner.SubmitRetry(ctx, harness.NewKey(), harness.Submission{Problem: ProblemSlug, Language: Language, Source: Solution(-1)}, 10*time.Second)
	if err != nil {
		return res, fmt.Errorf("bench: web: submit: %w", err)
	}
	vctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	v, err := Verdict(vctx, owner, id)
	cancel()
	if err != nil {
		return res, err
	}
	if v != protocol.VerdictAC {
		return res, fmt.Errorf("bench: web: the page's submission was judged %s, want AC", v)
	}
	cookie := owner.Cookie()
	subPath := "/api/submissions/" + strconv.FormatInt(id, 10)

	// The second nginx: the edge's configuration without upstream keepalive.
	runtimeDir := filepath.Join(e.Stack.Dir(), "nginx")
	conf, err := os.ReadFile(filepath.Join(runtimeDir, "nginx.conf"))
	if err != nil {
		return res, fmt.Errorf("bench: web: %w", err)
	}
	port, err := localsvc.FreePort()
	if err != nil {
		return res, err
	}
	ndir := filepath.Join(workDir, "nginx-nokeepalive")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		return res, fmt.Errorf("bench: web: %w", err)
	}
	nk, err := NoKeepaliveConf(string(conf), runtimeDir, ndir, "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return res, err
	}
	ng, err := StartNginx(cfg.NginxBin, ndir, nk, e.Out)
	if err != nil {
		return res, err
	}
	defer ng.Stop()
	noKA := "http://127.0.0.1:" + strconv.Itoa(port)
	if err := waitHTTP(ctx, noKA+"/api/problems", 10*time.Second); err != nil {
		return res, err
	}

	hc := &http.Client{Timeout: 10 * time.Second, Transport: harness.Transport(netip.Addr{}, 4*cfg.Workers)}
	get := func(base, path string, withCookie bool) func(context.Context) (*http.Request, error) {
		return func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
			if err == nil && withCookie && cookie != nil {
				r.AddCookie(cookie)
			}
			return r, err
		}
	}
	body := func(path string, withCookie bool) ([]byte, error) {
		req, _ := get(e.Base, path, withCookie)(ctx)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("bench: web: GET %s: %s", path, resp.Status)
		}
		return b, err
	}
	type spec struct {
		name, via, base, path string
		cookie                bool
		bytes                 int
	}
	var specs []spec
	for _, p := range []struct {
		name, path, file string
		cookie           bool
	}{
		{"problem list", "/api/problems", "bench-problems.json", false},
		{"submission page", subPath, "bench-submission.json", true},
	} {
		b, err := body(p.path, p.cookie)
		if err != nil {
			return res, err
		}
		if err := os.WriteFile(filepath.Join(staticDir, p.file), b, 0o644); err != nil {
			return res, fmt.Errorf("bench: web: static copy: %w", err)
		}
		specs = append(specs,
			spec{p.name, "keepalive", e.Base, p.path, p.cookie, len(b)},
			spec{p.name, "no keepalive", noKA, p.path, p.cookie, len(b)},
			spec{p.name, "static file", e.Base, "/" + p.file, p.cookie, len(b)},
		)
	}
	// Interleaved rounds: on a shared machine the background load drifts,
	// so every target gets a slice of every round instead of one block.
	warm := make([]Recorder, len(specs))
	closed := make([]Recorder, len(specs))
	okN := make([]int, len(specs))
	busy := make([]time.Duration, len(specs))
	for i, s := range specs {
		ClosedLoop(ctx, hc, get(s.base, s.path, s.cookie), cfg.Workers, cfg.Warm, &warm[i])
	}
	for range cfg.Rounds {
		for i, s := range specs {
			n, el := ClosedLoop(ctx, hc, get(s.base, s.path, s.cookie), cfg.Workers, cfg.Closed/time.Duration(cfg.Rounds), &closed[i])
			okN[i] += n
			busy[i] += el
		}
	}
	var apiMax []float64
	for i, s := range specs {
		t := WebTarget{Name: s.name, Via: s.via, Path: s.path, Bytes: s.bytes, Closed: closed[i].Summary()}
		if busy[i] > 0 {
			t.Max = float64(okN[i]) / busy[i].Seconds()
		}
		if s.via != "static file" {
			apiMax = append(apiMax, t.Max)
		}
		res.Targets = append(res.Targets, t)
	}
	res.OpenRate = Below(apiMax, cfg.OpenFraction)
	if res.OpenRate <= 0 {
		return res, fmt.Errorf("bench: web: no closed-loop throughput")
	}
	open := make([]Recorder, len(specs))
	for range cfg.Rounds {
		for i, s := range specs {
			lag := OpenLoop(ctx, hc, get(s.base, s.path, s.cookie), res.OpenRate, cfg.Open/time.Duration(cfg.Rounds), &open[i])
			res.Targets[i].Lag = max(res.Targets[i].Lag, lag)
		}
	}
	for i := range specs {
		res.Targets[i].Open = open[i].Summary()
	}
	return res, nil
}

func waitHTTP(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s", resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: %s not answering: %w", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// fetch does one request and reads the whole body; a non-200 is an error.
func fetch(ctx context.Context, hc *http.Client, mk func(context.Context) (*http.Request, error)) error {
	req, err := mk(ctx)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %s", resp.Status)
	}
	return err
}

// ClosedLoop runs workers that each send the next request as soon as the
// previous one is answered, for d, recording latencies in rec; it returns
// how many were answered 200 and the time it ran.
func ClosedLoop(ctx context.Context, hc *http.Client, mk func(context.Context) (*http.Request, error), workers int, d time.Duration, rec *Recorder) (int, time.Duration) {
	var ok atomic.Int64
	t0 := time.Now()
	end := t0.Add(d)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Now().Before(end) && ctx.Err() == nil {
				s := time.Now()
				if err := fetch(ctx, hc, mk); err != nil {
					rec.Fail()
					continue
				}
				rec.Add(time.Since(s))
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	return int(ok.Load()), time.Since(t0)
}

// OpenLoop sends requests at rate for d whatever the answers do, recording
// in rec the latency counted from each request's due time; it returns the
// pacer's worst lag.
func OpenLoop(ctx context.Context, hc *http.Client, mk func(context.Context) (*http.Request, error), rate float64, d time.Duration, rec *Recorder) time.Duration {
	_, lag := Pace(rate, d, func(_ int, due time.Time) {
		if err := fetch(ctx, hc, mk); err != nil {
			rec.Fail()
			return
		}
		rec.Add(time.Since(due))
	})
	return lag
}
