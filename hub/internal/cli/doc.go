// Package cli parses the hub's command line and environment into Options.
package cli
