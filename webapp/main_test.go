package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

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

// TestBinaryS3 runs the built binary with --blob-s3 against a real S3 HTTP
// server on loopback (gofakes3, in memory), with the credentials in the
// standard environment variables: demo stores its test data in the bucket,
// serve checks the bucket at start and streams a package to a judge.
func TestBinaryS3(t *testing.T) {
	my := testenv.MySQL(t)
	rd := testenv.Redis(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "webapp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	backend := s3mem.New()
	if err := backend.CreateBucket("oj-data"); err != nil {
		t.Fatal(err)
	}
	s3srv := httptest.NewUnstartedServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	s3srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s3srv.Start()
	defer s3srv.Close()
	s3url := "s3://oj-data/verdict?insecure=true&path-style=true&region=us-east-1&endpoint=" + s3srv.Listener.Addr().String()
	env := append(os.Environ(), "VERDICT_LOG_FORMAT=text", "VERDICT_WEBAPP_REDIS_DB="+strconv.Itoa(rd.DB),
		"VERDICT_WEBAPP_REDIS_PREFIX="+rd.Names.Prefix(), "VERDICT_WEBAPP_BLOB_S3="+s3url,
		"AWS_ACCESS_KEY_ID=test-access", "AWS_SECRET_ACCESS_KEY=test-secret")
	demo := exec.Command(bin, "demo", "--mysql", my.DSN, "--redis", rd.Addr, "--blob-dir", filepath.Join(dir, "unused"),
		"--logins", filepath.Join(dir, "logins.txt"), "--judge-token-dir", dir, "--judges", "1")
	demo.Env = env
	if out, err := demo.CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "unused", "sha256")); err == nil {
		t.Fatal("demo wrote to --blob-dir although --blob-s3 is set")
	}
	var hash string
	if err := my.DB.QueryRow("SELECT testdata_hash FROM problems WHERE testdata_hash IS NOT NULL LIMIT 1").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	obj, err := backend.GetObject("oj-data", "verdict/sha256/"+hash, nil)
	if err != nil {
		t.Fatalf("the demo's test data is not in the bucket: %v", err)
	}
	pkg, _ := io.ReadAll(obj.Contents)
	obj.Contents.Close()

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	var logs bytes.Buffer
	srv := exec.Command(bin, "--listen", addr, "--mysql", my.DSN, "--redis", rd.Addr, "--drain-delay", "100ms")
	srv.Env = env
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
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
	token, err := os.ReadFile(filepath.Join(dir, "judge-1", "token"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/judge/testdata/"+hash, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Equal(got, pkg) {
		t.Fatalf("judge download: %d, %d bytes (want %d)\n%s", res.StatusCode, len(got), len(pkg), logs.String())
	}

	// The partition job ran at start (the schema's partitions are far
	// ahead of the demo's ids: nothing to add).
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(m), `verdict_webapp_partition_runs_total{outcome="unchanged"} 1`) {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no partition run in the metrics:\n%s\n%s", m, logs.String())
		}
	}

	// A bucket that does not exist stops the node at start, saying why.
	bad := exec.Command(bin, "--listen", "127.0.0.1:0", "--mysql", my.DSN, "--redis", rd.Addr,
		"--blob-s3", "s3://no-such-bucket?insecure=true&path-style=true&endpoint="+s3srv.Listener.Addr().String())
	bad.Env = env
	out, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no-such-bucket does not exist") {
		t.Fatalf("start with a missing bucket: %v\n%s", err, out)
	}
}
