package rehearsal

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// Profile is a CPU profile of one process taken during the rush, with
// the top of `go tool pprof -top` when the go tool is at hand.
type Profile struct {
	Process, File string
	Top           []string
	Err           string
}

// profiles takes a CPU profile of the first web node, of the hub and of
// the load generator itself (this process: where its CPU goes decides
// whether the figures measure the stack or the generator), all at once,
// for d.
func (r *run) profiles(ctx context.Context, d time.Duration) []Profile {
	sc := r.env.Stack.Config()
	targets := []struct{ name, addr string }{
		{"web-1", "127.0.0.1:" + strconv.Itoa(sc.WebPorts[0])},
		{"hub", "127.0.0.1:" + strconv.Itoa(sc.HubPort)},
		{"generator", ""},
	}
	out := make([]Profile, len(targets))
	done := make(chan struct{}, len(targets))
	for i, t := range targets {
		go func() {
			defer func() { done <- struct{}{} }()
			out[i] = r.profile(ctx, t.name, t.addr, d)
		}()
	}
	for range targets {
		<-done
	}
	return out
}

// heapProfiles takes the heap profiles of the hub and the first web node
// (what their peak RSS is made of), one after the other.
func (r *run) heapProfiles(ctx context.Context) []Profile {
	sc := r.env.Stack.Config()
	return []Profile{
		r.profile(ctx, "hub", "127.0.0.1:"+strconv.Itoa(sc.HubPort), 0),
		r.profile(ctx, "web-1", "127.0.0.1:"+strconv.Itoa(sc.WebPorts[0]), 0),
	}
}

// profile takes a CPU profile of d of the process name at addr (this
// process: ""), or its heap profile when d is 0.
func (r *run) profile(ctx context.Context, name, addr string, d time.Duration) Profile {
	p := Profile{Process: name}
	var body []byte
	var err error
	bin := filepath.Join(r.env.Bin, map[bool]string{true: "hub", false: "webapp"}[name == "hub"])
	file := "rehearsal-" + name + ".pprof"
	// Cumulative: which of our functions the time is spent under (the
	// flat top is the runtime's syscalls and allocator).
	top := []string{"-top", "-cum", "-nodecount=30"}
	switch {
	case addr == "":
		body, err = selfProfile(ctx, d)
		bin, _ = os.Executable()
	case d == 0:
		body, err = fetchProfile(ctx, addr, "heap", 30*time.Second)
		file = "rehearsal-" + name + "-heap.pprof"
		// Flat: the allocation sites holding the bytes.
		top = []string{"-top", "-sample_index=inuse_space", "-nodecount=25"}
	default:
		body, err = fetchProfile(ctx, addr, fmt.Sprintf("profile?seconds=%d", int(d.Seconds())), d+30*time.Second)
	}
	if err != nil {
		p.Err = err.Error()
		return p
	}
	dir := r.cfg.ProfileDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.Err = err.Error()
		return p
	}
	p.File = filepath.Join(dir, file)
	if err := os.WriteFile(p.File, body, 0o644); err != nil {
		p.Err = err.Error()
		return p
	}
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"tool", "pprof"}, top...), bin, p.File)...)
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	if err := cmd.Run(); err != nil {
		p.Err = "go tool pprof: " + err.Error()
		return p
	}
	for _, l := range strings.Split(o.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			p.Top = append(p.Top, l)
		}
	}
	return p
}

// fetchProfile reads the profile at /debug/pprof/path from a component,
// waiting at most timeout.
func fetchProfile(ctx context.Context, addr, path string, timeout time.Duration) ([]byte, error) {
	url := fmt.Sprintf("http://%s/debug/pprof/%s", addr, path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: timeout}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s %v", url, resp.Status, err)
	}
	return body, nil
}

// selfProfile takes a CPU profile of this process for d.
func selfProfile(ctx context.Context, d time.Duration) ([]byte, error) {
	var b bytes.Buffer
	if err := pprof.StartCPUProfile(&b); err != nil {
		return nil, fmt.Errorf("profile of the load generator: %w", err)
	}
	sleepFor(ctx, d)
	pprof.StopCPUProfile()
	return b.Bytes(), nil
}
