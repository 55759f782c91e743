package redisconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// Unreached reports whether err says a command met no Redis that answered
// it: a connection Redis closed (it stopped), reset or refused (it is not
// listening yet), a read, write or dial of the socket that failed. A
// command cut that way may or may not have run. Not one of them: a
// timeout (the caller's time is gone), and a fault of this machine's own
// (no such host, out of file descriptors or ports), which trying again
// would not mend.
func Unreached(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	var dns *net.DNSError
	if errors.As(err, &ne) && ne.Timeout() || errors.As(err, &dns) ||
		errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.EADDRNOTAVAIL) {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && (op.Op == "read" || op.Op == "write" || op.Op == "dial")
}

// Again runs try, and again while its error is one retry accepts, pausing
// as the loading retry does (25 ms doubling to 250 ms), for at most wait
// and never past ctx's deadline (with a pause left for the caller's
// answer). It returns the last try's error, with ctx's own when that
// ended the tries (a caller gone is not told "EOF" alone). Only for work
// that is safe to repeat: a command whose connection was cut may have run.
func Again(ctx context.Context, wait time.Duration, retry func(error) bool, try func() error) error {
	err := try()
	if err == nil || !retry(err) {
		return err
	}
	err = loadingRetry{wait: wait}.again(ctx, err, func() (error, bool) {
		err := try()
		return err, err != nil && retry(err)
	})
	if cerr := ctx.Err(); err != nil && cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (the last try: %w)", cerr, err)
	}
	return err
}
