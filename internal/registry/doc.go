// Package registry is the live registry of web nodes and hubs in Redis: a
// process announces itself with a Registrar (register, renew on a heartbeat,
// deregister on shutdown, publishing rkeys.RegistryChanged on join and
// leave), and the edge reads the live members with Live (which also prunes
// members long expired). Time is always Redis's own clock (TIME inside the
// scripts), so clock skew between machines cannot expire a healthy member.
// Key and channel names come from rkeys.
package registry
