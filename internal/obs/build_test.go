package obs

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestResolveBuild(t *testing.T) {
	vcs := &debug.BuildInfo{
		GoVersion: "go1.99",
		Main:      debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		},
	}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  BuildInfo
	}{
		{"nothing", "", "", "", nil, BuildInfo{Unknown, Unknown, Unknown, runtime.Version()}},
		{"devel module", "", "", "", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "(devel)"}},
			BuildInfo{Unknown, Unknown, Unknown, "go1.99"}},
		{"from build info", "", "", "", vcs, BuildInfo{"v1.2.3", "abc123", "2026-01-02T03:04:05Z", "go1.99"}},
		{"ldflags win", "v9", "fff", "2030-01-01", vcs, BuildInfo{"v9", "fff", "2030-01-01", "go1.99"}},
		{"partial ldflags", "v9", "", "", vcs, BuildInfo{"v9", "abc123", "2026-01-02T03:04:05Z", "go1.99"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolveBuild(tc.version, tc.commit, tc.date, tc.bi); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestLdflags builds a small program with the -X flags documented in doc.go
// and checks that Build reports them, so the documented paths stay true.
func TestLdflags(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command must be on PATH to build the test binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "buildinfo")
	const pkg = "github.com/verdict-oj/verdict/internal/obs"
	ldflags := "-X " + pkg + ".version=v0.9.9-test -X " + pkg + ".commit=deadbeef -X " + pkg + ".buildDate=2026-05-06T07:08:09Z"
	cmd := exec.Command(gobin, "build", "-o", bin, "-ldflags", ldflags, "./testdata/buildinfo")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	want := "v0.9.9-test deadbeef 2026-05-06T07:08:09Z " + runtime.Version()
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("Build() in a binary linked with -X = %q, want %q", got, want)
	}
}
