package nginxctl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
