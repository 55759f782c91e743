package bench

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The edge's golden renders (edge/internal/render/testdata) are what the
// stack's nginx runs; the rewrite must keep them valid for nginx.
func TestNoKeepaliveConf(t *testing.T) {
	for _, name := range []string{"web3_hub2.conf", "custom.conf"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "..", "edge", "internal", "render", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			out, err := NoKeepaliveConf(string(b), "/verdict-golden/run", dir, "127.0.0.1:18081")
			if err != nil {
				t.Fatal(err)
			}
			block := webappRe.FindString(out)
			if block == "" || strings.Contains(block, "keepalive") {
				t.Errorf("webapp upstream still keeps connections:\n%s", block)
			}
			if !strings.Contains(out, "    keepalive_timeout 65s;") {
				t.Error("the client-side keepalive_timeout of http{} was removed too")
			}
			if strings.Contains(out, "/verdict-golden/run") {
				t.Error("a path under the old runtime directory is left")
			}
			if !regexp.MustCompile(`(?m)^\s*listen 127\.0\.0\.1:18081( backlog=\d+)?( reuseport)?;$`).MatchString(out) {
				t.Errorf("listen not rewritten: %q", regexp.MustCompile(`(?m)^.*listen .*$`).FindString(out))
			}
			if strings.Count(out, "\n") != strings.Count(string(b), "\n")-2 {
				t.Errorf("more than the two keepalive lines changed")
			}
			if _, err := exec.LookPath("nginx"); err != nil {
				t.Fatalf("nginx is needed (make deps): %v", err)
			}
			conf := filepath.Join(dir, "nginx.conf")
			// Drop "user" (the golden one names a user this host may lack).
			out = regexp.MustCompile(`(?m)^user .*\n`).ReplaceAllString(out, "")
			if err := os.WriteFile(conf, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := exec.Command("nginx", "-t", "-q", "-c", conf).CombinedOutput(); err != nil {
				t.Fatalf("nginx -t: %v\n%s", err, b)
			}
		})
	}
}

func TestNoKeepaliveConfRefuses(t *testing.T) {
	tests := []struct{ name, conf string }{
		{"no upstream", "server { listen 1.2.3.4:80; }"},
		{"no keepalive", "upstream webapp {\n  server 1.2.3.4:80;\n}\nserver { listen 1.2.3.4:80; }"},
		{"two listens", "upstream webapp {\n  keepalive 32;\n}\nserver {\n listen 1:80;\n}\nserver {\n listen 2:80;\n}"},
	}
	for _, tt := range tests {
		if _, err := NoKeepaliveConf(tt.conf, "/run", "/x", "127.0.0.1:1"); !errors.Is(err, ErrConf) {
			t.Errorf("%s: err %v, want ErrConf", tt.name, err)
		}
	}
}
