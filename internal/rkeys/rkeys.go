package rkeys

import (
	"fmt"
	"strconv"
)

// DefaultPrefix is the prefix of every name when none is configured.
const DefaultPrefix = "verdict"

// Role names a kind of process that registers itself as live in Redis.
type Role string

// Roles that register in the live registry. The edge routes to them.
const (
	RoleWeb Role = "web"
	RoleHub Role = "hub"
)

// Names builds Redis names under one prefix. The zero value uses DefaultPrefix.
type Names struct {
	prefix string
}

// New returns Names under prefix; an empty prefix means DefaultPrefix.
func New(prefix string) Names { return Names{prefix: prefix} }

// Prefix returns the prefix in use.
func (n Names) Prefix() string {
	if n.prefix == "" {
		return DefaultPrefix
	}
	return n.prefix
}

func (n Names) k(parts ...string) string {
	s := n.Prefix()
	for _, p := range parts {
		s += ":" + p
	}
	return s
}

// Registry is the sorted set of live processes of a role. Member: the
// process's address (host:port); score: the Unix time in milliseconds after
// which the entry is stale unless renewed. A process renews its entry every
// few seconds and removes it on a clean shutdown; readers ignore members
// whose score is in the past.
func (n Names) Registry(r Role) string { return n.k("registry", string(r)) }

// RegistryChanged is the pub/sub channel on which a process announces that it
// joined or left the registry of its role, so watchers react without waiting
// for their next poll.
func (n Names) RegistryChanged() string { return n.k("registry", "changed") }

// JudgeTokens is the hash of live judge tokens: field = hex SHA-256 of the
// token, value = the judge's name. The web nodes, which issue and revoke
// tokens (system of record: MySQL), keep it in step; the hub checks a
// judge's hello against it and never reads MySQL. Every sync also writes
// the field JudgeTokensSynced (value: unix ms), so that readers can tell
// "this token is not valid" from "the table is not loaded" (a Redis that
// restarted empty): only the first is a reason to turn a judge away for
// good.
func (n Names) JudgeTokens() string { return n.k("judges", "tokens") }

// JudgeTokensSynced is the field of JudgeTokens that marks a loaded table.
// It cannot collide with a token field (64 hex digits).
const JudgeTokensSynced = "synced-at"

// Judge is the hash of one judge's last reported state (written by the hub,
// read by the admin pages), by judge name.
func (n Names) Judge(name string) string { return n.k("judge", name) }

// Cache is a key of the web nodes' read cache, e.g. Cache("problems",
// "gen") or Cache("problems", "public", "17"). Entries are invalidated on
// write (by bumping a generation key) and expire on their own.
func (n Names) Cache(parts ...string) string { return n.k(append([]string{"cache"}, parts...)...) }

// Session is the key of one browser session (a hash), by session id.
func (n Names) Session(id string) string { return n.k("session", id) }

// UserSessions is the set of one user's session keys (Session(...)), so
// that a password change or a disabled account can end them all, and the
// hub, which reads sessions from Redis only, stops accepting them.
func (n Names) UserSessions(userID int64) string {
	return n.k("user-sessions", strconv.FormatInt(userID, 10))
}

// UserEpoch is a user's session epoch as the web nodes last published it
// (a decimal string, no TTL): the copy in Redis of MySQL's
// users.session_epoch, against which the hub checks a session's own
// epoch (internal/session).
func (n Names) UserEpoch(userID int64) string {
	return n.k("user-epoch", strconv.FormatInt(userID, 10))
}

// Queue is the judge queue: a sorted set of task ids ordered by priority
// then submission time.
func (n Names) Queue() string { return n.k("queue") }

// Task is the hash describing one queued or leased task.
func (n Names) Task(submissionID int64) string {
	return n.k("task", strconv.FormatInt(submissionID, 10))
}

// Leases is the sorted set of leased task ids scored by lease deadline (ms).
func (n Names) Leases() string { return n.k("leases") }

