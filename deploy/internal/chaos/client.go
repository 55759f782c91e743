package chaos

import (
	"github.com/verdict-oj/verdict/deploy/internal/harness"
)

// The browser-like API client is shared with the benchmarks (package
// harness); these names keep the drills short.
type (
	// Client is a logged-in browser session through nginx.
	Client = harness.Client
	// Submission is what the browser posts.
	Submission = harness.Submission
	// Attempt is one POST of a submit.
	Attempt = harness.Attempt
)

// Login logs in through nginx.
var Login = harness.Login

// NewKey is a fresh idempotency key.
var NewKey = harness.NewKey

// retryable says whether a browser retries a submit with the same key.
func retryable(a Attempt) bool { return harness.Retryable(a) }
