package judging

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/queue"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Scoreboard returns a contest's scoreboard document. public selects what
// everyone may see: while the contest is frozen, the results of
// submissions made after the freeze are hidden (shown as pending);
// otherwise (staff) the live board. Only registered users are on a board
// (a by-list contest's list; in an open contest, every student who
// submitted, registered by their first submission): staff who tried a
// problem in the contest unregistered are not. A contest whose board is missing
// from Redis (lost, or never built) is rebuilt from MySQL first.
func (s *Service) Scoreboard(ctx context.Context, c *store.Contest, public bool) (scoreboard.Doc, error) {
	doc, _, err := s.assemble(ctx, c, public)
	return doc, err
}

// assemble is Scoreboard, with the Version of the board state the
// document was assembled from.
func (s *Service) assemble(ctx context.Context, c *store.Contest, public bool) (scoreboard.Doc, scoreboard.Version, error) {
	views, users, ver, err := s.board.VersionedViews(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, ver, err
	}
	// Not made from MySQL (never, or Redis lost it and results since
	// made a few cells): rebuild it, once; results merge into it.
	exists, err := s.board.Exists(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, ver, err
	}
	if !exists {
		if err := s.rebuildShared(ctx, c); err != nil {
			return scoreboard.Doc{}, ver, err
		}
		if views, users, ver, err = s.board.VersionedViews(ctx, c.ID); err != nil {
			return scoreboard.Doc{}, ver, err
		}
	}
	// Only registered users are on the board: one who was removed keeps
	// their submissions (and their cells in Redis, should they be
	// registered again) but leaves the ranking; so do staff who submitted
	// without registering.
	var teams map[int64]scoreboard.Team
	if c.TeamMode {
		// A team contest's rows are its teams (the public's without the
		// hidden groups'); cells of users (staff testing, submissions
		// from before it became a team contest) are left off.
		if teams, err = s.boardTeams(ctx, c, public); err != nil {
			return scoreboard.Doc{}, ver, err
		}
		for k := range views {
			if _, ok := teams[k.TeamID]; !ok || k.TeamID == 0 {
				delete(views, k)
			}
		}
	} else {
		listed, err := s.participants(ctx, c.ID, func(yield func(int64) bool) {
			for k := range views {
				if k.TeamID == 0 && !yield(k.UserID) {
					return
				}
			}
		})
		if err != nil {
			return scoreboard.Doc{}, ver, err
		}
		for k := range views {
			if k.TeamID != 0 || !listed[k.UserID] {
				delete(views, k)
			}
		}
	}
	cps, err := s.st.ContestProblems(ctx, c.ID)
	if err != nil {
		return scoreboard.Doc{}, ver, err
	}
	labels := make(map[int64]string, len(cps))
	for _, p := range cps {
		labels[p.ProblemID] = p.Label
	}
	frozen := public && publicFrozen(c, s.cfg.Now())
	return scoreboard.AssembleTeams(c.Rule, views, users, teams, labels, frozen, frozen), ver, nil
}

// PublicBoard is the public scoreboard of a running or finished contest as
// last published on its live channel (at most PublishInterval old): what
// GET /api/contests/{slug}/scoreboard serves everyone but staff, without
// assembling the board per request. At 3,000 contestants assembling it
// reads every cell from Redis and takes tens of milliseconds; contestants
// reload it all contest long. When nothing was published yet, the board is
// gone from Redis (it is then rebuilt from MySQL) or the published one
// disagrees with the freeze as it is now, it is assembled as before.
func (s *Service) PublicBoard(ctx context.Context, c *store.Contest) (*BoardBody, error) {
	if !c.Visible {
		// Only staff reach a hidden contest's board, and its live channel
		// carries no rows (PublishScoreboard): assemble it.
		doc, err := s.Scoreboard(ctx, c, true)
		if err != nil {
			return nil, err
		}
		s.boardReads.WithLabelValues("assembled").Inc()
		return s.newBoardBody(json.Marshal(doc))
	}
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: c.ID}
	wantFrozen := publicFrozen(c, s.cfg.Now())
	// The copy this node served last, if it is still the published one
	// (one small read instead of the whole document).
	s.mu.Lock()
	held := s.bodies[c.ID]
	s.mu.Unlock()
	if held != nil && held.frozen == wantFrozen {
		ver, err := s.q.DocVersion(ctx, ch)
		if err != nil {
			return nil, err
		}
		exists, err := s.board.Exists(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		// The version, not the sequence number alone: after Redis lost
		// its data the sequence starts over and meets the held one's.
		if exists && ver == held.ver {
			s.boardReads.WithLabelValues("held").Inc()
			return held, nil
		}
	}
	// One read of a new version for every request that finds the held
	// one stale (share): each did it on its own, the stored board
	// decompressed, before.
	b, err := s.share(ctx, s.reading, c.ID, "published board", ReadPublishedTimeout, func(ctx context.Context) (*BoardBody, error) {
		return s.readPublished(ctx, ch, c.ID)
	})
	if err != nil {
		return nil, err
	}
	if b != nil && b.frozen == wantFrozen {
		s.boardReads.WithLabelValues("published").Inc()
		s.mu.Lock()
		s.bodies[c.ID] = b
		s.mu.Unlock()
		return b, nil
	}
	return s.assembleShared(ctx, c)
}

