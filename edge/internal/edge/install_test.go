package edge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/edge/internal/nginxctl"
	"github.com/verdict-oj/verdict/edge/internal/render"
)

// A config nginx rejects is never installed: the last good file stays, no
// temp file is left behind, and the same bad bytes are not tried again.
func TestInstallKeepsLastGood(t *testing.T) {
	bin := os.Getenv("VERDICT_NGINX")
	if bin == "" {
		bin = nginxctl.DefaultBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("this test runs the real nginx and cannot find it at %s: %v", bin, err)
	}
	dir := t.TempDir()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	e, err := New(Config{
		Redis:    rdb,
		NginxBin: bin,
		Nginx:    render.Params{RuntimeDir: filepath.Join(dir, "run"), StaticDir: dir, Listen: "127.0.0.1:1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.cfg.Nginx.RuntimeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	good, err := render.Render(e.cfg.Nginx, render.Upstreams{Web: []string{"10.0.0.1:80"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := e.install(ctx, good); err != nil {
		t.Fatalf("install good config: %v", err)
	}
	bad := append(bytes.Clone(good), []byte("\nthis is not nginx;\n")...)
	if err := e.install(ctx, bad); !errors.Is(err, nginxctl.ErrInvalidConfig) {
		t.Fatalf("install bad config: err = %v, want ErrInvalidConfig", err)
	}
	onDisk, err := os.ReadFile(e.cfg.ConfPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, good) || !bytes.Equal(e.applied, good) {
		t.Fatal("a rejected config replaced the last good one")
	}
	if !bytes.Equal(e.rejected, bad) {
		t.Fatal("rejected config not remembered")
	}
	entries, err := os.ReadDir(e.cfg.Nginx.RuntimeDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".nginx.conf.") {
			t.Errorf("left behind in the runtime dir: %s", en.Name())
		}
	}
}
