package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func newTestObs(t *testing.T, cfg Config) (*Obs, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	if cfg.Component == "" {
		cfg.Component = "test"
	}
	cfg.LogOutput = &logs
	o, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return o, &logs
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

func TestNewBadConfig(t *testing.T) {
	tests := []Config{
		{},
		{Component: "hub", Log: LogConfig{Level: "loud"}},
		{Component: "hub", Log: LogConfig{Format: "yaml"}},
	}
	for _, cfg := range tests {
		if _, err := New(cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("New(%+v) error = %v, want ErrBadConfig", cfg, err)
		}
	}
}

func TestHealthz(t *testing.T) {
	o, _ := newTestObs(t, Config{})
	o.AddReadyCheck("down", func(context.Context) error { return errors.New("down") })
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	// Liveness does not depend on readiness.
	if code, body := get(t, srv.URL+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q, want 200 \"ok\\n\"", code, body)
	}
	resp, err := http.Post(srv.URL+"/healthz", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz = %d, want 405", resp.StatusCode)
	}
}

func TestReadyz(t *testing.T) {
	boom := errors.New("redis: connection refused")
	tests := []struct {
		name       string
		checks     map[string]func(context.Context) error
		wantCode   int
		wantFailed []string
		wantErrors map[string]string // check -> substring of its error
	}{
		{
			name:     "no checks",
			wantCode: 200,
		},
		{
			name: "all pass",
			checks: map[string]func(context.Context) error{
				"mysql": func(context.Context) error { return nil },
				"redis": func(context.Context) error { return nil },
			},
			wantCode: 200,
		},
		{
			name: "one fails",
			checks: map[string]func(context.Context) error{
				"mysql": func(context.Context) error { return nil },
				"redis": func(context.Context) error { return boom },
			},
			wantCode:   503,
			wantFailed: []string{"redis"},
			wantErrors: map[string]string{"redis": "connection refused"},
		},
		{
			name: "slow check times out, one honours ctx and one ignores it",
			checks: map[string]func(context.Context) error{
				"honours": func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
				"ignores": func(context.Context) error { time.Sleep(2 * time.Second); return nil },
				"fine":    func(context.Context) error { return nil },
			},
			wantCode:   503,
			wantFailed: []string{"honours", "ignores"},
			wantErrors: map[string]string{"honours": "deadline exceeded", "ignores": "did not return"},
		},
		{
			name: "panicking check fails",
			checks: map[string]func(context.Context) error{
				"panics": func(context.Context) error { panic("nil map") },
			},
			wantCode:   503,
			wantFailed: []string{"panics"},
			wantErrors: map[string]string{"panics": "panicked: nil map"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, logs := newTestObs(t, Config{ReadyTimeout: 100 * time.Millisecond})
			for name, fn := range tc.checks {
				o.AddReadyCheck(name, fn)
			}
			srv := httptest.NewServer(o.Handler())
			defer srv.Close()

			start := time.Now()
			code, body := get(t, srv.URL+"/readyz")
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("/readyz took %v with a 100ms check timeout", elapsed)
			}
			if code != tc.wantCode {
				t.Errorf("/readyz = %d, want %d; body %s", code, tc.wantCode, body)
			}
			var rep ReadyReport
			if err := json.Unmarshal([]byte(body), &rep); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			wantStatus := "ok"
			if tc.wantCode != 200 {
				wantStatus = "fail"
			}
			if rep.Status != wantStatus {
				t.Errorf("status = %q, want %q", rep.Status, wantStatus)
			}
			if strings.Join(rep.Failed, ",") != strings.Join(tc.wantFailed, ",") {
				t.Errorf("failed = %v, want %v", rep.Failed, tc.wantFailed)
			}
			if len(rep.Checks) != len(tc.checks) {
				t.Errorf("%d check results, want %d: %s", len(rep.Checks), len(tc.checks), body)
			}
			for name, res := range rep.Checks {
				sub, shouldFail := tc.wantErrors[name]
				if res.OK == shouldFail {
					t.Errorf("check %s ok = %v", name, res.OK)
				}
				if !strings.Contains(res.Error, sub) || (!shouldFail && res.Error != "") {
					t.Errorf("check %s error = %q, want it to contain %q", name, res.Error, sub)
				}
			}
			for _, name := range tc.wantFailed {
				if !strings.Contains(logs.String(), `"check":"`+name+`"`) {
					t.Errorf("failing check %s not logged: %s", name, logs)
				}
			}
		})
	}
}

