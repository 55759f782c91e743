package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// ErrBlocked is wrapped by *BlockedError: a backoff has not run out.
var ErrBlocked = errors.New("ratelimit: blocked")

// Limit names one login throttle.
type Limit string

// The login throttles.
const (
	// LimitAccountAddress: one username from one client address.
	LimitAccountAddress Limit = "account-address"
	// LimitAccount: one username from addresses that are not its usual ones.
	LimitAccount Limit = "account"
	// LimitAddress: one client address, all usernames (the flood guard).
	LimitAddress Limit = "address"
	// LimitDevice: one username from one of its known devices.
	LimitDevice Limit = "device"
)

// BlockedError says which throttle refused an attempt and for how long.
type BlockedError struct {
	Limit Limit
	Wait  time.Duration
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("ratelimit: %s blocked for %v", e.Limit, e.Wait)
}

// Unwrap makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Unwrap() error { return ErrBlocked }

// LoginPolicy configures Logins.
type LoginPolicy struct {
	// AccountAddress applies to (username, address) and, for a known
	// device, to (username, device).
	AccountAddress Policy
	// Account applies to a username across the addresses that are not
	// its usual ones; never to a known device or a usual address.
	Account Policy
	// Address applies to a client address across usernames, except for
	// trusted networks, known devices and usual addresses.
	Address Policy
	// DeviceTTL and MaxDevices bound a username's known devices; AddrTTL
	// and MaxAddrs its usual addresses.
	DeviceTTL  time.Duration
	MaxDevices int
	AddrTTL    time.Duration
	MaxAddrs   int
}

// Logins throttles password checks with growing delays. Every state move
// is one Lua script (Attempt, Refund, Succeed), so any number of web nodes
// agree. An attempt is counted as a failure when it is admitted (Attempt)
// and refunded when it was not one (Succeed, Refund): concurrent guesses
// cannot all slip past a check made before any of them failed, and a
// client that hangs up during the slow check is counted all the same.
type Logins struct {
	rdb   redis.UniversalClient
	names rkeys.Names
	pol   LoginPolicy
	now   func() time.Time // nil: Redis's clock
}

// NewLogins returns Logins. now is the clock; nil means Redis's (TIME),
// which every node shares.
func NewLogins(rdb redis.UniversalClient, names rkeys.Names, pol LoginPolicy, now func() time.Time) *Logins {
	return &Logins{rdb: rdb, names: names, pol: pol, now: now}
}

// Policy returns the policy in use.
func (l *Logins) Policy() LoginPolicy { return l.pol }

// LoginKey is who attempts a password check.
type LoginKey struct {
	// Username is the canonical name; "" for a name no account can have
	// (only the address is counted).
	Username string
	Addr     string
	// Device is the hex SHA-256 of the device cookie presented, or "".
	Device string
	// Trusted: Addr is in a trusted network, exempt from the address
	// guard.
	Trusted bool
	// DeviceOnly: the caller vouches for Device (it is a logged-in
	// session's): only the (username, device) rule applies.
	DeviceOnly bool
}

// Ticket is an admitted attempt, already counted as a failure. Hand it to
// Succeed or Refund when the attempt was not one.
type Ticket struct {
	Key LoginKey
	// KnownDevice: Device is one of the username's known devices (only
	// LimitDevice applied). UsualAddress: Addr is one of its usual
	// addresses (LimitAccount and LimitAddress did not apply).
	KnownDevice, UsualAddress bool
	mask                      int64
}

func (l *Logins) nowArg() int64 {
	if l.now == nil {
		return 0
	}
	return l.now().UnixMilli()
}

func (l *Logins) keys(k LoginKey) []string {
	return []string{l.names.LoginUser(k.Username), l.names.LoginAddr(k.Addr),
		l.names.LoginDevices(k.Username), l.names.LoginAddrs(k.Username)}
}

