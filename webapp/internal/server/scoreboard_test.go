package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestScoreboardFreeze: the public board hides results of submissions
// made during the freeze (pending), staff see the live board, unfreeze
// reveals; the board is published on the contest channel.
func TestScoreboardFreeze(t *testing.T) {
	now := time.Now()
	var clock time.Time = now
	je := newJudgeEnv(t, func(c *Config) { c.Now = func() time.Time { return clock } })
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid, _ := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: now.Add(-2 * time.Hour),
		EndAt: now.Add(90 * time.Minute), FreezeMinutes: 60, Registration: "open", Visible: true})
	_ = je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100)
	alice, bob := je.student("alice"), je.student("bob")
	sub := func(c *client, key string) int64 {
		r := c.submit(key, map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		return id(r)
	}
	a1 := sub(alice, "a1")
	je.judge(a1, 1, protocol.VerdictWA, 2)
	a2 := sub(alice, "a2")
	je.judge(a2, 1, protocol.VerdictAC, 2)
	je.consume()
	board := func(c *client, q string) map[string]any {
		r := c.do("GET", "/api/contests/c1/scoreboard"+q, nil)
		if r.status != 200 {
			t.Fatalf("scoreboard: %d %s", r.status, r.raw)
		}
		return r.body
	}
	cell := func(b map[string]any, user string) map[string]any {
		for _, row := range b["rows"].([]any) {
			r := row.(map[string]any)
			if r["user"] == user {
				return r["problems"].(map[string]any)["A"].(map[string]any)
			}
		}
		return nil
	}
	b := board(bob, "")
	if c := cell(b, "alice"); c == nil || c["solved"] != true || c["attempts"] != float64(2) || c["first_blood"] != true {
		t.Fatalf("before the freeze: %v", b)
	}
	if row := b["rows"].([]any)[0].(map[string]any); row["penalty"].(float64) < 20 || row["rank"] != float64(1) {
		t.Fatalf("row %v", row)
	}
	// The freeze starts; bob solves during it.
	clock = now.Add(40 * time.Minute)
	je.rdb.HSet(ctx, je.names.Judge("judge-1"), judging.FieldSeenMs, clock.UnixMilli())
	b1 := sub(bob, "b1")
	// Submitted in the freeze: pending on the public board while judged.
	if c := cell(board(alice, ""), "bob"); c == nil || c["pending"] != float64(1) {
		t.Fatalf("bob's queued submission: %v", c)
	}
	// The submission's time is MySQL's clock: move it into the freeze.
	if _, err := je.st.DB.Exec("UPDATE submissions SET created_at = ? WHERE id = ?", clock.UTC(), b1); err != nil {
		t.Fatal(err)
	}
	je.srv.Judging().Board().Delete(ctx, cid) // rebuilt from MySQL on the next read
	je.judge(b1, 1, protocol.VerdictAC, 2)
	je.consume()
	pub := board(alice, "")
	if pub["frozen"] != true {
		t.Fatalf("not frozen: %v", pub)
	}
	if c := cell(pub, "bob"); c == nil || c["solved"] == true || c["pending"] != float64(1) {
		t.Fatalf("frozen board shows bob's result: %v", c)
	}
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	live := board(admin, "")
	if c := cell(live, "bob"); live["frozen"] != false || c == nil || c["solved"] != true {
		t.Fatalf("admin's live board: %v", live)
	}
	if c := cell(board(admin, "?view=public"), "bob"); c["solved"] == true {
		t.Fatalf("admin's public view shows the frozen result")
	}
	wantErr(t, alice.do("GET", "/api/contests/c1/scoreboard?view=live", nil), 403, CodeForbidden, "view")
	// The published snapshot is the public document.
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	_, state, err := je.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: cid})
	if err != nil || !jsonContains(string(state), `"frozen":true`) {
		t.Fatalf("published state %s, %v", state, err)
	}
	// Unfreeze reveals.
	if r := admin.do("POST", "/api/contests/c1/unfreeze", nil, "X-CSRF-Token", admin.csrf); r.status != 200 {
		t.Fatalf("unfreeze: %d %s", r.status, r.raw)
	}
	rev := board(alice, "")
	if c := cell(rev, "bob"); rev["frozen"] != false || c == nil || c["solved"] != true {
		t.Fatalf("after unfreeze: %v", rev)
	}
	if _, state, _ := je.q.Doc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: cid}); !jsonContains(string(state), `"frozen":false`) {
		t.Fatalf("unfreeze not published: %s", state)
	}
}

