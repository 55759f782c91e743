// Package stack is the local stack supervisor behind `make run`: it starts
// Verdict's whole system on one machine, on loopback, in one directory.
//
// Order: MariaDB and Redis (package localsvc, data under Dir/mysql and
// Dir/redis, AOF on) → the web nodes → the hub → the edge, which renders the
// nginx configuration and runs nginx → the judges → the demo data. Each
// process is started only when what it depends on answers its readiness
// check, and its output is streamed with a "name |" prefix. A component
// whose binary has not been built (it does not exist yet) is reported and
// skipped; the rest runs. A component that crashes is restarted with
// backoff. On cancellation (Ctrl-C) everything is stopped in reverse order,
// each process with SIGTERM and a grace period.
//
// The supervisor binds the Go components' ports itself and hands each
// process its listening socket (internal/listenfd): no other process can
// take one between its choice and its use. Config.FreePorts chooses free
// ones; MariaDB, Redis and nginx, which bind their own, are started again
// on another port when theirs turns out taken.
//
// Everything lives under Dir (./var by default), so a second start reuses the
// same data: the MariaDB datadir, the Redis AOF, the generated secrets.
package stack
