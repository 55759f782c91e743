package redisscript

import (
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"
)

// names maps a script's SHA-1 (hex, as EVALSHA sends it) to the name
// Named gave it.
var names sync.Map

// Named registers name for s and returns s, so a script is named where it
// is defined: var peekScript = redisscript.Named("queue.peek",
// redis.NewScript(…)). The name is what metrics call the script instead of
// its hash (redisconn's command times). Two different names for one source
// panic at package init: a name must say which script ran.
func Named(name string, s *redis.Script) *redis.Script {
	if old, loaded := names.LoadOrStore(s.Hash(), name); loaded && old != name {
		panic(fmt.Sprintf("redisscript: script %s named %q and %q", s.Hash(), old, name))
	}
	return s
}

// NameOf is the name Named gave the script whose SHA-1 is sha, or "" for a
// script nobody named.
func NameOf(sha string) string {
	if n, ok := names.Load(sha); ok {
		return n.(string)
	}
	return ""
}
