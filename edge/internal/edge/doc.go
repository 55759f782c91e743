// Package edge keeps nginx true to the live registry: it reads the live web
// nodes and hubs from Redis (on every RegistryChanged message and on a poll),
// prunes long-dead members, resolves and renders the complete nginx.conf,
// and only when the bytes change validates it with nginx -t, swaps it in
// atomically and reloads nginx — a child it runs itself, or an external
// nginx through its pid file. A config nginx rejects is logged and never
// applied; the last good one keeps serving. A failed registry read keeps
// the current upstreams rather than emptying them.
package edge
