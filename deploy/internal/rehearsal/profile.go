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

// profiles takes a CPU profile of the first web node and of the hub,
// both at once, for d.
func (r *run) profiles(ctx context.Context, d time.Duration) []Profile {
	sc := r.env.Stack.Config()
	targets := []struct{ name, addr string }{
		{"web-1", "127.0.0.1:" + strconv.Itoa(sc.WebPorts[0])},
		{"hub", "127.0.0.1:" + strconv.Itoa(sc.HubPort)},
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

func (r *run) profile(ctx context.Context, name, addr string, d time.Duration) Profile {
	p := Profile{Process: name}
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds()))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	resp, err := (&http.Client{Timeout: d + 30*time.Second}).Do(req)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		p.Err = fmt.Sprintf("GET %s: %s %v", url, resp.Status, err)
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
	p.File = filepath.Join(dir, "rehearsal-"+name+".pprof")
	if err := os.WriteFile(p.File, body, 0o644); err != nil {
		p.Err = err.Error()
		return p
	}
	bin := filepath.Join(r.env.Bin, map[bool]string{true: "hub", false: "webapp"}[name == "hub"])
	cmd := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-nodecount=15", bin, p.File)
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