// ReadPublishedTimeout bounds the shared read of a newly published board.
const ReadPublishedTimeout = 5 * time.Second

// readPublished reads the board published on ch, as stored: nil when
// there is none, the board is missing from Redis (it is then rebuilt and
// assembled), or it is not a board. Only its head is decompressed, for
// the freeze: a request that takes gzip is answered with the stored
// stream.
func (s *Service) readPublished(ctx context.Context, ch protocol.Channel, contestID int64) (*BoardBody, error) {
	ver, stored, err := s.q.VersionedDocStored(ctx, ch)
	if err != nil || stored.Empty() {
		return nil, err
	}
	exists, err := s.board.Exists(ctx, contestID)
	if err != nil || !exists {
		return nil, err
	}
	// The freeze is in the document's head (boarddoc.Doc: rule, then
	// frozen): no need to read hundreds of kilobytes to find it.
	head, err := stored.Head(64)
	if err != nil {
		return nil, fmt.Errorf("judging: published board of contest %d: %w", contestID, err)
	}
	if !bytes.HasPrefix(head, []byte(`{"rule":`)) {
		return nil, nil
	}
	return &BoardBody{stored: stored, ver: ver, frozen: bytes.Contains(head, []byte(`"frozen":true`)), gz: stored.Gzip(), gzips: s.boardGzips}, nil
}

// BoardBody is a public scoreboard as a web node serves it: the document,
// and the same compressed with gzip, made once, on the first request that
// accepts it, for every later one (a 3,000-contestant board is hundreds of
// kilobytes; compressing it per request cost nginx more CPU than anything
// else it did in the contest rehearsal). A published board is stored in
// Redis compressed (queue.DocGzipMin): that stream is served as it is.
type BoardBody struct {
	raw    json.RawMessage  // assembled (a published board: stored)
	stored *queue.StoredDoc // published (nil: assembled)
	ver    queue.DocVersion // the published document's version (zero: assembled)
	frozen bool
	once   sync.Once
	gz     []byte
	gzips  prometheus.Counter // counts Gzip's compressions
}

func (s *Service) newBoardBody(raw []byte, err error) (*BoardBody, error) {
	if err != nil {
		return nil, err
	}
	return &BoardBody{raw: raw, gzips: s.boardGzips}, nil
}

// JSON is the board's document: a published board stored compressed is
// decompressed on the first call (a client that does not take gzip).
func (b *BoardBody) JSON() (json.RawMessage, error) {
	if b.stored != nil {
		return b.stored.JSON() // decompressed once, by the StoredDoc
	}
	return b.raw, nil
}

// Gzip returns Raw compressed (nil if compression failed, which it does
// not on a bytes.Buffer).
func (b *BoardBody) Gzip() []byte {
	b.once.Do(func() {
		if b.gz != nil {
			return // as it was stored
		}
		raw, err := b.JSON()
		if err != nil {
			return
		}
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if err != nil {
			return
		}
		if _, err := zw.Write(raw); err != nil {
			return
		}
		if zw.Close() == nil {
			b.gz = buf.Bytes()
		}
		if b.gzips != nil {
			b.gzips.Inc()
		}
	})
	return b.gz
}

