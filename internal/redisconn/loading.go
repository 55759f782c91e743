package redisconn

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultLoadingWait is how long a command Redis refused while loading its
// data is tried again (Options.LoadingWait). A restarted Redis answers
// every data command LOADING until its data is in memory: 1.4 s for the
// 3,000-contestant rehearsal's 69,000 keys on the 2-core VM, where 882
// page and API requests were answered 503 meanwhile (2026-12-07).
const DefaultLoadingWait = 5 * time.Second

// loadingRetry is the go-redis hook that tries again, until Redis has
// loaded its data, what it refused while loading, for at most wait and
// never past the caller's deadline. A refused command was not run, so
// trying it again is safe: a command answered LOADING, a transaction
// answered EXECABORT because a command in it was answered LOADING (Redis
// then runs none of it), a pipeline each of whose commands was answered
// LOADING. A pipeline Redis ran part of is returned as it is.
// (go-redis itself tries a LOADING command three times within about
// 50 ms, and a transaction never.)
type loadingRetry struct{ wait time.Duration }

func (loadingRetry) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l loadingRetry) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if !redis.IsLoadingError(err) {
			return err
		}
		return l.again(ctx, err, func() (error, bool) {
			cmd.SetErr(nil)
			err := next(ctx, cmd)
			return err, redis.IsLoadingError(err)
		})
	}
}

func (l loadingRetry) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		if err == nil || !refusedWhileLoading(cmds, err) {
			return err
		}
		return l.again(ctx, err, func() (error, bool) {
			for _, c := range cmds {
				c.SetErr(nil)
			}
			err := next(ctx, cmds)
			return err, err != nil && refusedWhileLoading(cmds, err)
		})
	}
}

// again calls try, which answers its error and whether Redis refused it
// while loading, until it is not refused, wait has passed or ctx's
// deadline comes (with a pause left for the caller's answer); it returns
// the last try's answer, or Redis's last refusal if the caller's deadline
// cut the try short (a try that succeeded is kept).
func (l loadingRetry) again(ctx context.Context, first error, try func() (error, bool)) error {
	end := time.Now().Add(l.wait)
	if d, ok := ctx.Deadline(); ok && d.Add(-loadingMargin).Before(end) {
		end = d.Add(-loadingMargin)
	}
	err := first
	for pause := loadingPauseMin; ; pause = min(2*pause, loadingPauseMax) {
		left := time.Until(end)
		if left <= 0 {
			return err
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		next, refused := try()
		if !refused {
			if next != nil && ctx.Err() != nil {
				return err // the deadline, in the try: Redis's refusal says why
			}
			return next
		}
		err = next
	}
}

// The pauses between tries (doubling from the first to the last), and the
// time before a caller's deadline after which no try is made.
const (
	loadingPauseMin = 25 * time.Millisecond
	loadingPauseMax = 250 * time.Millisecond
	loadingMargin   = 100 * time.Millisecond
)

// refusedWhileLoading reports whether Redis ran none of cmds because it
// was loading: a transaction (MULTI … EXEC) aborted with a command in it
// refused LOADING, or every command refused LOADING.
func refusedWhileLoading(cmds []redis.Cmder, err error) bool {
	if len(cmds) >= 2 && cmds[0].Name() == "multi" && cmds[len(cmds)-1].Name() == "exec" {
		if !redis.IsExecAbortError(err) {
			return redis.IsLoadingError(err)
		}
		for _, c := range cmds[1 : len(cmds)-1] {
			if redis.IsLoadingError(c.Err()) {
				return true
			}
		}
		return false
	}
	for _, c := range cmds {
		if !redis.IsLoadingError(c.Err()) {
			return false
		}
	}
	return true
}
