package scoreboard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/rkeys"
)

// Board is the contests' scoreboards in Redis. Each contest is two
// hashes: rkeys.Scoreboard(contest id), the cells' entries, holding per
// cell "<user>:<problem>"
//
//	e:<cell>  the cell's entries (JSON array, every value a string)
//	n:<cell>  the entries' version, bumped on every change
//
// and rkeys.ScoreboardViews(contest id), the board as it is shown,
//
//	v:<cell>  the cell's views (JSON of View) derived from that version
//	u:<user>  the user's names (JSON of User)
//
// each with
//
//	built     set by Rebuild: the board was made from MySQL (Exists), and
//	          the hash exists even for a contest without a submission.
//
// A publish reads the views hash, twice a second under results; with
// the views among the entries, Redis walked every entry and version to
// find them (HSCAN with a pattern: 52 % of its CPU in the 2026-12-06 11:41
// rehearsal). Read whole apart from the entries, it was still 27 % of
// Redis's CPU (19:11 run), so a node now reads only the fields changed
// since its last read: each write of a view or a user bumps the views
// hash's seq and files the field under it in rkeys.ScoreboardChanges, a
// sorted set with one member per field (it grows with the board, not with
// the changes). The scripts write the three keys of a contest at once
// (one slot in a cluster: every key shares the prefix's hash tag).
//
// A team's cell (team contests) is "t<team>:<problem>"; teams' names are
// not kept here (AssembleTeams takes them).
//
// One hash per contest keeps every update of a contest on one key.
//
// The field prefixes are fieldEntries, fieldVersion, fieldViews and
// fieldUser, which the scripts take from Go (redisscript.Expand).
type Board struct {
	rdb redis.UniversalClient
	n   rkeys.Names
	// decoded are the fields Views read last, decoded (decoded.go).
	decoded decodedBoards
	// fullReadEvery and maxChanges replace the constants (tests); 0:
	// the constant.
	fullReadEvery time.Duration
	maxChanges    int
}

// New returns a Board.
func New(rdb redis.UniversalClient, names rkeys.Names) *Board { return &Board{rdb: rdb, n: names} }

// Contest is what a board update needs to know about the contest.
type Contest struct {
	ID     int64
	Params Params
}

// wireEntry is an entry inside Redis: strings only, so Lua's cjson never
// rounds a number.
type wireEntry struct {
	S string `json:"s"` // submission id
	A string `json:"a"` // attempt
	T string `json:"t"` // submission time, Unix ms
	V string `json:"v"` // verdict, "" pending
	P string `json:"p"` // score
}

func (w wireEntry) entry() (Entry, error) {
	var e Entry
	var err error
	if e.SubmissionID, err = strconv.ParseInt(w.S, 10, 64); err != nil {
		return e, fmt.Errorf("scoreboard: entry id %q: %w", w.S, err)
	}
	if e.Attempt, err = strconv.Atoi(w.A); err != nil {
		return e, fmt.Errorf("scoreboard: entry attempt %q: %w", w.A, err)
	}
	ms, err := strconv.ParseInt(w.T, 10, 64)
	if err != nil {
		return e, fmt.Errorf("scoreboard: entry time %q: %w", w.T, err)
	}
	e.At = time.UnixMilli(ms).UTC()
	e.Verdict = w.V
	if e.Score, err = strconv.ParseFloat(w.P, 64); err != nil {
		return e, fmt.Errorf("scoreboard: entry score %q: %w", w.P, err)
	}
	return e, nil
}

// Prefixes of a board's fields (see Board).
const (
	fieldEntries = "e:"
	fieldVersion = "n:"
	fieldViews   = "v:"
	fieldUser    = "u:"
	// fieldBuilt is no cell's: Rebuild sets it, so that the board of a
	// contest without submissions exists too, and is not rebuilt from
	// MySQL on every read until the first submission.
	fieldBuilt = "built"
	// fieldSeq and fieldGen are the views hash's change counter and its
	// generation (Redis's TIME when the counter started, so a counter
	// that started again, the hash lost and made anew, is told apart).
	// Every write of a view or a user bumps the counter and files the
	// field under it in rkeys.ScoreboardChanges (luaChanged).
	fieldSeq = "seq"
	fieldGen = "gen"
)

