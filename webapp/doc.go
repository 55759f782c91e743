// Command webapp is a Verdict web node: a stateless HTTP API over MySQL and
// Redis, any number of which run behind the edge (nginx).
//
//	webapp [flags]          serve (applies migrations first)
//	webapp migrate [flags]  apply migrations and exit
//	webapp demo [flags]     load the demo data (idempotent) and exit
//
// Run `webapp -h`, `webapp demo -h` for the flags and their environment
// variables. The internals live under webapp/internal.
package main
