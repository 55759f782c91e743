package redisconn

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Unreached reports whether err says a command met no Redis that answered
// it: a connection Redis closed (it stopped), reset or refused (it is not
// listening yet), a dial that failed. A command cut that way may or may
// not have run; a timeout is not one of them (the caller's time is gone).
func Unreached(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &op)
}

// Again runs try, and again while its error is one retry accepts, pausing
// as the loading retry does (25 ms doubling to 250 ms), for at most wait
// and never past ctx's deadline (with a pause left for the caller's
// answer). It returns the last try's error. Only for work that is safe to
// repeat: a command whose connection was cut may have run.
func Again(ctx context.Context, wait time.Duration, retry func(error) bool, try func() error) error {
	err := try()
	if err == nil || !retry(err) {
		return err
	}
	return loadingRetry{wait: wait}.again(ctx, err, func() (error, bool) {
		err := try()
		return err, err != nil && retry(err)
	})
}