// viewsAndUsers is the HSCAN pattern of the fieldViews and fieldUser
// fields (one character apart, TestFieldPrefixes): Rebuild drops them
// from the entries' hash of a board made before they had a hash of their
// own.
var viewsAndUsers = "[" + fieldViews[:1] + fieldUser[:1] + "]" + fieldViews[1:] + "*"

// luaNames are the names the scripts take from Go.
var luaNames = map[string]any{
	"fieldEntries": fieldEntries, "fieldVersion": fieldVersion, "fieldViews": fieldViews, "fieldUser": fieldUser,
	"fieldSeq": fieldSeq, "fieldGen": fieldGen,
}

// luaChanged is the scripts' changed(field): it files a views hash field
// (KEYS[2]) just written under the next change number, in the changes set
// (KEYS[3]), starting a generation with the counter.
const luaChanged = `
local function next_change()
  local s = redis.call('HINCRBY', KEYS[2], $fieldSeq, 1)
  if s == 1 then
    local t = redis.call('TIME')
    redis.call('HSET', KEYS[2], $fieldGen, t[1] .. '.' .. t[2])
  end
  return s
end
`

// KEYS: entries, views. ARGV: cell, sid, attempt, at ms, verdict, score, user id,
// user json (user id 0: none). Merges the entry by Entry.Supersedes; returns {1, version,
// entries json}, or {0, version, entries json} when nothing changed (the
// caller stores the view again: one whose store failed after the merge —
// a web node killed, Redis restarted between the two — would otherwise
// never be).
var upsertScript = redisscript.Named("scoreboard.upsert", redis.NewScript(redisscript.Expand(luaChanged+`
local ek = $fieldEntries .. ARGV[1]
local raw = redis.call('HGET', KEYS[1], ek)
local es = {}
if raw then es = cjson.decode(raw) end
local a = tonumber(ARGV[3])
local idx = nil
for i, e in ipairs(es) do
  if e.s == ARGV[2] then idx = i end
end
local new = {s = ARGV[2], a = ARGV[3], t = ARGV[4], v = ARGV[5], p = ARGV[6]}
if idx then
  local old = es[idx]
  local oa = tonumber(old.a)
  if not (a > oa or (a == oa and old.v == '' and ARGV[5] ~= '')) then
    return {0, tonumber(redis.call('HGET', KEYS[1], $fieldVersion .. ARGV[1]) or '0'), raw}
  end
  es[idx] = new
else
  table.insert(es, new)
end
local enc = cjson.encode(es)
redis.call('HSET', KEYS[1], ek, enc)
if ARGV[7] ~= '0' then
  local uf = $fieldUser .. ARGV[7]
  if redis.call('HGET', KEYS[2], uf) ~= ARGV[8] then
    redis.call('HSET', KEYS[2], uf, ARGV[8])
    redis.call('ZADD', KEYS[3], next_change(), uf)
  end
end
local ver = redis.call('HINCRBY', KEYS[1], $fieldVersion .. ARGV[1], 1)
return {1, ver, enc}
`, luaNames)))

// KEYS: entries, views. ARGV: cell, version, view json. Stores the view only if the
// entries are still at that version (a later change stores its own).
// Returns 0 (a later version), 1 (the view was already that), 2 (stored).
var viewScript = redisscript.Named("scoreboard.view", redis.NewScript(redisscript.Expand(luaChanged+`
if redis.call('HGET', KEYS[1], $fieldVersion .. ARGV[1]) ~= ARGV[2] then return 0 end
local vf = $fieldViews .. ARGV[1]
if redis.call('HGET', KEYS[2], vf) == ARGV[3] then return 1 end
redis.call('HSET', KEYS[2], vf, ARGV[3])
redis.call('ZADD', KEYS[3], next_change(), vf)
return 2
`, luaNames)))

