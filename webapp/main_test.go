package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestBinary runs the built binary with the command lines the local stack
// uses (deploy/internal/stack/components.go): migrate, demo twice, serve,
// log in with a demo login, SIGTERM.
func TestBinary(t *testing.T) {
	my := testenv.MySQL(t)
	rd := testenv.Redis(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "webapp")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(), "VERDICT_LOG_FORMAT=text", "VERDICT_WEBAPP_REDIS_DB="+strconv.Itoa(rd.DB),
		"VERDICT_WEBAPP_REDIS_PREFIX="+rd.Names.Prefix())
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("webapp %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("migrate", "--mysql", my.DSN)
	logins := filepath.Join(dir, "demo-logins.txt")
	demoArgs := []string{"demo", "--mysql", my.DSN, "--redis", rd.Addr, "--blob-dir", filepath.Join(dir, "blobs"),
		"--logins", logins, "--judge-token-dir", dir, "--judges", "2"}
	run(demoArgs...)
	first, _ := os.ReadFile(logins)
	run(demoArgs...)
	second, _ := os.ReadFile(logins)
	if !bytes.Equal(first, second) || !strings.Contains(string(first), "(administrator)") {
		t.Fatalf("logins file changed or malformed:\n%s\n%s", first, second)
	}
	if _, err := os.Stat(filepath.Join(dir, "judge-2", "token")); err != nil {
		t.Fatal(err)
	}
	var studentPW string
	for _, line := range strings.Split(string(first), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "student" {
			studentPW = f[1]
		}
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	srv := exec.Command(bin, "--listen", addr, "--mysql", my.DSN, "--redis", rd.Addr, "--blob-dir", filepath.Join(dir, "blobs"),
		"--drain-delay", "100ms")
	srv.Env = env
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("never ready:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	body, _ := json.Marshal(map[string]string{"username": "student", "password": studentPW})
	res, err := http.Post("http://"+addr+"/api/session", "application/json", bytes.NewReader(body))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("demo student login: %v %v\n%s", res, err, logs.String())
	}
	res.Body.Close()
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit after SIGTERM:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "deregistered") {
		t.Errorf("no deregistration logged:\n%s", logs.String())
	}
}
