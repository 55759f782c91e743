package redisscript

import "github.com/redis/go-redis/v9"

// Prelude is prepended to every script New builds.
//
//	now_ms()  Redis's TIME in whole milliseconds since the Unix epoch.
const Prelude = `local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`

// New returns the script src, run after Prelude.
func New(src string) *redis.Script { return redis.NewScript(Prelude + src) }