// KEYS: entries, views, changes. ARGV: field, value pairs (users). Writes
// them as one change.
var usersScript = redisscript.Named("scoreboard.users", redis.NewScript(redisscript.Expand(luaChanged+`
local s = nil
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[2], ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    s = s or next_change()
    redis.call('ZADD', KEYS[3], s, ARGV[i])
  end
end
return 1
`, luaNames)))

// KEYS: views, changes. ARGV: the change read last, the most fields to
// return. Returns {generation, change now, n, field, value, ...}: the n
// fields changed after the one read last with their values (nil: gone),
// or n = -1 when more than the most changed (read the hash whole).
var changesScript = redisscript.Named("scoreboard.changes", redis.NewScript(redisscript.Expand(`
local hv = redis.call('HMGET', KEYS[1], $fieldGen, $fieldSeq)
local gen, seq = hv[1] or '', tonumber(hv[2] or '0')
local since, most = tonumber(ARGV[1]), tonumber(ARGV[2])
if since >= seq then return {gen, seq, 0} end
local fs = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. since, seq, 'LIMIT', 0, most + 1)
if #fs > most then return {gen, seq, -1} end
local out = {gen, seq, #fs}
if #fs > 0 then
  local vs = redis.call('HMGET', KEYS[1], unpack(fs))
  for i, f in ipairs(fs) do
    out[#out + 1] = f
    out[#out + 1] = vs[i]
  end
end
return out
`, luaNames)))

// cellName is "<user>:<problem>", or "t<team>:<problem>" for a team's.
func cellName(k CellKey) string {
	if k.TeamID != 0 {
		return "t" + strconv.FormatInt(k.TeamID, 10) + ":" + strconv.FormatInt(k.ProblemID, 10)
	}
	return strconv.FormatInt(k.UserID, 10) + ":" + strconv.FormatInt(k.ProblemID, 10)
}

func parseCell(s string) (CellKey, bool) {
	u, p, ok := strings.Cut(s, ":")
	if !ok {
		return CellKey{}, false
	}
	var k CellKey
	var err1, err2 error
	if t, isTeam := strings.CutPrefix(u, "t"); isTeam {
		k.TeamID, err1 = strconv.ParseInt(t, 10, 64)
		k.ProblemID, err2 = strconv.ParseInt(p, 10, 64)
		return k, err1 == nil && err2 == nil && k.TeamID != 0
	}
	k.UserID, err1 = strconv.ParseInt(u, 10, 64)
	k.ProblemID, err2 = strconv.ParseInt(p, 10, 64)
	return k, err1 == nil && err2 == nil
}

// Apply merges one entry into a cell and, if that changed the cell,
// derives and stores its views. It reports whether the cell changed.
// Safe to call concurrently from any number of nodes, in any order, any
// number of times.
func (b *Board) Apply(ctx context.Context, c Contest, u User, problemID int64, e Entry) (bool, error) {
	return b.ApplyCell(ctx, c, CellKey{UserID: u.ID, ProblemID: problemID}, u, e)
}

// ApplyCell is Apply for a cell named by its key (a team's cell in a team
// contest); u is the submitter (their names are kept as for a user cell).
func (b *Board) ApplyCell(ctx context.Context, c Contest, k CellKey, u User, e Entry) (bool, error) {
	if k.TeamID != 0 {
		u = User{} // a team's row is named from MySQL (Team)
	}
	cell := cellName(k)
	res, err := b.merge(ctx, c, cell, u, e)
	if err != nil {
		return false, err
	}
	if len(res) < 3 {
		return false, nil
	}
	changed := res[0] == int64(1)
	ver, _ := res[1].(int64)
	raw, _ := res[2].(string)
	if ver == 0 {
		return changed, nil
	}
	// Unchanged entries get their view stored too: the merge and the
	// view are two writes, and a view lost between them (the contest
	// rehearsal with faults, 2026-12-07: a web node killed after the
	// merge; the result, taken again, changed nothing) left its cell
	// pending on the board for good.
	stored, err := b.storeView(ctx, c, cell, ver, raw)
	return changed || stored, err
}

