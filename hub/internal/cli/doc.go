// Package cli is the hub command: Parse reads its command line and
// environment into Options, Run wires the hub, its HTTP server and its
// live-registry entry together and runs them with internal/lifecycle, and
// Main is both behind hub/main.go.
package cli
