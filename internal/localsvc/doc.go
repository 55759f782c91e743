// Package localsvc runs Verdict's backing services — MariaDB, Redis — as
// plain child processes in a directory of their own, on loopback.
//
// It is shared by the local stack supervisor (deploy/, used by `make run`)
// and by the test environment (internal/testenv): both need a real MariaDB
// with its own datadir, socket and port, and a real Redis with its own
// directory, without touching the machine's system services. Production
// deployments use their own MySQL and Redis and never this package.
//
// A service directory is reusable: starting MariaDB on a directory that
// already holds a datadir keeps its data; Redis runs with AOF on, so its data
// survives a restart too.
//
// Ports: Listen holds a free loopback port for a Go server, to be handed
// over as a listening socket (internal/listenfd), so that nobody can take
// it first; FreePort chooses one for a server that binds its own (MariaDB,
// Redis, nginx), which fails with ErrPortInUse when another process took
// it in between, and OnFreePort then tries another. Free ports come from
// 20000-32767, below the kernel's ephemeral range, where neither an
// outbound connection nor another program's listen on port 0 takes them.
//
// For tests of the other Redis deployments it also starts a Redis Cluster of
// masters (StartRedisCluster) and a Sentinel watching a Redis
// (StartSentinel).
package localsvc
