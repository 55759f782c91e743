package uidlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Dir holds the lock files, uid-<n>. A var for tests.
var Dir = "/run/verdict-sandbox/ids"

// ErrHeld: another holder (a judge on this machine) has one of the uids.
var ErrHeld = errors.New("uidlock: uid held by another sandbox on this machine")

// Lock takes the lock of every uid in [first, first+n), or none. Closing
// the returned files releases them.
func Lock(first, n int) ([]*os.File, error) {
	if err := os.MkdirAll(Dir, 0o700); err != nil {
		return nil, fmt.Errorf("uidlock: %w", err)
	}
	var held []*os.File
	release := func() {
		for _, f := range held {
			f.Close() // closing drops the flock
		}
	}
	for id := first; id < first+n; id++ {
		f, err := os.OpenFile(path(id), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			release()
			return nil, fmt.Errorf("uidlock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			release()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("%w: uid %d (another judge with an overlapping --uid-base?)", ErrHeld, id)
			}
			return nil, fmt.Errorf("uidlock: uid %d: %w", id, err)
		}
		held = append(held, f)
	}
	return held, nil
}

// Free reports whether no one holds the lock of any uid in [first,
// first+n). The answer may be stale by the time the caller acts on it.
func Free(first, n int) bool {
	for id := first; id < first+n; id++ {
		f, err := os.OpenFile(path(id), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue // never locked here
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close()
		if err != nil {
			return false
		}
	}
	return true
}

func path(id int) string { return filepath.Join(Dir, "uid-"+strconv.Itoa(id)) }