// merge merges e into the cell's entries (upsertScript) and returns the
// script's answer; the view is the caller's to store.
func (b *Board) merge(ctx context.Context, c Contest, cell string, u User, e Entry) ([]any, error) {
	uj, _ := json.Marshal(u)
	res, err := upsertScript.Run(ctx, b.rdb, b.keys(c.ID),
		cell, e.SubmissionID, e.Attempt, e.At.UnixMilli(), e.Verdict,
		strconv.FormatFloat(e.Score, 'g', -1, 64), u.ID, uj).Slice()
	if err != nil {
		return nil, fmt.Errorf("scoreboard: apply %d to contest %d: %w", e.SubmissionID, c.ID, err)
	}
	return res, nil
}

// storeView derives the cell's view from its entries at version ver and
// stores it; it reports whether that changed the stored view.
func (b *Board) storeView(ctx context.Context, c Contest, cell string, ver int64, raw string) (bool, error) {
	var ws []wireEntry
	if err := json.Unmarshal([]byte(raw), &ws); err != nil {
		// cjson encodes an empty table as {}; a cell always has entries.
		return false, fmt.Errorf("scoreboard: contest %d cell %s: %w", c.ID, cell, err)
	}
	es := make([]Entry, 0, len(ws))
	for _, w := range ws {
		e, err := w.entry()
		if err != nil {
			return false, err
		}
		es = append(es, e)
	}
	vj, _ := json.Marshal(Derive(c.Params, es))
	n, err := viewScript.Run(ctx, b.rdb, b.keys(c.ID), cell, ver, vj).Int64()
	if err != nil {
		return false, fmt.Errorf("scoreboard: store view of contest %d cell %s: %w", c.ID, cell, err)
	}
	return n == 2, nil
}

// Views reads every cell's views and the users of a contest's board.
// The maps are the caller's. A board read before is read again by its
// changes since (changesScript), the whole hash only when the changes
// cannot say it: the first read, a new generation (the hash lost and made
// anew), more than maxChanges changed, or fullReadEvery passed since the
// last whole read (a writer that files no change, an earlier release in
// a rolling upgrade, is caught up then).
func (b *Board) Views(ctx context.Context, contestID int64) (map[CellKey]View, map[int64]User, error) {
	views, users, _, err := b.VersionedViews(ctx, contestID)
	return views, users, err
}

// Version is the state of a board a read saw: its generation (a board
// made anew starts one) and its change counter, every change up to which
// the read holds (a whole read may hold later ones too). Two reads of one
// generation are ordered by it: a document assembled from the lower one
// may lack what the other shows.
type Version struct {
	Gen string
	Seq int64
	At  time.Time // when the read began: orders two reads of one Seq
}

// VersionedViews is Views with the Version of the state read.
func (b *Board) VersionedViews(ctx context.Context, contestID int64) (map[CellKey]View, map[int64]User, Version, error) {
	at := time.Now()
	dec := b.decoded.board(contestID)
	defer dec.mu.Unlock()
	if dec.read && time.Since(dec.fullAt) < b.fullEvery() {
		ok, err := b.readChanges(ctx, contestID, dec)
		if err != nil {
			return nil, nil, Version{}, err
		}
		if ok {
			return maps.Clone(dec.viewMap), maps.Clone(dec.userMap), Version{dec.gen, dec.seq, at}, nil
		}
	}
	if err := b.readWhole(ctx, contestID, dec); err != nil {
		return nil, nil, Version{}, err
	}
	return maps.Clone(dec.viewMap), maps.Clone(dec.userMap), Version{dec.gen, dec.seq, at}, nil
}

