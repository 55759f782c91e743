package uidlock

import (
	"errors"
	"os/exec"
	"testing"
	"time"
)

func TestLockAndFree(t *testing.T) {
	Dir = t.TempDir()
	if !Free(100, 4) {
		t.Fatal("a range nobody locked is not free")
	}
	held, err := Lock(100, 4)
	if err != nil {
		t.Fatal(err)
	}
	if Free(102, 1) || Free(98, 4) {
		t.Fatal("a locked uid reads as free")
	}
	if !Free(104, 4) {
		t.Fatal("the next range reads as held")
	}
	if _, err := Lock(103, 2); !errors.Is(err, ErrHeld) {
		t.Fatalf("overlapping lock: %v, want ErrHeld", err)
	}
	if !Free(104, 1) {
		t.Fatal("a refused Lock kept a lock it took")
	}
	for _, f := range held {
		f.Close()
	}
	if !Free(100, 4) {
		t.Fatal("released range not free")
	}
}

// Another process's lock (another judge) is seen too.
func TestLockHeldByAnotherProcess(t *testing.T) {
	Dir = t.TempDir()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Fatal("flock(1) (util-linux) is needed:", err)
	}
	cmd := exec.Command("flock", "-x", "-o", path(7), "sleep", "30") // -o: sleep does not inherit the lock
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for Free(7, 1) {
		if time.Now().After(deadline) {
			t.Fatal("the other process's lock never showed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := Lock(5, 5); !errors.Is(err, ErrHeld) {
		t.Fatalf("Lock over another process's uid: %v", err)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	// The lock goes with the last descriptor of it: flock's, and the copy
	// its child holds from the fork until it closes it before exec (-o).
	// On a loaded machine the child may not have got there yet when
	// flock is killed (the clean-clone CI of 2026-12-04 saw it held).
	for deadline := time.Now().Add(5 * time.Second); !Free(7, 1); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the other process's lock outlived it by 5 s")
		}
	}
	if _, err := Lock(5, 5); err != nil {
		t.Fatalf("after the other process ended: %v", err)
	}
}
