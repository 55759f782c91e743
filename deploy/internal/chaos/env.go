package chaos

import (
	"context"
	"io"

	"github.com/verdict-oj/verdict/deploy/internal/harness"
)

// Options configures the stack the drills run against.
type Options struct {
	// Root is the checkout whose components are built and run.
	Root string
	// Dir holds the stack's state and the built binaries; a temporary
	// directory when empty (removed by stop).
	Dir string
	// Out receives the stack's own output (the drills' reports go
	// elsewhere); io.Discard when nil.
	Out io.Writer
	// Bin, when set, holds prebuilt component binaries (nothing is built).
	Bin string
	// Judges run by the stack (default 2); one spare judge token is always
	// issued for the drills that start a judge themselves.
	Judges int
}

// Env is a running stack with the handles the drills need (package
// harness starts it).
type Env struct {
	*harness.Env
}

// Start builds the components, runs a stack on free loopback ports and
// returns once it is ready, with the function that stops it.
func Start(ctx context.Context, o Options) (*Env, func(), error) {
	h, stop, err := harness.Start(ctx, harness.Options{
		Root: o.Root, Dir: o.Dir, Out: o.Out, Bin: o.Bin, Judges: o.Judges, SpareJudges: 1,
		// Drills submit far more than a student may. On one machine the
		// judges share the CPUs with MySQL, the web nodes and the load
		// itself, so load1 always looks like foreign load: the hub's guard
		// against it (--overload) would hold every task.
		Env: []string{"VERDICT_WEBAPP_SUBMIT_PER_MINUTE=100000", "VERDICT_HUB_OVERLOAD=1000"},
	})
	if err != nil {
		return nil, nil, err
	}
	return &Env{Env: h}, stop, nil
}
