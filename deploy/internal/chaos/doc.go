// Package chaos runs fault drills against a real local stack (MariaDB,
// Redis, nginx, the hub, the web nodes and the judges, as started by
// package stack): it breaks one part on purpose — kill -9 a judge, the hub
// or a web node, restart Redis, freeze MySQL, cut a judge off in a network
// namespace, slow a judge down with a CPU quota — while submissions go in
// through nginx and the real HTTP API, then checks in MySQL and in the
// results stream that every submission got exactly one final verdict and
// that nothing was lost or written twice. `verdict-stack chaos` (make chaos)
// runs every drill and prints what each did, what it checked and PASS or
// FAIL.
package chaos
