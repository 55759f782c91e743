//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWorkDirMounts(t *testing.T) {
	mi := strings.Join([]string{
		"22 1 0:21 / /proc rw - proc proc rw",
		"40 30 0:40 / /var/j/work/slot-0 rw,nosuid,nodev - tmpfs w rw,size=1024k",
		"41 30 0:41 / /var/j/work/slot-0-io/check rw,nosuid,nodev - tmpfs w rw",
		"42 30 0:42 / /var/j/work/slot-1 rw - tmpfs other rw",
		"43 30 0:43 / /var/j/work2 rw - tmpfs w rw",
		"44 30 0:44 / /var/j/work/with\\040space rw - tmpfs w rw",
		"45 30 0:45 / /var/j/work/slot-0 rw - ext4 w rw",
		"46 40 0:46 / /var/j/work/slot-0 rw - tmpfs w rw",
		"",
	}, "\n")
	got := workDirMounts(mi, "/var/j/work")
	want := []string{"/var/j/work/slot-0-io/check", "/var/j/work/slot-0", "/var/j/work/with space", "/var/j/work/slot-0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("workDirMounts = %q, want %q", got, want)
	}
	for in, want := range map[string]string{`a\040b`: "a b", `a\134b`: `a\b`, `plain`: "plain", `end\04`: `end\04`, `x\999`: `x\999`} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnmountWorkDirs: work dirs left mounted (a judge killed before its
// RemoveAll), one of them nested in a directory that must go, are
// unmounted, and only those under the directory named; RemoveAll then
// works.
func TestUnmountWorkDirs(t *testing.T) {
	base := t.TempDir()
	a := filepath.Join(base, "work", "slot-0")
	b := filepath.Join(base, "work", "slot-0-io", "check")
	for _, d := range []string{a, b} {
		if err := MakeWorkDir(d, 0, 0, WorkDirLimits{Bytes: 1 << 20}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(base, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err := UnmountWorkDirs(filepath.Join(base, "x"))
	if err != nil || n != 0 {
		t.Fatalf("UnmountWorkDirs of a dir without any: %d %v", n, err)
	}
	if err := os.WriteFile(filepath.Join(b, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err = UnmountWorkDirs(filepath.Join(base, "work"))
	if err != nil || n != 2 {
		t.Fatalf("UnmountWorkDirs: %d %v, want 2", n, err)
	}
	self, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(self), base) {
		t.Errorf("still mounted under %s:\n%s", base, self)
	}
	if err := RemoveAll(filepath.Join(base, "work")); err != nil {
		t.Errorf("RemoveAll after UnmountWorkDirs: %v", err)
	}
}
