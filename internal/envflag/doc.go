// Package envflag lets every flag of a Verdict binary also be set through
// the environment, the way systemd units and the local stack configure them.
//
// The variable of flag --foo-bar is PREFIX_FOO_BAR (e.g. VERDICT_EDGE_REDIS
// for the edge's --redis). A flag given on the command line wins over its
// variable; a variable wins over the flag's default. Some settings are shared
// by the whole stack under one name (VERDICT_LOG_FORMAT): those are passed as
// aliases, consulted when the component's own variable is unset.
package envflag