// Results is the stream of final judge results consumed by web nodes.
func (n Names) Results() string { return n.k("results") }

// ResultsGroup is the consumer group name of web nodes on Results.
func (n Names) ResultsGroup() string { return "webapp" }

// Scoreboard is the hash holding a contest's scoreboard cells (field
// "<user>:<problem>"; see webapp/internal/scoreboard for the values).
func (n Names) Scoreboard(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "board")
}

// ScoreboardViews is the hash holding a contest's scoreboard as it is
// shown (each cell's views, each user's names), apart from the cells'
// entries in Scoreboard: a publish reads it whole, twice a second under
// results, without walking the entries (see webapp/internal/scoreboard).
func (n Names) ScoreboardViews(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "board-views")
}

// ScoreboardChanges is the sorted set of a contest's ScoreboardViews
// fields by the change that wrote each last (its seq, a counter in the
// views hash): a publish reads the fields changed since its last read
// instead of the whole hash (see webapp/internal/scoreboard).
func (n Names) ScoreboardChanges(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "board-changes")
}

// ScoreboardPublish is the string key a web node sets (NX, expiring after
// the publish interval) before it assembles and publishes a contest's
// board: one node publishes per interval, whichever node consumed the
// results; the others read its remaining time (PTTL) and try again when
// it expires.
func (n Names) ScoreboardPublish(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "publishing")
}

// Events is the pub/sub channel of live events for one topic (a submission,
// a user's list, a contest's scoreboard, the queue notice), e.g.
// Events("submission", 42).
func (n Names) Events(topic string, id int64) string {
	return n.k("events", topic, strconv.FormatInt(id, 10))
}

// Lock is a named mutual-exclusion key (SET NX PX), e.g. Lock("migrate").
func (n Names) Lock(name string) string { return n.k("lock", name) }

// RateLimit is the counter key of a rate limit bucket.
func (n Names) RateLimit(kind, subject string) string {
	return n.k("ratelimit", kind, subject)
}

// LoginUser is the hash of one username's login throttle state
// (webapp/internal/ratelimit): fields "u:n"/"u:t" (failures and last
// failure in ms, across all addresses), "a:<address>:n"/"a:<address>:t"
// (from one client address) and "d:<device>:n"/"d:<device>:t" (from one
// known device, by the hash of its cookie). It expires a window after the
// last failure.
func (n Names) LoginUser(username string) string { return n.k("login", "user", username) }

// LoginAddr is the hash of one client address's login throttle state
// (fields "n" and "t", as in LoginUser): the coarse flood guard.
func (n Names) LoginAddr(addr string) string { return n.k("login", "addr", addr) }

// LoginDevices is the sorted set of one username's known devices: member =
// hex SHA-256 of the device cookie, score = last successful login (ms).
// Bounded in size and age.
func (n Names) LoginDevices(username string) string { return n.k("login", "devices", username) }

// LoginAddrs is the sorted set of the client addresses one username
// recently logged in from: member = address, score = last success (ms).
// Bounded in size and age.
func (n Names) LoginAddrs(username string) string { return n.k("login", "addrs", username) }

// Idempotency is the key remembering the submission made with a client's
// idempotency key, scoped to the user.
func (n Names) Idempotency(userID int64, key string) string {
	return n.k("idem", strconv.FormatInt(userID, 10), key)
}

// ReadCachePurge is the pub/sub channel on which a web node that wrote
// something a node's read cache may keep tells every node to forget
// everything it keeps (webapp/internal/readcache).
func (n Names) ReadCachePurge() string { return n.k("cache", "purge") }

// QueueChanged is the pub/sub channel on which an enqueue (or a requeue)
// announces new work, so hubs dispatch at once instead of on their next tick.
func (n Names) QueueChanged() string { return n.k("queue", "changed") }

// QueueNotice is the string key holding the current queue notice (JSON of
// protocol.QueueNotice without a position), written by the hub that leads
// the notice and read by web nodes on submit.
func (n Names) QueueNotice() string { return n.k("queue", "notice") }

