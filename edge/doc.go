// Command edge keeps nginx true to the registry of live web nodes and hubs
// in Redis: it renders the complete nginx.conf, validates it with nginx -t,
// and reloads nginx when it changes. See docs/edge.md.
package main