// RebuildBoard rebuilds a contest's board from its submissions in MySQL.
// The board exists in Redis afterwards, without submissions too
// (scoreboard.Board.Rebuild marks it): a contest's board is rebuilt once,
// not on every read until its first submission.
func (s *Service) RebuildBoard(ctx context.Context, c *store.Contest) error {
	s.boardRebuilds.Inc()
	subs, err := s.st.ContestSubmissions(ctx, c.ID)
	if err != nil {
		return err
	}
	users := map[int64]scoreboard.User{}
	entries := make([]scoreboard.CellEntry, 0, len(subs))
	for i := range subs {
		sub := &subs[i]
		users[sub.UserID] = scoreboard.User{ID: sub.UserID, Username: sub.Username, DisplayName: sub.DisplayName}
		entries = append(entries, scoreboard.CellEntry{CellKey: BoardKey(c, sub), Entry: BoardEntry(sub)})
	}
	if err := s.board.Rebuild(ctx, BoardContest(c), users, entries); err != nil {
		return err
	}
	if len(entries) > 0 {
		s.log.Info("scoreboard rebuilt from MySQL", "contest_id", c.ID, "submissions", len(entries))
	}
	return nil
}

// RebuildTimeout bounds a board rebuild that readers share
// (rebuildShared).
const RebuildTimeout = time.Minute

// AssembleTimeout bounds an assembly of a public board that readers share
// (assembleShared).
const AssembleTimeout = 30 * time.Second

// flight is one piece of board work per contest that readers wait for
// (share): a rebuild, or an assembly and its body.
type flight struct {
	done chan struct{}
	body *BoardBody
	err  error
}

// share runs work for a contest once for every reader that asks while it
// runs (flights holds the one in flight), on a deadline of its own
// (timeout, and the node's stop): a reader waits for it at most until its
// own deadline, and the work goes on when the reader gives up, for the
// readers that come next. Each reader doing it on its own request's
// deadline threw the work away under load and multiplied it.
func (s *Service) share(ctx context.Context, flights map[int64]*flight, id int64, what string, timeout time.Duration, work func(context.Context) (*BoardBody, error)) (*BoardBody, error) {
	s.mu.Lock()
	f := flights[id]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		flights[id] = f
		s.jobs.Go(func() {
			wctx, cancel := context.WithTimeout(s.jobsCtx, timeout)
			defer cancel()
			f.body, f.err = work(wctx)
			s.mu.Lock()
			delete(flights, id)
			s.mu.Unlock()
			close(f.done)
		})
	}
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.body, f.err
	case <-ctx.Done():
		return nil, fmt.Errorf("judging: board of contest %d: waiting for its %s: %w", id, what, ctx.Err())
	}
}

// rebuildShared rebuilds a contest's board once for every reader that
// finds it missing (share): at 3,000 contestants a rebuild of 24,000
// submissions did not fit in a request's 5 s, and every retry started it
// over.
func (s *Service) rebuildShared(ctx context.Context, c *store.Contest) error {
	cc := *c
	_, err := s.share(ctx, s.rebuilding, c.ID, "rebuild", RebuildTimeout, func(ctx context.Context) (*BoardBody, error) {
		return nil, s.RebuildBoard(ctx, &cc)
	})
	return err
}

// assembleShared assembles a contest's public board once for every
// reader that finds the published one unusable (share), and has it
// published. The freeze is where they all do at once: from the freeze's
// first second until the next publish the published board is the
// unfrozen one, and in the rehearsal of 2026-12-05 07:01 about 80 readers
// assembling a 3,000-row board each on their own ran out their deadlines
// together.
func (s *Service) assembleShared(ctx context.Context, c *store.Contest) (*BoardBody, error) {
	cc := *c
	return s.share(ctx, s.assembling, c.ID, "assembly", AssembleTimeout, func(ctx context.Context) (*BoardBody, error) {
		doc, err := s.Scoreboard(ctx, &cc, true)
		if err != nil {
			return nil, err
		}
		s.boardReads.WithLabelValues("assembled").Inc()
		s.markDirty(cc.ID) // publish it, so the next read is served as published
		return s.newBoardBody(json.Marshal(doc))
	})
}

