// Package demo loads the demo data of the local stack, idempotently, so it
// can run on every start: an admin and a student login (random passwords,
// recorded in a logins file and kept across runs), three sample problems
// with generated test data in the blob store (ICPC A+B, a float-checker
// problem, an IOI problem with two subtasks), a running ICPC contest, and
// judge tokens written to <dir>/judge-N/token.
package demo
