package nginxctl_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
)

func TestTestRejectsWithNginxMessage(t *testing.T) {
	bin := os.Getenv("VERDICT_NGINX")
	if bin == "" {
		bin = nginxctl.DefaultBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("this test runs the real nginx and cannot find it at %s: %v", bin, err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bad.conf")
	if err := os.WriteFile(conf, []byte("events {}\nhttp { bogus_directive on; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := nginxctl.Test(context.Background(), bin, conf)
	if !errors.Is(err, nginxctl.ErrInvalidConfig) || !strings.Contains(err.Error(), "bogus_directive") {
		t.Fatalf("Test(bad) = %v, want ErrInvalidConfig naming the directive", err)
	}
	if err := nginxctl.Test(context.Background(), filepath.Join(dir, "no-nginx"), conf); err == nil || errors.Is(err, nginxctl.ErrInvalidConfig) {
		t.Fatalf("Test with a missing binary = %v, want an exec error", err)
	}
}

func TestReadPid(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	self := write("self.pid", strconv.Itoa(os.Getpid())+"\n")
	if pid, err := nginxctl.ReadPid(self); err != nil || pid != os.Getpid() {
		t.Fatalf("ReadPid(self) = %d, %v", pid, err)
	}
	for name, path := range map[string]string{
		"missing": filepath.Join(dir, "none.pid"),
		"empty":   write("empty.pid", ""),
		"garbage": write("garbage.pid", "nginx"),
		"zero":    write("zero.pid", "0"),
		"dead":    write("dead.pid", "2147483646"),
	} {
		if _, err := nginxctl.ReadPid(path); !errors.Is(err, nginxctl.ErrNoPid) {
			t.Errorf("ReadPid(%s) = %v, want ErrNoPid", name, err)
		}
		if err := nginxctl.ReloadPidFile(path); !errors.Is(err, nginxctl.ErrNoPid) {
			t.Errorf("ReloadPidFile(%s) = %v, want ErrNoPid", name, err)
		}
	}
}

// writeConf writes a minimal nginx config listening on a free loopback
// port and returns its path and the port.
func writeConf(t *testing.T, dir string, port int) string {
	t.Helper()
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	conf := filepath.Join(dir, "nginx.conf")
	cfg := fmt.Sprintf(`pid %[1]s/nginx.pid; error_log %[1]s/error.log;
events {}
http {
  access_log off;
  client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi; uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
  server { listen 127.0.0.1:%[2]d; return 204; }
}
`, dir, port)
	if os.Geteuid() == 0 {
		cfg = "user root;\n" + cfg
	}
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}

// TestReloadRightAfterStart: a SIGHUP that reaches the master before it has
// installed its handlers kills it (CI once saw "signal: hangup" when the
// edge reloaded 70 ms after the start). Start returns only once a reload is
// safe, so reloading at once, many times over, never kills nginx.
func TestReloadRightAfterStart(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for i := range 20 {
		dir := t.TempDir()
		c, err := nginxctl.Start("", writeConf(t, dir, 0), log)
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		if err := c.Reload(); err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
		select {
		case <-c.Done():
			t.Fatalf("nginx %d died after a reload right after Start: %v\n%s", i, c.Err(), readFile(filepath.Join(dir, "error.log")))
		case <-time.After(100 * time.Millisecond):
		}
		if err := c.Stop(5 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStartFailsWhenNginxExits: a port already taken makes nginx exit
// during startup; Start says so instead of returning a dead child.
func TestStartFailsWhenNginxExits(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	_, err = nginxctl.Start("", writeConf(t, dir, ln.Addr().(*net.TCPAddr).Port), slog.New(slog.DiscardHandler))
	if !errors.Is(err, nginxctl.ErrExited) {
		t.Fatalf("Start on a taken port = %v, want ErrExited", err)
	}
}

// TestChildDiesWithItsParent: an nginx started by a process that is then
// SIGKILLed (an edge that crashed) must not live on holding the port.
func TestChildDiesWithItsParent(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := writeConf(t, dir, port)
	helper := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithItsParent$")
	helper.Env = append(os.Environ(), "NGINXCTL_HELPER_CONF="+conf)
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		_ = helper.Process.Kill()
		t.Fatalf("the helper did not report nginx's pid: %v", err)
	}
	// nginx serves before its parent dies.
	serving := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(serving) {
			_ = helper.Process.Kill()
			t.Fatalf("nginx (pid %d) never accepted on port %d: %v\n%s", pid, port, err, readFile(filepath.Join(dir, "error.log")))
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = helper.Process.Kill() // SIGKILL: no chance to stop nginx itself
	_ = helper.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("nginx (pid %d) outlived its parent by 10 s", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMain doubles as the helper of TestChildDiesWithItsParent: it starts
// nginx, prints its pid and waits to be killed.
func TestMain(m *testing.M) {
	if conf := os.Getenv("NGINXCTL_HELPER_CONF"); conf != "" {
		c, err := nginxctl.Start("", conf, slog.New(slog.DiscardHandler))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(c.Pid())
		select {}
	}
	os.Exit(m.Run())
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
