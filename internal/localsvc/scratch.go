package localsvc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// scratchLock is the file a live scratch directory's owner holds an flock
// on for as long as it runs.
const scratchLock = ".owner.lock"

// unlockedMaxAge: a scratch directory without a lock file (made before
// locks existed) is taken as abandoned after this long; no test run lasts
// that long.
const unlockedMaxAge = 6 * time.Hour

// Scratch is a scratch directory for throwaway services, removed by
// Release.
type Scratch struct {
	Dir  string
	lock *os.File
}

// NewScratch makes a directory named prefix + random under /dev/shm (the
// services of a test run are I/O bound; tmpfs makes them fast), or the
// temporary directory where there is no /dev/shm. It first removes the
// directories of the same prefix that their owner left behind: a test run
// killed before its cleanup (Ctrl-C, SIGKILL, a CI timeout) would
// otherwise leave hundreds of MiB of RAM behind in /dev/shm each time. A
// directory is abandoned when nobody holds its lock; its owner holds it
// until Release or its death (the kernel drops flocks with the process).
func NewScratch(prefix string) (*Scratch, error) {
	base := os.TempDir()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		base = "/dev/shm"
	}
	removeAbandoned(base, prefix)
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return nil, fmt.Errorf("localsvc: scratch: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, scratchLock), os.O_CREATE|os.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("localsvc: scratch lock: %w", err)
	}
	return &Scratch{Dir: dir, lock: f}, nil
}

// Release removes the directory and drops its lock.
func (s *Scratch) Release() {
	_ = os.RemoveAll(s.Dir)
	_ = s.lock.Close()
}

// removeAbandoned removes base/prefix* directories whose lock nobody holds
// (or, without a lock file, older than unlockedMaxAge). Errors are
// ignored: cleaning up is a courtesy, never a reason to fail a run.
func removeAbandoned(base, prefix string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if abandoned(dir) {
			_ = os.RemoveAll(dir)
		}
	}
}

func abandoned(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || time.Since(fi.ModTime()) < time.Minute {
		// Too young to judge: its owner may be between making it and
		// locking it.
		return false
	}
	f, err := os.OpenFile(filepath.Join(dir, scratchLock), os.O_RDWR|unix.O_CLOEXEC, 0)
	if errors.Is(err, os.ErrNotExist) {
		return time.Since(fi.ModTime()) > unlockedMaxAge
	}
	if err != nil {
		return false
	}
	defer f.Close()
	// Taking the lock proves its owner is gone; closing f drops it again
	// just before the directory goes.
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
