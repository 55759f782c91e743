package redisconn_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisconn"
)

func TestUnreached(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"EOF (Redis closed the connection as it stopped)", io.EOF, true},
		{"EOF wrapped", fmt.Errorf("session get: %w", io.EOF), true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"a closed connection", net.ErrClosed, true},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{"refused (not listening yet)", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
		{"broken pipe", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{"a read timeout", timeout, false},
		{"the caller's deadline", context.DeadlineExceeded, false},
		{"cancelled", context.Canceled, false},
		{"Redis's answer", redis.Nil, false},
		{"an error Redis answered", errors.New("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{"the pool's timeout", redis.ErrPoolTimeout, false},
		{"a closed client", redis.ErrClosed, false},
		{"no such host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "redis", IsNotFound: true}}, false},
		{"out of file descriptors", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}, false},
		{"out of ports", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EADDRNOTAVAIL)}, false},
		{"a dial that failed otherwise", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: network is unreachable")}, true},
		{"a socket's own option failing", &net.OpError{Op: "set", Net: "tcp", Err: errors.New("setsockopt")}, false},
	} {
		if got := redisconn.Unreached(tc.err); got != tc.want {
			t.Errorf("%s: Unreached(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestAgain(t *testing.T) {
	cut := io.EOF
	other := errors.New("WRONGTYPE")
	for _, tc := range []struct {
		name    string
		errs    []error // each try's error, the last repeated
		wait    time.Duration
		ctxFor  time.Duration // 0: no deadline
		want    error
		tries   int
		atLeast time.Duration
	}{
		{"at once", []error{nil}, time.Second, 0, nil, 1, 0},
		{"an error not retried", []error{other}, time.Second, 0, other, 1, 0},
		{"until it answers", []error{cut, cut, cut, nil}, time.Second, 0, nil, 4, 25*time.Millisecond + 50*time.Millisecond + 100*time.Millisecond},
		{"until one is not retried", []error{cut, other}, time.Second, 0, other, 2, 0},
		{"for wait at most", []error{cut}, 300 * time.Millisecond, 0, cut, 0, 300 * time.Millisecond},
		// Ends before the caller's deadline (less a pause for its answer),
		// not after wait: the test would time out.
		{"never past the deadline", []error{cut}, time.Hour, 400 * time.Millisecond, cut, 0, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.ctxFor > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctxFor)
				defer cancel()
			}
			n := 0
			start := time.Now()
			err := redisconn.Again(ctx, tc.wait, redisconn.Unreached, func() error {
				e := tc.errs[min(n, len(tc.errs)-1)]
				n++
				return e
			})
			took := time.Since(start)
			if !errors.Is(err, tc.want) && err != tc.want {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if tc.tries > 0 && n != tc.tries {
				t.Errorf("%d tries, want %d", n, tc.tries)
			}
			if took < tc.atLeast {
				t.Errorf("returned after %v, want at least %v", took, tc.atLeast)
			}
			if tc.ctxFor > 0 {
				// Far past the deadline means it was not heeded (a second
				// of slack for a loaded machine).
				if took > tc.ctxFor+time.Second {
					t.Errorf("returned after %v, the caller's deadline %v", took, tc.ctxFor)
				}
			}
		})
	}
}

// A caller gone (its context cancelled) is told so, with the last try's
// error, and no try is made after.
func TestAgainCallerGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := redisconn.Again(ctx, time.Hour, redisconn.Unreached, func() error {
		n++
		cancel()
		return io.EOF
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, io.EOF) || n != 1 {
		t.Errorf("Again = %v after %d tries, want the cancellation and EOF after 1", err, n)
	}
}