// HubCapacity is the hash in which each hub reports whether its judges can
// take more work: field = hub id, value = "<saturated 0|1>:<expiry ms>".
func (n Names) HubCapacity() string { return n.k("queue", "capacity") }

// Completions is the sorted set of recent final results (member
// "submission:attempt", score = completion time in ms), from which the
// completion rate and the queue ETA are computed.
func (n Names) Completions() string { return n.k("queue", "completions") }

// LiveState is the hash holding the live state of one channel (kind as in
// Events): its last event sequence number and the state its snapshot is
// built from.
func (n Names) LiveState(kind string, id int64) string {
	return n.k("live", kind, strconv.FormatInt(id, 10))
}

// JudgeEvict is the pub/sub channel on which web nodes announce that a
// problem's test data changed (JSON of protocol.Evict); every hub forwards
// it to its judges.
func (n Names) JudgeEvict() string { return n.k("judges", "evict") }

// JudgeConnected is the pub/sub channel on which a hub announces a judge's
// new connection, so another hub holding an older connection of the same
// judge closes it as superseded.
func (n Names) JudgeConnected() string { return n.k("judges", "connected") }

// WarmPlan is the string key holding the warm plan (JSON of
// warmplan.Plan): the upcoming and running contests with their problems'
// test data, written by the web nodes (system of record: MySQL) and read by
// the hubs, which have their judges prefetch it before a contest starts.
func (n Names) WarmPlan() string { return n.k("warm", "plan") }

// WarmPlanChanged is the pub/sub channel on which a web node announces that
// it rewrote WarmPlan after a change, so hubs read it at once.
func (n Names) WarmPlanChanged() string { return n.k("warm", "changed") }

// WarmStatus is the hash in which each hub reports how many of its judges
// are warm for each contest of the plan: field = hub id, value = JSON of
// warmplan.HubStatus (which carries its own expiry).
func (n Names) WarmStatus() string { return n.k("warm", "status") }

// CCSFeed is the stream of a contest's Contest API events
// (webapp/internal/ccs): one entry per fact the event feed is made of (a
// submission or a new attempt, a judgement, a thaw), appended by the web
// node that handled it. Entry ids are the feed's resume tokens.
func (n Names) CCSFeed(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "ccs-feed")
}

// CCSFeedGen is the string key holding the generation of a contest's
// CCSFeed (random, set once): a token names it, so that a token of a
// stream lost with Redis is refused rather than resumed with a gap.
func (n Names) CCSFeedGen(contestID int64) string {
	return n.k("contest", strconv.FormatInt(contestID, 10), "ccs-feed-gen")
}

// String implements fmt.Stringer for logs.
func (n Names) String() string { return fmt.Sprintf("rkeys(%s)", n.Prefix()) }

// RejudgeJob is the hash of one background rejudge's progress (total,
// done, failed, its staff user, when it started and finished), by job id,
// so that any web node can answer how far it got. It expires a week after
// the job started.
func (n Names) RejudgeJob(id string) string { return n.k("rejudge", "job", id) }

// RejudgeRequest is the string key a staff user's rejudge request with an
// Idempotency-Key claims (its value: the job's id, or the one submission
// rejudged), so that the same request retried (no answer, a 502) rejudges
// nothing twice. It expires with the job (a week).
func (n Names) RejudgeRequest(userID int64, key string) string {
	return n.k("rejudge", "request", strconv.FormatInt(userID, 10), key)
}

// CustomRunIDs is the counter custom run ids are drawn from (each id is
// protocol.CustomRunIDBase plus the counter).
func (n Names) CustomRunIDs() string { return n.k("custom-run", "ids") }

// CustomRun is the hash of one custom run (owner, contest, problem and
// its live state as JSON), by run id. It expires: custom runs are kept
// only for a while (queue.Config.CustomRunTTL).
func (n Names) CustomRun(id int64) string {
	return n.k("custom-run", strconv.FormatInt(id, 10))
}