// maxChanges is the most changed fields a read applies; beyond them the
// hash is read whole (a rebuild rewrote the board).
const maxChanges = 2000

// fullReadEvery is how often Views reads the hash whole anyway.
const fullReadEvery = 30 * time.Second

func (b *Board) fullEvery() time.Duration { return cmp.Or(b.fullReadEvery, fullReadEvery) }

// readChanges applies to dec the fields changed since its last read; false
// when the changes cannot say the board (read it whole).
func (b *Board) readChanges(ctx context.Context, contestID int64, dec *decodedBoard) (bool, error) {
	keys := []string{b.n.ScoreboardViews(contestID), b.n.ScoreboardChanges(contestID)}
	res, err := changesScript.Run(ctx, b.rdb, keys, dec.seq, cmp.Or(b.maxChanges, maxChanges)).Slice()
	if err != nil {
		return false, fmt.Errorf("scoreboard: read contest %d's changes: %w", contestID, err)
	}
	if len(res) < 3 {
		return false, fmt.Errorf("scoreboard: read contest %d's changes: %d values", contestID, len(res))
	}
	gen, _ := res[0].(string)
	seq, _ := res[1].(int64)
	n, _ := res[2].(int64)
	if gen != dec.gen || seq < dec.seq || n < 0 || len(res) != 3+2*int(n) {
		return false, nil
	}
	for i := 3; i+1 < len(res); i += 2 {
		f, _ := res[i].(string)
		raw, present := res[i+1].(string)
		if err := dec.apply(f, raw, present); err != nil {
			return false, fmt.Errorf("scoreboard: contest %d: %w", contestID, err)
		}
	}
	dec.seq = seq
	dec.changeReads++
	return true, nil
}