// TestPublicBoardServedFromPublished: once a contest's board is published
// on its live channel, a contestant's GET of the scoreboard is served from
// that document (not assembled per request) until the next publish;
// staff get the live board assembled; a board gone from Redis is rebuilt
// from MySQL on the next read rather than served stale.
func TestPublicBoardServedFromPublished(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid := runningContest(t, je)
	alice := je.student("alice")
	submit := func(key string) int64 {
		r := alice.submit(key, map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		return id(r)
	}
	attempts := func(c *client) float64 {
		r := c.do("GET", "/api/contests/c1/scoreboard", nil)
		if r.status != 200 {
			t.Fatalf("scoreboard: %d %s", r.status, r.raw)
		}
		for _, row := range r.body["rows"].([]any) {
			if rw := row.(map[string]any); rw["user"] == "alice" {
				return rw["problems"].(map[string]any)["A"].(map[string]any)["attempts"].(float64)
			}
		}
		return -1
	}
	s1 := submit("k1")
	je.judge(s1, 1, protocol.VerdictWA, 2)
	je.consume()
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if got := attempts(alice); got != 1 {
		t.Fatalf("after the publish: %v attempts, want 1", got)
	}
	// A browser that takes gzip gets the board compressed (once per
	// published board, by the web node): the same document.
	plain := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "identity")
	zipped := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
	if plain.header.Get("Content-Encoding") != "" || zipped.header.Get("Content-Encoding") != "gzip" ||
		!strings.Contains(zipped.header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("encodings: identity %q, gzip %q (Vary %q)", plain.header.Get("Content-Encoding"),
			zipped.header.Get("Content-Encoding"), zipped.header.Get("Vary"))
	}
	zr, err := gzip.NewReader(strings.NewReader(zipped.raw))
	if err != nil {
		t.Fatalf("gzip answer: %v", err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || strings.TrimSpace(string(unzipped)) != strings.TrimSpace(plain.raw) {
		t.Fatalf("gzip answer differs from the plain one (%v):\n%s\n%s", err, unzipped, plain.raw)
	}
	// A second result, not published yet: contestants see the published
	// board (at most one publish interval old), staff the live one.
	s2 := submit("k2")
	je.judge(s2, 1, protocol.VerdictWA, 2)
	je.consume()
	if got := attempts(alice); got != 1 {
		t.Fatalf("before the next publish: %v attempts, want the published 1 (assembled per request?)", got)
	}
	je.user("root", store.RoleAdmin, "root-password")
	admin := je.client()
	admin.login("root", "root-password")
	if got := attempts(admin); got != 2 {
		t.Fatalf("staff's live board: %v attempts, want 2", got)
	}
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if got := attempts(alice); got != 2 {
		t.Fatalf("after the next publish: %v attempts, want 2", got)
	}
	// The board is lost from Redis: the next read rebuilds it from MySQL.
	s3 := submit("k3")
	je.judge(s3, 1, protocol.VerdictWA, 2)
	je.consume()
	if err := je.srv.Judging().Board().Delete(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if got := attempts(alice); got != 3 {
		t.Fatalf("after the board was lost: %v attempts, want 3 rebuilt from MySQL", got)
	}
}

// A node keeps the last published board it served, and serves it while
// the published one is the same. When Redis loses its data the board's
// sequence number starts over: republished to the number of the copy the
// node holds, the new board must be served, not the held one.
func TestHeldBoardNotServedAfterRedisLoss(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid := runningContest(t, je)
	alice := je.student("alice")
	visitor := je.client()
	attempts := func() float64 {
		t.Helper()
		r := visitor.do("GET", "/api/contests/c1/scoreboard", nil)
		if r.status != 200 {
			t.Fatalf("scoreboard: %d %s", r.status, r.raw)
		}
		for _, row := range r.body["rows"].([]any) {
			if rw := row.(map[string]any); rw["user"] == "alice" {
				return rw["problems"].(map[string]any)["A"].(map[string]any)["attempts"].(float64)
			}
		}
		return -1
	}
	wa := func(key string) {
		t.Helper()
		r := alice.submit(key, map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		je.judge(id(r), 1, protocol.VerdictWA, 2)
		je.consume()
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: cid}
	wa("k1")
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	if got := attempts(); got != 1 {
		t.Fatalf("published board: %v attempts, want 1", got)
	}
	if got := attempts(); got != 1 { // served from the node's copy
		t.Fatalf("held board: %v attempts, want 1", got)
	}
	heldSeq, _, _ := je.q.Doc(ctx, ch)
	wa("k2")
	// Redis loses everything; the next publish rebuilds the board from
	// MySQL and starts the channel's sequence over, at the held copy's.
	if err := je.rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for {
		if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
			t.Fatal(err)
		}
		if seq, _, _ := je.q.Doc(ctx, ch); seq >= heldSeq {
			if seq != heldSeq {
				t.Fatalf("sequence %d passed the held %d", seq, heldSeq)
			}
			break
		}
	}
	if got := attempts(); got != 2 {
		t.Fatalf("after Redis lost its data and the board was republished: %v attempts, want 2 (the held copy served)", got)
	}
}

// A contest without submissions has a board too, once built: its
// scoreboard GETs used to rebuild the board from MySQL on every request
// until the first submission made it in Redis (every contestant's first
// look at the board at the start of a contest, all at once). The first GET
// builds it; the later ones, and the publish, do not.
func TestEmptyContestBoardRebuiltOnce(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	now := time.Now()
	cid, _ := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: now.Add(-time.Minute),
		EndAt: now.Add(time.Hour), Registration: "open", Visible: true})
	_ = je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100)
	const rebuilds = "verdict_webapp_scoreboard_rebuilds_total"
	alice, visitor := je.student("alice"), je.client()
	get := func(c *client) {
		t.Helper()
		r := c.do("GET", "/api/contests/c1/scoreboard", nil)
		if r.status != 200 || len(r.body["rows"].([]any)) != 0 {
			t.Fatalf("scoreboard: %d %s", r.status, r.raw)
		}
	}
	for range 5 {
		get(alice)
		get(visitor)
	}
	if n := metricSum(t, je.env, rebuilds); n != 1 {
		t.Fatalf("10 GETs of an empty contest's board rebuilt it %v times from MySQL, want 1", n)
	}
	if err := je.srv.Judging().PublishScoreboard(ctx, cid); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		get(visitor)
	}
	if n := metricSum(t, je.env, rebuilds); n != 1 {
		t.Fatalf("after the publish: %v rebuilds, want 1", n)
	}
	// The first submission's cell joins the built board.
	r := alice.submit("k", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	if doc, err := je.srv.Judging().Scoreboard(ctx, mustContest(t, je.env, "c1"), false); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("live board after the first submission: %+v, %v", doc, err)
	}
	if n := metricSum(t, je.env, rebuilds); n != 1 {
		t.Fatalf("after the first submission: %v rebuilds, want 1", n)
	}
}

