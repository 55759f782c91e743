//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// stdioPipes are the stdin and stdout descriptors of one program of an
// interaction, the judge's copies of the other program's ends that this
// program's end releases, and when its end was learnt.
type stdioPipes struct {
	fds  [2]int
	hold []int
	end  time.Time
}

// RunInteractive runs an interactive problem's solution and its
// interactor at the same time, each in its own slot (so under its own uid
// and gid, in its own container and cgroup, with its own limits),
// connected by two pipes: the solution's stdout is the interactor's stdin
// and the interactor's stdout is the solution's stdin. Neither spec may
// set Stdin, StdinFile or StdoutFile; stderr is captured for each as by
// Run. Both slots are taken together (each the spec's pinned Slot, else
// any free one), so two interactions never wait for each other's second
// slot; the sandbox needs two slots at least.
//
// When one program ends, the other reads EOF, or gets SIGPIPE (EPIPE)
// writing, but only once the judge has learnt of that end: until then the
// judge holds a copy of the pipe ends the ended program had (never reading
// or writing them). So the order of the two ends is exact: a program that
// ended because the other did always ends second. Each program ends by
// itself or by its own limits; the wall-time limit bounds a solution that
// stops reading or waits for an interactor that waits too.
//
// The error is non-nil as for Run: an invalid spec (ErrInvalidSpec), a
// closed sandbox (ErrClosed), a sandbox failure of either run (ErrSandbox,
// that run's Status SandboxError) or a cancelled ctx.
func (s *Sandbox) RunInteractive(ctx context.Context, sol, inter Spec) (Interaction, error) {
	out := Interaction{
		Solution:   Result{Cgroup: s.cg.version(), ExitCode: -1},
		Interactor: Result{Cgroup: s.cg.version(), ExitCode: -1},
	}
	fail := func(err error) (Interaction, error) {
		out.Solution, _ = failed(out.Solution, err)
		out.Interactor, _ = failed(out.Interactor, err)
		return out, err
	}
	for _, sp := range []Spec{sol, inter} {
		if sp.StdinFile != "" || sp.Stdin != nil || sp.StdoutFile != "" {
			return fail(fmt.Errorf("%w: an interactive run's stdin and stdout are the pipes between its programs", ErrInvalidSpec))
		}
	}
	if len(s.slots) < 2 {
		return fail(fmt.Errorf("%w: an interactive run needs two slots, the sandbox has %d", ErrInvalidSpec, len(s.slots)))
	}
	ps, err := s.plan(sol)
	if err != nil {
		return fail(err)
	}
	pi, err := s.plan(inter)
	if err != nil {
		return fail(err)
	}
	if ps.want >= 0 && ps.want == pi.want {
		return fail(fmt.Errorf("%w: the solution and the interactor are both pinned to slot %d", ErrInvalidSpec, ps.want))
	}
	sls, err := s.acquirePair(ctx, [2]int{ps.want, pi.want})
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return fail(err)
		}
		return fail(fmt.Errorf("sandbox run: %w", err))
	}
	defer s.release(sls[0])
	defer s.release(sls[1])

	// toInter: solution stdout -> interactor stdin; toSol: the reverse.
	// Both ends are ordinary blocking descriptors, close-on-exec here.
	var toInter, toSol [2]int
	if err := unix.Pipe2(toInter[:], unix.O_CLOEXEC); err != nil {
		return fail(fmt.Errorf("sandbox run: %w: pipe: %w", ErrSandbox, err))
	}
	if err := unix.Pipe2(toSol[:], unix.O_CLOEXEC); err != nil {
		closeFds(toInter[:])
		return fail(fmt.Errorf("sandbox run: %w: pipe: %w", ErrSandbox, err))
	}
	// The judge's copies of each program's ends, released at its end.
	var held []int
	for _, fd := range []int{toSol[0], toInter[1], toInter[0], toSol[1]} {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
		if err != nil {
			closeFds(held)
			closeFds(toInter[:])
			closeFds(toSol[:])
			return fail(fmt.Errorf("sandbox run: %w: dup: %w", ErrSandbox, err))
		}
		held = append(held, d)
	}
	solIO := &stdioPipes{fds: [2]int{toSol[0], toInter[1]}, hold: held[:2]}
	interIO := &stdioPipes{fds: [2]int{toInter[0], toSol[1]}, hold: held[2:]}

	var wg sync.WaitGroup
	var interErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		out.Interactor, interErr = s.runIn(ctx, sls[1], pi, interIO)
	}()
	var solErr error
	out.Solution, solErr = s.runIn(ctx, sls[0], ps, solIO)
	wg.Wait()
	out.InteractorFirst = !interIO.end.IsZero() && (solIO.end.IsZero() || interIO.end.Before(solIO.end))
	if solErr != nil {
		solErr = fmt.Errorf("solution: %w", solErr)
	}
	if interErr != nil {
		interErr = fmt.Errorf("interactor: %w", interErr)
	}
	return out, errors.Join(solErr, interErr)
}

// acquirePair takes two distinct free slots at once: want[i] when >= 0
// (waiting for it), else any free one, preferably with a container.
func (s *Sandbox) acquirePair(ctx context.Context, want [2]int) ([2]*slot, error) {
	var picked [2]*slot
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return picked, ErrClosed
		}
		picked = [2]*slot{}
		ok := true
		for i := range want {
			if want[i] >= 0 {
				if sl := s.slots[want[i]]; !sl.busy {
					picked[i] = sl
				} else {
					ok = false
				}
			}
		}
		for i := range want {
			if !ok || picked[i] != nil {
				continue
			}
			rank := -1
			for _, sl := range s.slots {
				if sl.busy || sl == picked[0] || sl == picked[1] {
					continue
				}
				// a slot another half pins is not taken for this one
				if sl.idx == want[0] || sl.idx == want[1] {
					continue
				}
				r := 0
				if sl.c != nil {
					r = 1
				}
				if r > rank {
					picked[i], rank = sl, r
				}
			}
			if picked[i] == nil {
				ok = false
			}
		}
		if ok {
			picked[0].busy, picked[1].busy = true, true
			s.mu.Unlock()
			return picked, nil
		}
		w := s.wake
		s.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return [2]*slot{}, ctx.Err()
		}
		s.mu.Lock()
	}
}
