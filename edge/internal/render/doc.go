// Package render turns the edge's settings and the live upstream addresses
// into the bytes of a complete nginx.conf, using the template embedded by
// package nginx. It is pure: no I/O, no clock, deterministic output (the
// edge reloads nginx only when these bytes change). It also owns the rules
// for what a registry member may look like before it reaches nginx.
package render
