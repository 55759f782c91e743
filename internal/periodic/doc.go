// Package periodic runs a function every interval without a goroutine
// waiting in between: a timer starts each run on a goroutine of its own,
// and Stop stops the timer and joins a run under way. A connection's pings
// and session checks use it, so that an idle connection holds no goroutine
// (and no stack) for them: at thousands of connections, two goroutines
// each were tens of MiB of stacks, counted again by the collector's goal.
package periodic