func mustContest(t *testing.T, e *env, slug string) *store.Contest {
	t.Helper()
	c, err := e.st.ContestBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// metricSum is the sum of a counter's series in the node's registry.
func metricSum(t *testing.T, e *env, name string) float64 {
	t.Helper()
	mfs, err := e.srv.cfg.Obs.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// A board assembled for one request (nothing published yet) is compressed
// only for a client that takes gzip: it used to be compressed for every
// request, and the compressed copy thrown away for the others.
func TestAssembledBoardCompressedOnlyForGzipClients(t *testing.T) {
	je := newJudgeEnv(t, nil)
	runningContest(t, je)
	alice := je.student("alice")
	if r := alice.submit("k", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"}); r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	const gzips = "verdict_webapp_scoreboard_gzips_total"
	// (Every request names its encodings: Go's client asks for gzip itself
	// when it names none.)
	for _, ae := range []string{"identity", "gzip;q=0", "*;q=0, br", "gzip;q=0, *"} {
		r := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", ae)
		if r.status != 200 || r.header.Get("Content-Encoding") != "" || !strings.Contains(r.header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q, Vary %q", ae, r.status, r.header.Get("Content-Encoding"), r.header.Get("Vary"))
		}
		if n := metricSum(t, je.env, gzips); n != 0 {
			t.Fatalf("Accept-Encoding %q: %v boards compressed for a client that does not take gzip", ae, n)
		}
	}
	if got := metricSum(t, je.env, "verdict_webapp_scoreboard_reads_total"); got != 4 {
		t.Fatalf("%v board reads counted, want 4", got)
	}
	r := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "*;q=0, gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip client: %d, Content-Encoding %q", r.status, r.header.Get("Content-Encoding"))
	}
	if n := metricSum(t, je.env, gzips); n != 1 {
		t.Fatalf("%v boards compressed for one gzip client, want 1", n)
	}
}

// A published board of queue.DocGzipMin bytes or more is stored in Redis
// compressed, and a client that takes gzip gets that stream as it is: the
// node compresses nothing. A client that does not gets the JSON.
func TestPublishedBoardServedAsStoredGzip(t *testing.T) {
	je := newJudgeEnv(t, nil)
	cid := runningContest(t, je)
	alice := je.student("alice")
	if r := alice.submit("k", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"}); r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	ctx := context.Background()
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: cid}
	// A first read builds the board in Redis; then a big board is
	// published (as a contest of many contestants would publish it).
	if r := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "identity"); r.status != 200 {
		t.Fatalf("scoreboard: %d %s", r.status, r.raw)
	}
	big := bigBoardDoc(200)
	if big.Len() < queue.DocGzipMin {
		t.Fatalf("the board is %d bytes, under %d: the test tests nothing", big.Len(), queue.DocGzipMin)
	}
	if _, err := je.q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{}`), []byte(big.String())); err != nil {
		t.Fatal(err)
	}
	const gzips = "verdict_webapp_scoreboard_gzips_total"
	before := metricSum(t, je.env, gzips)
	r := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "gzip")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip client: %d, Content-Encoding %q", r.status, r.header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader([]byte(r.raw)))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || string(b) != big.String() {
		t.Fatalf("the gzip body reads as %d bytes, %v; want the published %d", len(b), err, big.Len())
	}
	if n := metricSum(t, je.env, gzips) - before; n != 0 {
		t.Fatalf("%v boards compressed; want none, the stored stream served", n)
	}
	if r := alice.do("GET", "/api/contests/c1/scoreboard", nil, "Accept-Encoding", "identity"); r.status != 200 || r.raw != big.String()+"\n" {
		t.Fatalf("identity client: %d, %d bytes; want the published %d", r.status, len(r.raw), big.Len())
	}
}

// Readers that find a new board published read it once for all of them,
// and none decompresses it to serve a client that takes gzip.
func TestNewPublishedBoardReadOnceForItsReaders(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	cid, c := solvedContest(t, je)
	if _, err := je.srv.judging.PublicBoard(ctx, &c); err != nil { // builds the board in Redis
		t.Fatal(err)
	}
	big := bigBoardDoc(300)
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: cid}
	if _, err := je.q.PublishDoc(ctx, ch, protocol.EventScoreboard, []byte(`{}`), []byte(big.String())); err != nil {
		t.Fatal(err)
	}
	slow := &slowKeyHook{key: je.names.LiveState(string(protocol.ChannelContest), cid), d: 200 * time.Millisecond, cmds: []string{"hmget"}}
	je.rdb.AddHook(slow)
	slow.on.Store(true)
	const readers = 8
	got := publicBoardsAtOnce(t, je, &c, readers)
	slow.on.Store(false)
	if n := slow.n.Load(); n != 1 {
		t.Errorf("%d reads of the published board for %d readers at once, want 1", n, readers)
	}
	for i, b := range got {
		if b == nil || b != got[0] {
			t.Fatalf("reader %d got board %p, reader 0 %p", i, b, got[0])
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(got[0].Gzip()))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || string(b) != big.String() {
		t.Fatalf("the stored stream reads as %d bytes, %v", len(b), err)
	}
	if raw, err := got[0].JSON(); err != nil || string(raw) != big.String() {
		t.Fatalf("the board decompressed: %d bytes, %v", len(raw), err)
	}
}

// publicBoardsAtOnce has readers read c's public board at once, each on
// a deadline of its own, and returns what each got (nil: an error, which
// fails the test).
func publicBoardsAtOnce(t *testing.T, je *judgeEnv, c *store.Contest, readers int) []*judging.BoardBody {
	t.Helper()
	got := make([]*judging.BoardBody, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b, err := je.srv.judging.PublicBoard(rctx, c)
			if err != nil {
				t.Errorf("reader %d: %v", i, err)
			}
			got[i] = b
		})
	}
	wg.Wait()
	return got
}

// bigBoardDoc is a published board of rows contestants, as a contest of
// many would publish it (over queue.DocGzipMin from 100 rows).
func bigBoardDoc(rows int) *strings.Builder {
	var big strings.Builder
	big.WriteString(`{"rule":"icpc","frozen":false,"full":true,"rows":[`)
	for i := range rows {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprintf(&big, `{"rank":%d,"user":"u%03d","user_id":%d,"display_name":"U %d","solved":0,"penalty":0,"score":0,"problems":{}}`, i+1, i, i+1000, i)
	}
	big.WriteString(`]}`)
	return &big
}

// metricWith is the value of a counter's series whose label has value.
func metricWith(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// Readers that find the published board unusable at once (the freeze's
// first second: the published board is still the unfrozen one) share one
// assembly. In the rehearsal of 2026-12-05 07:01 about 80 readers each
// assembled the 3,000-row board on their own at the freeze and ran out
// their deadlines together.
func TestPublicBoardAssembledOnceForItsReaders(t *testing.T) {
	je := newJudgeEnv(t, nil)
	cid, c := solvedContest(t, je)
	const reads = "verdict_webapp_scoreboard_reads_total"
	before := metricWith(t, je.srv.cfg.Obs.Registry, reads, "from", "assembled")
	slow := &slowKeyHook{key: je.names.Scoreboard(cid), d: 200 * time.Millisecond, cmds: []string{"hscan"}}
	je.rdb.AddHook(slow)
	slow.on.Store(true)
	const readers = 8
	bodies := make([]string, readers)
	for i, b := range publicBoardsAtOnce(t, je, &c, readers) {
		if b == nil {
			continue
		}
		raw, err := b.JSON()
		if err != nil {
			t.Errorf("reader %d: %v", i, err)
			continue
		}
		bodies[i] = string(raw)
	}
	slow.on.Store(false)
	if n := metricWith(t, je.srv.cfg.Obs.Registry, reads, "from", "assembled") - before; n != 1 {
		t.Fatalf("%v assemblies for %d readers at once, want 1", n, readers)
	}
	for i, b := range bodies {
		if b == "" || b != bodies[0] || !strings.Contains(b, `"alice"`) {
			t.Fatalf("reader %d got %q, reader 0 %q", i, b, bodies[0])
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false}, // no header: not assumed
		{"gzip", true},
		{"GZip", true},
		{"x-gzip", true},
		{"gzip, deflate, br", true},
		{"deflate, GZIP;q=0.5", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"br", false},
		{"identity", false},
		{"identity, *;q=0", false},
		{"gzip;q=0", false},
		{"gzip;Q=0", false},
		{"gzip; q=0.000", false},
		{"gzip ; q = 0", false},
		{"gzip;q=0.001", true},
		{"gzip;q=1", true},
		{"gzip;q=1.000", true},
		{"gzip;q=1.", true},
		{"gzip;q=0.", false},
		// The most specific entry wins, wherever it is.
		{"*;q=0, gzip", true},
		{"gzip, *;q=0", true},
		{"gzip;q=0, *", false},
		{"*, gzip;q=0", false},
		{"*", true},
		{"*;q=0", false},
		{"*;q=0.5, br", true},
		{"br, identity;q=0, *", true},
		// Two entries of one coding: the heavier.
		{"gzip;q=0, gzip;q=0.5", true},
		{"gzip;q=0, x-gzip;q=0", false},
		// A malformed weight leaves its entry out.
		{"gzip;q=abc", false},
		{"gzip;q=2", false},
		{"gzip;q=1.5", false},
		{"gzip;q=0.1234", false},
		{"gzip;q=-1", false},
		{"gzip;q=", false},
		{"gzip;q=0;q=1", false},
		{"gzip;q=abc, *", true},
		{"gzip;q=abc, *;q=0", false},
		// Not a q: passed over.
		{"gzip;level=9", true},
		{"gzip;level=9;q=0", false},
		// Lists: empty elements, spaces, several lines.
		{" , ,gzip , ", true},
		{",", false},
		{"gzipped", false},
		{"gzip2, xgzip", false},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		if tc.header != "" {
			r.Header.Set("Accept-Encoding", tc.header)
		}
		if got := acceptsGzip(r); got != tc.want {
			t.Errorf("Accept-Encoding %q: %v, want %v", tc.header, got, tc.want)
		}
	}
	// Header lines are one list.
	for _, tc := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"br", "gzip"}, true},
		{[]string{"*;q=0", "gzip"}, true},
		{[]string{"gzip;q=0", "*"}, false},
		{[]string{"identity", "br"}, false},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header["Accept-Encoding"] = tc.lines
		if got := acceptsGzip(r); got != tc.want {
			t.Errorf("Accept-Encoding lines %q: %v, want %v", tc.lines, got, tc.want)
		}
	}
}

func TestParseQValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"1", 1000, true}, {"0.5", 500, true}, {"0.05", 50, true}, {"0.123", 123, true},
		{"1.0", 1000, true}, {"1.000", 1000, true}, {"0.", 0, true}, {"1.", 1000, true},
		{"", 0, false}, {"1.001", 0, false}, {"0.1234", 0, false}, {"2", 0, false}, {".5", 0, false},
		{"0,5", 0, false}, {"0.5x", 0, false}, {"01", 0, false}, {"0.-1", 0, false}, {"+1", 0, false},
	} {
		got, ok := parseQValue(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseQValue(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// asciiUpper upper-cases ASCII letters only (strings.ToUpper maps some
// non-ASCII letters onto ASCII ones: "ı" to "I").
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// FuzzAcceptsGzip: the parser never panics, and keeps the properties any
// reading of RFC 9110 has: an appended plain "gzip" is accepted; an
// appended other coding, an empty element or a change of ASCII case
// changes nothing; a first "gzip;q=0" entry with no other explicit gzip
// entry refuses it.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"", "gzip", "gzip;q=0", "*;q=0, gzip", "gzip;q=0, *", "br;q=1.0, gzip;q=0.8",
		"identity", "*", "x-gzip;q=0.5", "gzip;q=abc, *", "gzip ; q = 0.001", ",,;;==", "gzip;q=1.000;q=0"} {
		f.Add(s)
	}
	accepts := func(h string) bool {
		r := &http.Request{Header: http.Header{}}
		r.Header.Set("Accept-Encoding", h)
		return acceptsGzip(r)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got := accepts(h)
		if !accepts(h + ", gzip") {
			t.Errorf("%q + \", gzip\": refused", h)
		}
		if accepts(h+", br;q=0.5") != got || accepts(h+", ,") != got || accepts(", "+h) != got {
			t.Errorf("%q: an unrelated element changed the answer (%v)", h, got)
		}
		if accepts(asciiUpper(h)) != got {
			t.Errorf("%q: upper case changed the answer (%v)", h, got)
		}
		if !strings.Contains(strings.ToLower(h), "gzip") && accepts("gzip;q=0, "+h) {
			t.Errorf("%q after gzip;q=0: accepted", h)
		}
	})
}

// TestBoardLostWhileResultsFlowIsRebuiltWhole: Redis loses a contest's
// board and the next result recreates it with only its own cell; the
// board is still rebuilt from MySQL (its "built" mark is gone), so
// every contestant stays on it.
func TestBoardLostWhileResultsFlowIsRebuiltWhole(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid := runningContest(t, je)
	staff := je.staffOf("root")
	rows := func() []string {
		t.Helper()
		r := staff.do("GET", "/api/contests/c1/scoreboard", nil)
		if r.status != 200 {
			t.Fatalf("scoreboard: %d %s", r.status, r.raw)
		}
		var names []string
		for _, row := range r.body["rows"].([]any) {
			names = append(names, row.(map[string]any)["user"].(string))
		}
		slices.Sort(names)
		return names
	}
	submit := func(c *client, key string) int64 {
		t.Helper()
		r := c.submit(key, map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
		if r.status != 201 {
			t.Fatalf("submit: %d %s", r.status, r.raw)
		}
		return id(r)
	}
	alice, bob := je.student("alice"), je.student("bob")
	je.judge(submit(alice, "a1"), 1, protocol.VerdictWA, 1)
	je.consume()
	late := submit(bob, "b1")
	if got := rows(); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Fatalf("rows %v", got)
	}
	if err := je.rdb.Del(ctx, je.names.Scoreboard(cid)).Err(); err != nil {
		t.Fatal(err)
	}
	je.judge(late, 1, protocol.VerdictAC, 1) // recreates the board with bob's cell only
	je.consume()
	if got := rows(); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Fatalf("rows after the board was lost and one result came: %v, want alice and bob", got)
	}
}

// runningContest creates contest c1, running for an hour either side of
// now, open, visible, with the env's problem as A.
func runningContest(t *testing.T, je *judgeEnv) int64 {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	cid, err := je.st.CreateContest(ctx, store.Contest{Slug: "c1", Title: "C", Rule: "icpc", StartAt: now.Add(-time.Hour),
		EndAt: now.Add(time.Hour), Registration: "open", Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := je.st.AddContestProblem(ctx, cid, je.problem.ID, "A", 100); err != nil {
		t.Fatal(err)
	}
	return cid
}

// solvedContest is a running contest (runningContest) where alice has
// solved A, judged and consumed, and the contest as the store has it.
func solvedContest(t *testing.T, je *judgeEnv) (int64, store.Contest) {
	t.Helper()
	ctx := context.Background()
	_ = je.q.EnsureResultsGroup(ctx)
	cid := runningContest(t, je)
	r := je.student("alice").submit("a1", map[string]any{"problem": "a-plus-b", "contest": "c1", "language": "py3", "source": "x"})
	if r.status != 201 {
		t.Fatalf("submit: %d %s", r.status, r.raw)
	}
	je.judge(id(r), 1, protocol.VerdictAC, 1)
	je.consume()
	c, err := je.st.ContestByID(ctx, cid)
	if err != nil {
		t.Fatal(err)
	}
	return cid, c
}

// slowKeyHook delays every write (HSET, HINCRBY) that names key while
// on: a rebuild writes, a reader only reads. cmds, when set, are the
// commands it delays instead.
type slowKeyHook struct {
	key  string
	d    time.Duration
	on   atomic.Bool
	cmds []string
	n    atomic.Int64 // commands slowed
}

func (h *slowKeyHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *slowKeyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *slowKeyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		cmds := h.cmds
		if cmds == nil {
			cmds = []string{"hset", "hincrby"}
		}
		if h.on.Load() && slices.Contains(cmds, cmd.Name()) &&
			slices.ContainsFunc(cmd.Args(), func(a any) bool { s, ok := a.(string); return ok && s == h.key }) {
			h.n.Add(1)
			time.Sleep(h.d)
		}
		return next(ctx, cmd)
	}
}

// A lost board is rebuilt once for all the readers that find it missing,
// and the rebuild goes on when they give up: each reader rebuilding on its
// own request's deadline threw the work away under load (at 3,000
// contestants a rebuild did not fit in 5 s, and every retry started over).
func TestBoardRebuildOutlivesItsReaders(t *testing.T) {
	je := newJudgeEnv(t, nil)
	ctx := context.Background()
	cid, c := solvedContest(t, je)
	if err := je.rdb.Del(ctx, je.names.Scoreboard(cid)).Err(); err != nil {
		t.Fatal(err)
	}
	before := metricSum(t, je.env, "verdict_webapp_scoreboard_rebuilds_total")
	slow := &slowKeyHook{key: je.names.Scoreboard(cid), d: 150 * time.Millisecond}
	je.rdb.AddHook(slow)
	slow.on.Store(true)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			if _, err := je.srv.judging.Scoreboard(rctx, &c, false); err == nil {
				t.Error("a reader got the board before the slowed rebuild could end: the test tests nothing")
			}
		})
	}
	wg.Wait()
	slow.on.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, err := scoreboard.New(je.rdb, je.names).Exists(ctx, cid)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the board was not rebuilt after its readers gave up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := metricSum(t, je.env, "verdict_webapp_scoreboard_rebuilds_total") - before; n != 1 {
		t.Fatalf("%v rebuilds for 4 readers, want 1", n)
	}
	doc, err := je.srv.judging.Scoreboard(ctx, &c, false)
	if err != nil || len(doc.Rows) != 1 {
		t.Fatalf("board after the rebuild: %d rows, %v", len(doc.Rows), err)
	}
}
