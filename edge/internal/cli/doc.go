// Package cli turns the edge's command line and environment into an
// edge.Config and the process settings around it (admin address, Redis
// connection, log format). Every flag --foo-bar can also be given as the
// environment variable VERDICT_EDGE_FOO_BAR; a flag on the command line
// wins over the environment. Run runs the edge and its admin endpoint
// with internal/lifecycle; Main is both behind edge/main.go.
package cli