// readWhole reads the views hash whole into dec.
func (b *Board) readWhole(ctx context.Context, contestID int64, dec *decodedBoard) error {
	key := b.n.ScoreboardViews(contestID)
	// The counter before the scan: a change during it is read again by
	// the next read of changes, which applies it the same way.
	ver, err := b.CurrentVersion(ctx, contestID)
	if err != nil {
		return err
	}
	// Sized as the last read was: grown from empty, the maps of a board
	// of 3,000 contestants took a third of a read's CPU.
	views := make(map[CellKey]View, len(dec.viewMap))
	users := make(map[int64]User, len(dec.userMap))
	kv, err := b.scan(ctx, key, "")
	if err != nil {
		return fmt.Errorf("scoreboard: read contest %d: %w", contestID, err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		f, v := kv[i], kv[i+1]
		switch {
		case strings.HasPrefix(f, fieldViews):
			k, ok := parseCell(f[len(fieldViews):])
			if !ok {
				continue
			}
			vw, err := dec.view(f, v)
			if err != nil {
				return fmt.Errorf("scoreboard: contest %d cell %s: %w", contestID, f, err)
			}
			views[k] = vw
		case strings.HasPrefix(f, fieldUser):
			if u, err := dec.user(f, v); err == nil {
				users[u.ID] = u
			}
		}
	}
	if err := b.fillUsers(ctx, key, views, users); err != nil {
		return fmt.Errorf("scoreboard: read contest %d: %w", contestID, err)
	}
	dec.viewMap, dec.userMap = views, users
	dec.gen, dec.seq, dec.read, dec.fullAt = ver.Gen, ver.Seq, true, time.Now()
	dec.wholeReads++
	return nil
}

// fillUsers reads the users of views that the scan did not return. A
// field added while HSCAN runs may come back or not: the view of a new
// cell can come without its user (written just before it, into a bucket
// the scan had passed). Its row was then named "#id" in one document and
// by the username in the next, so the hub saw a row leave and pushed the
// whole board to every browser (a delta could not remove a row then). The user is
// always written before the view (upsertScript), so it is there now.
func (b *Board) fillUsers(ctx context.Context, key string, views map[CellKey]View, users map[int64]User) error {
	var fields []string
	asked := map[int64]bool{}
	for k := range views {
		if k.TeamID != 0 || k.UserID == 0 || asked[k.UserID] {
			continue
		}
		if _, ok := users[k.UserID]; !ok {
			asked[k.UserID] = true
			fields = append(fields, fieldUser+strconv.FormatInt(k.UserID, 10))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	vals, err := b.rdb.HMGet(ctx, key, fields...).Result()
	if err != nil {
		return err
	}
	for _, v := range vals {
		if s, ok := v.(string); ok {
			var u User
			if json.Unmarshal([]byte(s), &u) == nil && u.ID != 0 {
				users[u.ID] = u
			}
		}
	}
	return nil
}

// CurrentVersion is the board's Version now, read without its views.
func (b *Board) CurrentVersion(ctx context.Context, contestID int64) (Version, error) {
	at := time.Now()
	hv, err := b.rdb.HMGet(ctx, b.n.ScoreboardViews(contestID), fieldGen, fieldSeq).Result()
	if err != nil {
		return Version{}, fmt.Errorf("scoreboard: read contest %d's version: %w", contestID, err)
	}
	gen, _ := hv[0].(string)
	seqText, _ := hv[1].(string)
	seq, _ := strconv.ParseInt(seqText, 10, 64)
	return Version{Gen: gen, Seq: seq, At: at}, nil
}

// Exists reports whether a contest has a whole board in Redis: one that
// Rebuild made from MySQL (even without a cell), to which every later
// result was added. Cells alone do not count: after Redis lost the board,
// the next result recreates the hash with that one cell, and taking it for
// the board left every other row off it for good (the rehearsal's check,
// which drops the board while results still flow, saw a "rebuilt" board
// of 3 rows out of 3,000).
//
// Both hashes must have it: a Redis that evicted or lost one of them (a
// result then recreates it with one cell) holds no whole board, and a
// board made before the views had a hash of their own is made again.
func (b *Board) Exists(ctx context.Context, contestID int64) (bool, error) {
	pipe := b.rdb.Pipeline()
	entries := pipe.HExists(ctx, b.n.Scoreboard(contestID), fieldBuilt)
	views := pipe.HExists(ctx, b.n.ScoreboardViews(contestID), fieldBuilt)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, fmt.Errorf("scoreboard: contest %d: %w", contestID, err)
	}
	return entries.Val() && views.Val(), nil
}

// keys are the KEYS of the scripts: a contest's entries, views and
// views' changes.
func (b *Board) keys(contestID int64) []string {
	return []string{b.n.Scoreboard(contestID), b.n.ScoreboardViews(contestID), b.n.ScoreboardChanges(contestID)}
}

// Rebuild makes a contest's board agree with entries (every submission of
// the contest, as MySQL has them) and re-derives every cell's views with
// the current Params (after a Redis loss, or when the contest's window or
// freeze changed). It merges rather than replaces, so results applied
// concurrently are not lost.
func (b *Board) Rebuild(ctx context.Context, c Contest, users map[int64]User, entries []CellEntry) error {
	// The users' names first: an entry the board still holds changes
	// nothing and writes no name, and the views' hash may be the one
	// that was lost.
	names := make(map[int64][]byte)
	for _, ce := range entries {
		if _, done := names[ce.UserID]; done || ce.TeamID != 0 || ce.UserID == 0 {
			continue // a team's row is named from MySQL (Team)
		}
		u, ok := users[ce.UserID]
		if !ok {
			u = User{ID: ce.UserID}
		}
		names[ce.UserID], _ = json.Marshal(u)
	}
	batch := make([]any, 0, 2*min(len(names), 500))
	n := 0
	for id, uj := range names {
		batch = append(batch, fieldUser+strconv.FormatInt(id, 10), string(uj))
		if n++; len(batch) == cap(batch) || n == len(names) {
			if err := usersScript.Run(ctx, b.rdb, b.keys(c.ID), batch...).Err(); err != nil {
				return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
			}
			batch = batch[:0]
		}
	}
	for _, ce := range entries {
		u, ok := users[ce.UserID]
		if !ok {
			u = User{ID: ce.UserID}
		}
		if _, err := b.ApplyCell(ctx, c, ce.CellKey, u, ce.Entry); err != nil {
			return err
		}
	}
	// Re-derive every cell, changed or not: Params may differ.
	key := b.n.Scoreboard(c.ID)
	kv, err := b.scan(ctx, key, fieldEntries+"*")
	if err != nil {
		return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		cell := kv[i][len(fieldEntries):]
		ver, err := b.rdb.HIncrBy(ctx, key, fieldVersion+cell, 1).Result()
		if err != nil {
			return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
		}
		raw, err := b.rdb.HGet(ctx, key, fieldEntries+cell).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
		}
		if _, err := b.storeView(ctx, c, cell, ver, raw); err != nil {
			return err
		}
	}
	if err := b.dropOldViews(ctx, key); err != nil {
		return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
	}
	for _, k := range []string{b.n.Scoreboard(c.ID), b.n.ScoreboardViews(c.ID)} {
		if err := b.rdb.HSet(ctx, k, fieldBuilt, 1).Err(); err != nil {
			return fmt.Errorf("scoreboard: rebuild contest %d: %w", c.ID, err)
		}
	}
	return nil
}

// dropOldViews deletes the views and users that a board made before they
// had a hash of their own kept in its entries' hash (never read again).
func (b *Board) dropOldViews(ctx context.Context, key string) error {
	kv, err := b.scan(ctx, key, viewsAndUsers)
	if err != nil || len(kv) == 0 {
		return err
	}
	fields := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, kv[i])
	}
	return b.rdb.HDel(ctx, key, fields...).Err()
}

