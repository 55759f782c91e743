// Package cli is the webapp command behind webapp/main.go: Main parses the
// command line (package config) and runs the subcommand — migrate, demo,
// or serve, which wires the web node (package server) and the judge token
// sync (package judgetokens) together and runs them with
// internal/lifecycle until SIGINT or SIGTERM.
package cli
