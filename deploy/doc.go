// Command verdict-stack runs Verdict on one machine: `verdict-stack up`
// starts MariaDB, Redis, the web nodes, the hub, the edge (nginx) and the
// judges under ./var and loads the demo data (what `make run` does);
// `verdict-stack with-services -- CMD` runs CMD with a throwaway MariaDB and
// Redis for tests (what `make test` does). See package stack.
package main