// scanPage is the fields a page of scan asks for (HSCAN's COUNT): in
// pages, Redis serves others between them.
const scanPage = 1000

// scanRetry is how long scan starts again a scan a restart cut.
const scanRetry = 3 * time.Second

// scan returns the field, value pairs of the hash key (the fields
// matching match; "": all; a field may come twice), read in pages on one
// connection (redisconn.OnOneConn). A cursor is a place in one server's
// table: pages read with it from a Redis that restarted meanwhile (the
// client dials again, the loading wait lets it) skipped fields. A scan
// cut so starts again from its first page, for up to scanRetry.
func (b *Board) scan(ctx context.Context, key, match string) ([]string, error) {
	var all []string
	err := redisconn.Again(ctx, scanRetry, redisconn.Unreached, func() error {
		all = all[:0]
		return redisconn.OnOneConn(ctx, b.rdb, key, func(c *redis.Conn) error {
			var cursor uint64
			for {
				kv, next, err := c.HScan(ctx, key, cursor, match, scanPage).Result()
				if err != nil {
					return err
				}
				all = append(all, kv...)
				if cursor = next; cursor == 0 {
					return nil
				}
			}
		})
	})
	return all, err
}

// Delete drops a contest's board (tests, or before a rebuild from
// scratch).
func (b *Board) Delete(ctx context.Context, contestID int64) error {
	if err := b.rdb.Del(ctx, b.keys(contestID)...).Err(); err != nil {
		return fmt.Errorf("scoreboard: delete contest %d: %w", contestID, err)
	}
	return nil
}

// ForgetCell drops the entries of one cell (its view stays until the next
// Apply): after a verdict was set by hand for an attempt the cell already
// holds, the caller applies the cell's entries again, as MySQL has them.
func (b *Board) ForgetCell(ctx context.Context, contestID int64, k CellKey) error {
	if err := b.rdb.HDel(ctx, b.n.Scoreboard(contestID), fieldEntries+cellName(k)).Err(); err != nil {
		return fmt.Errorf("scoreboard: forget cell %s of contest %d: %w", cellName(k), contestID, err)
	}
	return nil
}