func TestAddReadyCheckReplaces(t *testing.T) {
	o, _ := newTestObs(t, Config{})
	o.AddReadyCheck("draining", func(context.Context) error { return errors.New("draining") })
	if rep := o.Ready(context.Background()); rep.Status != "fail" {
		t.Fatalf("report %+v, want fail", rep)
	}
	o.AddReadyCheck("draining", func(context.Context) error { return nil })
	if rep := o.Ready(context.Background()); rep.Status != "ok" || len(rep.Checks) != 1 {
		t.Fatalf("report %+v, want one passing check", rep)
	}
}

func TestMetrics(t *testing.T) {
	o, _ := newTestObs(t, Config{Component: "hub"})
	jobs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "verdict_test_jobs_total", Help: "Jobs seen by the test.",
	}, []string{"kind"})
	o.Registry.MustRegister(jobs)
	jobs.WithLabelValues("task").Add(3)

	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	code, body := get(t, srv.URL+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d: %s", code, body)
	}
	b := o.Build()
	buildLine := `verdict_build_info{commit="` + b.Commit + `",component="hub",goversion="` + b.GoVersion + `",version="` + b.Version + `"} 1`
	for _, want := range []string{
		buildLine,
		`verdict_test_jobs_total{kind="task"} 3`,
		"go_goroutines ",
		"process_start_time_seconds ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// Two Obs in one process must not collide (no global registry).
func TestTwoObsDoNotCollide(t *testing.T) {
	a, _ := newTestObs(t, Config{Component: "a"})
	b, _ := newTestObs(t, Config{Component: "b"})
	if a.Registry == b.Registry {
		t.Fatal("two Obs share a registry")
	}
	reg := prometheus.NewRegistry()
	c, _ := newTestObs(t, Config{Component: "c", Registry: reg})
	if c.Registry != reg {
		t.Fatal("Config.Registry not used")
	}
	// Reusing a registry that already has the standard collectors works.
	if _, err := New(Config{Component: "c", Registry: reg, LogOutput: io.Discard}); err != nil {
		t.Fatalf("New on a registry with collectors: %v", err)
	}
}

func TestServe(t *testing.T) {
	o, _ := newTestObs(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- o.Serve(ctx, ln) }()

	if code, _ := get(t, "http://"+ln.Addr().String()+"/healthz"); code != 200 {
		t.Fatalf("/healthz over Serve = %d", code)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Serve returned %v after cancel, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Error("server still answers after Serve returned")
	}
}

func TestListenAndServeBadAddr(t *testing.T) {
	o, _ := newTestObs(t, Config{})
	if err := o.ListenAndServe(context.Background(), "256.0.0.1:bad"); err == nil {
		t.Fatal("ListenAndServe on a bad address returned nil")
	}
}

func TestPprofOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		o, _ := newTestObs(t, Config{Pprof: on})
		srv := httptest.NewServer(o.Handler())
		code, body := get(t, srv.URL+"/debug/pprof/")
		srv.Close()
		if want := map[bool]int{false: 404, true: 200}[on]; code != want {
			t.Errorf("Pprof %v: /debug/pprof/ = %d, want %d", on, code, want)
		}
		if on && !strings.Contains(body, "goroutine") {
			t.Errorf("the profiler index lists no goroutine profile: %.200s", body)
		}
	}
}
