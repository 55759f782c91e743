// Package checker judges one case's output against the expected answer:
// the built-in kinds exact, default (tokens), float (tokens with a
// tolerance) and icpc (the ICPC package format's default output
// validator with its flags, icpc.go), streaming so that a huge output costs no memory; and the
// interpretation of a special judge's exit code and report in testlib's
// convention (running the special judge in the sandbox is the agent's job).
package checker
