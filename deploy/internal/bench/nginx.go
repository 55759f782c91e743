package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// ErrConf is returned when the edge's nginx.conf is not shaped as
// expected (nginx/nginx.conf.tmpl changed).
var ErrConf = errors.New("bench: unexpected nginx.conf")

var (
	listenRe   = regexp.MustCompile(`(?m)^(\s*listen\s+)[^\s;]+`)
	webappRe   = regexp.MustCompile(`(?s)upstream webapp \{.*?\n\s*\}`)
	keepLineRe = regexp.MustCompile(`(?m)^[ \t]*keepalive(_timeout)?[ \t]+[^;\n]+;[ \t]*\n`)
)

// NoKeepaliveConf rewrites the nginx.conf the edge rendered (paths under
// runtimeDir, listening on one address) into the same configuration for a
// second nginx — paths under dir, listening on listen — whose webapp
// upstream keeps no idle connections: without `keepalive` nginx opens a
// new connection to a web node for every request. Everything else (the
// workers, the locations, the proxy settings, gzip, the access log) stays
// the same, so the two differ in upstream keepalive only.
func NoKeepaliveConf(conf, runtimeDir, dir, listen string) (string, error) {
	if n := len(listenRe.FindAllStringIndex(conf, -1)); n != 1 {
		return "", fmt.Errorf("%w: %d listen directives, want 1", ErrConf, n)
	}
	block := webappRe.FindString(conf)
	if block == "" {
		return "", fmt.Errorf("%w: no upstream webapp block", ErrConf)
	}
	stripped := keepLineRe.ReplaceAllString(block, "")
	if !regexp.MustCompile(`(?m)^\s*keepalive\s+\d+;`).MatchString(block) {
		return "", fmt.Errorf("%w: the webapp upstream has no keepalive directive", ErrConf)
	}
	out := strings.Replace(conf, block, stripped, 1)
	out = listenRe.ReplaceAllString(out, "${1}"+listen)
	out = strings.ReplaceAll(out, runtimeDir, dir)
	return out, nil
}

// Nginx is an nginx started by the benchmark (not by the edge).
type Nginx struct {
	cmd  *exec.Cmd
	done chan error
}

// StartNginx validates conf (written to dir/nginx.conf) with nginx -t and
// runs nginx in the foreground as a child; nginx's own output goes to out.
func StartNginx(bin, dir, conf string, out io.Writer) (*Nginx, error) {
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, fmt.Errorf("bench: nginx: %w", err)
	}
	if b, err := exec.Command(bin, "-t", "-q", "-c", path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench: nginx -t: %w\n%s", err, b)
	}
	cmd := exec.Command(bin, "-c", path, "-g", "daemon off;")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: nginx: %w", err)
	}
	n := &Nginx{cmd: cmd, done: make(chan error, 1)}
	go func() { n.done <- cmd.Wait() }()
	return n, nil
}

// Stop asks nginx to quit (SIGQUIT: finish the requests in flight) and
// kills it after 5 s.
func (n *Nginx) Stop() {
	_ = n.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-n.done:
	case <-time.After(5 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
}
