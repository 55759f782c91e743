package localsvc

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestScratchRemovesOnlyAbandonedDirs(t *testing.T) {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	prefix := "verdict-scratch-test-" + hex.EncodeToString(b) + "-"
	old := time.Now().Add(-7 * time.Hour)
	age := func(dir string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
	}
	live, err := NewScratch(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Release()
	age(live.Dir, old) // an old run still going: its lock is held
	base := filepath.Dir(live.Dir)
	mk := func(name string, lockFile bool, at time.Time) string {
		t.Helper()
		d := filepath.Join(base, prefix+name)
		if err := os.MkdirAll(filepath.Join(d, "mariadb"), 0o700); err != nil {
			t.Fatal(err)
		}
		if lockFile {
			if err := os.WriteFile(filepath.Join(d, scratchLock), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		age(d, at)
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	killed := mk("killed", true, time.Now().Add(-2*time.Minute))         // lock file, nobody holds it
	settingUp := mk("setting-up", true, time.Now())                      // too young to judge
	legacyOld := mk("legacy-old", false, old)                            // before locks, long gone
	legacyYoung := mk("legacy-young", false, time.Now().Add(-time.Hour)) // before locks, maybe running

	next, err := NewScratch(prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Release()
	for dir, want := range map[string]bool{
		live.Dir: true, next.Dir: true, killed: false, settingUp: true, legacyOld: false, legacyYoung: true,
	} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(dir), got, want)
		}
	}
	live.Release()
	if _, err := os.Stat(live.Dir); !os.IsNotExist(err) {
		t.Errorf("Release left %s: %v", live.Dir, err)
	}
}
