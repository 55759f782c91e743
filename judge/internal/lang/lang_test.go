package lang

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJavaClassRule(t *testing.T) {
	var java Language
	for _, l := range Defaults() {
		if l.ID == "java17" {
			java = l
		}
	}
	for _, tc := range []struct{ src, file, class string }{
		{"public class Solution { public static void main(String[] a){} }", "Solution.java", "Solution"},
		{"import java.util.*;\npublic final class A_b$1 {}", "A_b$1.java", "A_b$1"},
		{"class Helper {}\nclass Main {}", "Main.java", "Main"},
		{"// public class Commented\nclass X{}", "Main.java", "Main"},
	} {
		f, c, err := java.SourceName(tc.src)
		if err != nil || f != tc.file || c != tc.class {
			t.Errorf("SourceName(%q) = %q %q %v; want %q %q", tc.src, f, c, err, tc.file, tc.class)
		}
	}
	f, c, _ := Defaults()[1].SourceName("int main(){}")
	if f != "main.cpp" || c != "main" {
		t.Errorf("cpp source name %q %q", f, c)
	}
}

func TestScalingAndExpand(t *testing.T) {
	l := Language{TimeScale: 2, TimeExtraMs: 500, MemoryExtraKiB: 1024}
	if got := l.TimeLimit(time.Second); got != 2500*time.Millisecond {
		t.Errorf("time %v", got)
	}
	if got := l.MemoryLimit(64 << 20); got != 65<<20 {
		t.Errorf("memory %v", got)
	}
	if got := (Language{}).TimeLimit(time.Second); got != time.Second {
		t.Errorf("unscaled time %v", got)
	}
	got := Expand([]string{"java", "-Xmx{memory_mib}m", "{class}", "{src}"}, "A.java", "A", 256<<20)
	if strings.Join(got, " ") != "java -Xmx256m A A.java" {
		t.Errorf("expand %v", got)
	}
}

func TestLoadMerge(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "langs.json")
	os.WriteFile(p, []byte(`{"languages":[
		{"id":"go","disabled":true},
		{"id":"py3","source":"sol.py","run":["python3","{src}"],"version":["python3","--version"],"time_scale":3},
		{"id":"pypy3","source":"main.py","run":["pypy3","{src}"],"version":["pypy3","--version"]}
	]}`), 0o644)
	langs, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]Language{}
	for _, l := range langs {
		ids[l.ID] = l
	}
	if _, ok := ids["go"]; ok {
		t.Error("disabled go still present")
	}
	if ids["py3"].Source != "sol.py" || ids["py3"].TimeScale != 3 || ids["pypy3"].ID == "" || ids["cpp17"].ID == "" {
		t.Errorf("merged %+v", ids)
	}
	os.WriteFile(p, []byte(`{"languages":[{"id":"Bad Id","source":"a/b","run":[]}]}`), 0o644)
	if _, err := Load(p); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Bad Id") {
		t.Errorf("bad config: %v", err)
	}
	os.WriteFile(p, []byte(`{"langs":[]}`), 0o644)
	if _, err := Load(p); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown field: %v", err)
	}
}

func TestDetect(t *testing.T) {
	langs := []Language{
		{ID: "sh", Source: "a.sh", Run: []string{"sh", "{src}"}, Version: []string{"sh", "-c", "echo fake-sh 1.0"}},
		{ID: "nope", Source: "a.x", Run: []string{"definitely-not-installed-xyz"}, Version: []string{"definitely-not-installed-xyz"}},
		{ID: "stderr", Source: "a.x", Run: []string{"sh"}, Version: []string{"sh", "-c", "echo on-stderr 2.0 >&2"}},
	}
	got := Detect(context.Background(), langs, slog.New(slog.DiscardHandler))
	if len(got) != 2 || got[0].VersionText != "fake-sh 1.0" || got[1].VersionText != "on-stderr 2.0" || !strings.HasPrefix(got[0].RunArgv0, "/") {
		t.Fatalf("Detect = %+v", got)
	}
}

func TestValidateBuildCache(t *testing.T) {
	base := Language{ID: "x", Source: "main.x", Run: []string{"./main"}, Version: []string{"x", "-v"}}
	for _, tc := range []struct {
		dir string
		ok  bool
	}{
		{"", true}, {".gocache", true}, {"cache/go", true},
		{"/tmp/cache", false}, {"..", false}, {"../up", false}, {".", false}, {"a/../..", false}, {"main.x", false},
	} {
		l := base
		l.BuildCache = tc.dir
		if err := l.Validate(); (err == nil) != tc.ok {
			t.Errorf("build_cache %q: Validate = %v, want ok %v", tc.dir, err, tc.ok)
		}
	}
	for _, l := range Defaults() {
		if err := l.Validate(); err != nil {
			t.Errorf("default %s: %v", l.ID, err)
		}
	}
}