// RunPublisher publishes the public scoreboard of every contest whose board
// changed, at most once per PublishInterval per contest across the web
// nodes, until ctx ends: at once when the interval since the contest's
// last publish is over, else when it ends (publishPlan). Its times are
// the real clock's, not Config.Now: they are the publish lock's, which
// Redis expires in real time.
func (s *Service) RunPublisher(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		now := time.Now()
		s.mu.Lock()
		ids := s.plan.due(now)
		s.mu.Unlock()
		for _, id := range ids {
			s.publishDue(ctx, id)
		}
		s.mu.Lock()
		at, ok := s.plan.next(time.Now())
		s.mu.Unlock()
		var wake <-chan time.Time
		if ok {
			timer.Reset(max(time.Until(at), 0))
			wake = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-s.kick:
		}
		timer.Stop() // Go 1.23 timers: nothing stale is left to drain
	}
}

// publishDue publishes a contest's board if this node takes the publish
// lock: one node publishes a contest per interval, whichever consumed the
// results (assembling a board of thousands reads every cell, and a publish
// covers every node's results so far). Another node's lock puts the
// contest off until it expires; a failed publish is tried again an
// interval later.
func (s *Service) publishDue(ctx context.Context, id int64) {
	iv := s.cfg.PublishInterval
	took := time.Now()
	mine, err := s.rdb.SetNX(ctx, s.n.ScoreboardPublish(id), s.NodeID(), iv).Result()
	if err == nil && !mine {
		left, err := s.rdb.PTTL(ctx, s.n.ScoreboardPublish(id)).Result()
		switch {
		case err == nil && left == -2: // expired meanwhile: at once
			left = 0
		case err != nil || left < 0 || left > iv: // unknown
			left = iv
		}
		s.mu.Lock()
		s.plan.wait(id, time.Now().Add(left))
		s.mu.Unlock()
		return
	}
	// On a Redis error the publish is tried anyway (it fails too if Redis
	// is down, and is tried again).
	err = s.PublishScoreboard(ctx, id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("scoreboard publish failed; will retry", "contest_id", id, obs.Err(err))
		}
		s.plan.wait(id, time.Now().Add(iv))
		return
	}
	s.plan.published(id, took.Add(iv))
}

// boardChanged is the body of a contest channel's scoreboard event.
var boardChanged = json.RawMessage(`{}`)

// PublishScoreboard publishes a contest's public scoreboard document on
// its live channel (the document is also the channel's snapshot state).
//
// A hidden contest's channel gets a board without rows: the hub lets
// anyone, visitors included, subscribe to a contest channel by its id,
// while REST answers 404 for a hidden contest to all but staff. Hiding a
// contest that was visible replaces its published board the same way (the
// contest update marks the board changed).
func (s *Service) PublishScoreboard(ctx context.Context, contestID int64) error {
	c, err := s.st.ContestByID(ctx, contestID)
	if err != nil {
		return err
	}
	// The document goes out under the version of the board it was made
	// from: a node slow to assemble (its read older than another node's
	// publish) does not put an older board back (queue.DocOrder).
	var doc scoreboard.Doc
	var ver scoreboard.Version
	if c.Visible {
		if doc, ver, err = s.assemble(ctx, &c, true); err != nil {
			return err
		}
	} else {
		if ver, err = s.board.CurrentVersion(ctx, contestID); err != nil {
			return err
		}
		doc = scoreboard.Doc{Rule: c.Rule, Full: true, Rows: []scoreboard.Row{}}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("judging: scoreboard of %d: %w", contestID, err)
	}
	// The event says only that the board changed: the hubs push a
	// contest's board from the stored state (the rows that changed since
	// their last push), never from the event. Carrying the board as its
	// body too sent every publish twice more (to Redis and on to each
	// hub), hundreds of kilobytes at 3,000 contestants, twice a second.
	seq, err := s.q.PublishOrderedDoc(ctx, protocol.Channel{Kind: protocol.ChannelContest, ID: contestID},
		protocol.EventScoreboard, boardChanged, b, queue.DocOrder{Gen: ver.Gen, Seq: ver.Seq, At: ver.At})
	if err != nil {
		return err
	}
	if seq == 0 {
		s.staleBoards.Inc()
		s.log.Debug("scoreboard not published: a newer one was", "contest_id", contestID, "seq", ver.Seq)
		return nil
	}
	s.published.Inc()
	return nil
}