func polArgs(p Policy) []any {
	return []any{p.Free, p.Base.Milliseconds(), p.Max.Milliseconds(), p.Window.Milliseconds()}
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// luaNow is the clock of every script: ARGV[1] in ms, or Redis's TIME.
const luaNow = `
local now = tonumber(ARGV[1])
if now == 0 then
  now = now_ms()
end
`

// attemptScript: KEYS user hash, address hash, devices, usual addresses.
// ARGV now, username, address, device, trusted, device-only, then the
// policies (free, base, max, window in ms) of account-address, account and
// address, device TTL, address TTL. Returns {admitted, wait ms, limit,
// known device, usual address, mask of the counters it incremented}.
var attemptScript = redisscript.Named("ratelimit.attempt", redisscript.New(luaNow+`
local function pol(i)
  return {free = tonumber(ARGV[i]), base = tonumber(ARGV[i+1]), maxd = tonumber(ARGV[i+2]), window = tonumber(ARGV[i+3])}
end
local pair, acct, addrp = pol(7), pol(11), pol(15)
local user, addr, dev = ARGV[2], ARGV[3], ARGV[4]
-- the wait n failures impose, the last at last (Policy.Delay, Decide)
local function wait(n, last, p)
  if n <= p.free then return 0 end
  local d, k = p.base, n - p.free - 1
  while k > 0 and d < p.maxd do d = d * 2; k = k - 1 end
  if d > p.maxd then d = p.maxd end
  local left = last + d - now
  if left > 0 then return left end
  return 0
end
local known, usual = 0, 0
if user ~= '' and dev ~= '' then
  if ARGV[6] == '1' then
    known = 1
  else
    local s = redis.call('ZSCORE', KEYS[3], dev)
    if s and now - tonumber(s) < tonumber(ARGV[19]) then known = 1 end
  end
end
local checks = {}
if known == 1 then
  table.insert(checks, {KEYS[1], 'd:' .. dev .. ':', pair, 8, 'device'})
else
  if user ~= '' then
    local s = redis.call('ZSCORE', KEYS[4], addr)
    if s and now - tonumber(s) < tonumber(ARGV[20]) then usual = 1 end
    table.insert(checks, {KEYS[1], 'a:' .. addr .. ':', pair, 1, 'account-address'})
    if usual == 0 then table.insert(checks, {KEYS[1], 'u:', acct, 2, 'account'}) end
  end
  if usual == 0 and ARGV[5] ~= '1' then table.insert(checks, {KEYS[2], '', addrp, 4, 'address'}) end
end
local worst, which, counts = 0, '', {}
for i, c in ipairs(checks) do
  local v = redis.call('HMGET', c[1], c[2] .. 'n', c[2] .. 't')
  local n, last = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  if n > 0 and now - last >= c[3].window then n = 0 end
  counts[i] = n
  local w = wait(n, last, c[3])
  if w > worst then worst, which = w, c[5] end
end
if worst > 0 then return {0, worst, which, known, usual, 0} end
local mask = 0
for i, c in ipairs(checks) do
  redis.call('HSET', c[1], c[2] .. 'n', counts[i] + 1, c[2] .. 't', now)
  local ttl = c[3].window
  if c[3].maxd > ttl then ttl = c[3].maxd end
  if redis.call('PTTL', c[1]) < ttl then redis.call('PEXPIRE', c[1], ttl) end
  mask = mask + c[4]
end
return {1, 0, '', known, usual, mask}
`))

// luaUndo takes back the counters of mask (ARGV[2] address, ARGV[3]
// device); clear: the per-pair ones are deleted rather than decremented.
const luaUndo = `
local addr, dev, mask = ARGV[2], ARGV[3], tonumber(ARGV[4])
local function bit(b) return math.floor(mask / b) % 2 == 1 end
local function dec(key, f)
  local n = tonumber(redis.call('HGET', key, f .. 'n') or '0')
  if n > 0 then redis.call('HSET', key, f .. 'n', n - 1) end
end
local function undo(clear)
  if bit(1) then
    if clear then redis.call('HDEL', KEYS[1], 'a:' .. addr .. ':n', 'a:' .. addr .. ':t') else dec(KEYS[1], 'a:' .. addr .. ':') end
  end
  if bit(8) then
    if clear then redis.call('HDEL', KEYS[1], 'd:' .. dev .. ':n', 'd:' .. dev .. ':t') else dec(KEYS[1], 'd:' .. dev .. ':') end
  end
  if bit(2) then dec(KEYS[1], 'u:') end
  if bit(4) then dec(KEYS[2], '') end
end
`

// refundScript: the attempt's password was never checked (the node was
// busy, MySQL failed). KEYS as attemptScript; ARGV now, address, device,
// mask.
var refundScript = redisscript.Named("ratelimit.refund", redisscript.New(luaNow+luaUndo+`
undo(false)
return 1
`))

// succeedScript: the password was right. The pair's backoff is forgotten;
// the shared counters (account, address) take the attempt back. With
// record, the device (ARGV[6]) and the address become known. KEYS as
// attemptScript; ARGV now, address, device, mask, record, device to
// record, device TTL, max devices, address TTL, max addresses (ms).
var succeedScript = redisscript.Named("ratelimit.succeed", redisscript.New(luaNow+luaUndo+`
undo(true)
if ARGV[5] == '1' then
  local function remember(key, member, ttl, cap)
    redis.call('ZADD', key, now, member)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - ttl)
    local extra = redis.call('ZCARD', key) - cap
    if extra > 0 then redis.call('ZREMRANGEBYRANK', key, 0, extra - 1) end
    redis.call('PEXPIRE', key, ttl)
  end
  if ARGV[6] ~= '' then remember(KEYS[3], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])) end
  remember(KEYS[4], addr, tonumber(ARGV[9]), tonumber(ARGV[10]))
end
return 1
`))

// Attempt admits a password check by k, counting it as a failure, or
// refuses it with a *BlockedError (errors.Is ErrBlocked) naming the limit
// and the time left. Any other error means Redis did not answer.
func (l *Logins) Attempt(ctx context.Context, k LoginKey) (*Ticket, error) {
	args := []any{l.nowArg(), k.Username, k.Addr, k.Device, flag(k.Trusted), flag(k.DeviceOnly)}
	args = append(args, polArgs(l.pol.AccountAddress)...)
	args = append(args, polArgs(l.pol.Account)...)
	args = append(args, polArgs(l.pol.Address)...)
	args = append(args, l.pol.DeviceTTL.Milliseconds(), l.pol.AddrTTL.Milliseconds())
	res, err := attemptScript.Run(ctx, l.rdb, l.keys(k), args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("ratelimit: login attempt: %w", err)
	}
	if len(res) != 6 {
		return nil, fmt.Errorf("ratelimit: login attempt: unexpected reply %v", res)
	}
	num := func(i int) int64 { n, _ := res[i].(int64); return n }
	t := &Ticket{Key: k, KnownDevice: num(3) == 1, UsualAddress: num(4) == 1, mask: num(5)}
	if num(0) != 1 {
		which, _ := res[2].(string)
		return t, &BlockedError{Limit: Limit(which), Wait: time.Duration(num(1)) * time.Millisecond}
	}
	return t, nil
}

// Refund takes back an admitted attempt whose password was never checked.
func (l *Logins) Refund(ctx context.Context, t *Ticket) error {
	if err := refundScript.Run(ctx, l.rdb, l.keys(t.Key), l.nowArg(), t.Key.Addr, t.Key.Device, t.mask).Err(); err != nil {
		return fmt.Errorf("ratelimit: login refund: %w", err)
	}
	return nil
}

// Succeed records that t's password was right: the backoff of its pair
// (address or device) is forgotten and the shared counters take the
// attempt back. With record, device (hex SHA-256 of the device cookie,
// "" for none) becomes a known device of the username and the address a
// usual one.
func (l *Logins) Succeed(ctx context.Context, t *Ticket, record bool, device string) error {
	err := succeedScript.Run(ctx, l.rdb, l.keys(t.Key), l.nowArg(), t.Key.Addr, t.Key.Device, t.mask,
		flag(record), device, l.pol.DeviceTTL.Milliseconds(), l.pol.MaxDevices,
		l.pol.AddrTTL.Milliseconds(), l.pol.MaxAddrs).Err()
	if err != nil {
		return fmt.Errorf("ratelimit: login success: %w", err)
	}
	return nil
}

// Forget drops every failure counted against username (an admin reset its
// password). Its known devices and usual addresses stay.
func (l *Logins) Forget(ctx context.Context, username string) error {
	if err := l.rdb.Del(ctx, l.names.LoginUser(username)).Err(); err != nil {
		return fmt.Errorf("ratelimit: forget %s: %w", username, err)
	}
	return nil
}
