package leakcheck

import (
	"fmt"

	"go.uber.org/goleak"
)

// ignored are goroutines that belong to the process, not to a test: they
// live as long as the binary by design.
var ignored = []goleak.Option{}

// Goroutines reports the goroutines still running other than the test
// binary's own, after giving those on their way out a moment to finish.
// Call it once the tests have run.
func Goroutines() error {
	if err := goleak.Find(ignored...); err != nil {
		return fmt.Errorf("leakcheck: goroutines left running after the tests: %w", err)
	}
	return nil
}
