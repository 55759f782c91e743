package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// DefaultCCSKeepAlive is the longest the event feed stays silent: a
// newline after it (the spec's bound is 120 s).
const DefaultCCSKeepAlive = 30 * time.Second

// ccsContestRecheck is how often a feed connection rereads its contest
// (a changed window, freeze or thaw is a contest and a state event).
const ccsContestRecheck = 5 * time.Second

// streamingRoute reports whether r is a long-lived stream (the event
// feed), which the deadline middleware leaves unbounded.
func streamingRoute(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, CCSBase+"/contests/") &&
		strings.HasSuffix(r.URL.Path, "/event-feed")
}

func (s *Server) ccsKeepAlive() time.Duration {
	if s.cfg.CCSKeepAlive > 0 {
		return s.cfg.CCSKeepAlive
	}
	return DefaultCCSKeepAlive
}

// handleCCSEventFeed streams a contest's events as NDJSON: without
// since_token every object first (read from MySQL, aligned with the feed
// stream's last entry), then the stream's entries as they are appended;
// with since_token the entries after it. The last event of each entry
// carries its token. Public readers get no outcome the freeze holds back,
// and the held ones when the contest is thawed. A newline every
// CCSKeepAlive of silence keeps the connection alive.
func (s *Server) handleCCSEventFeed(w http.ResponseWriter, r *http.Request) error {
	// The setup (the snapshot of a large contest included) is bounded;
	// the stream that follows is not (streamingRoute).
	ctx := r.Context()
	setup, cancel := context.WithTimeout(ctx, s.cfg.UploadTimeout)
	defer cancel()
	c, v, err := s.ccsContest(w, r.WithContext(setup))
	if err != nil {
		return err
	}
	if e := ccsParamsErr(r, "since_token", "types", "stream"); e != nil {
		return e
	}
	svc := s.ccsService()
	feed := svc.Feed
	gen, err := feed.Generation(setup, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	reader := ccs.NewReader(!v.Staff)
	now := s.cfg.Now()
	var pos, resumed string
	var first []ccs.Event
	if tok := r.URL.Query().Get("since_token"); tok != "" {
		pos, err = feed.ParseToken(setup, c.ID, tok)
		resumed = pos
		if errors.Is(err, ccs.ErrBadToken) {
			return badField("since_token", err.Error())
		}
		if err != nil {
			return unavailableErr(err)
		}
		// What the client was sent up to its token, so that none of it
		// comes again (a submission judged after the token, say).
		if err := feed.Range(setup, c.ID, pos, 1000, func(es []ccs.Entry) error {
			reader.Resume(c, es)
			return nil
		}); err != nil {
			return unavailableErr(err)
		}
		// The contest and state as they are now: cheap, and what changed
		// by time alone (a freeze that began) carries no token.
		first = []ccs.Event{ccs.NewEvent(ccs.TypeContests, ccs.ContestID(c), ccs.ContestObject(c)),
			ccs.NewEvent(ccs.TypeState, "", ccs.StateObject(c, now))}
	} else {
		if pos, err = feed.Last(setup, c.ID); err == nil {
			first, err = svc.Snapshot(setup, c, v, reader, now)
		}
		if err != nil {
			return unavailableErr(err)
		}
		first[len(first)-1].Token = ccs.Token(gen, pos)
	}
	// The stream starts: from here on every end returns nil (the status
	// is sent; a client that left or a failed write just ends it).
	// A feed outlives the server's ReadTimeout and WriteTimeout: the read
	// deadline is cleared, each write extends the write deadline
	// (TestCCSFeedOutlivesServerTimeouts).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no") // nginx: stream, do not buffer
	w.WriteHeader(http.StatusOK)
	var types map[string]bool // ?types=a,b: only those
	if t := r.URL.Query().Get("types"); t != "" {
		types = map[string]bool{}
		for _, x := range strings.Split(t, ",") {
			types[strings.TrimSpace(x)] = true
		}
	}
	keep := s.ccsKeepAlive()
	var buf bytes.Buffer
	lastWrite := time.Now()
	send := func(evs []ccs.Event, token string) error {
		if types != nil {
			kept := evs[:0:0]
			for _, e := range evs {
				if types[e.Type] {
					kept = append(kept, e)
				}
			}
			evs = kept
		}
		if len(evs) == 0 {
			return nil
		}
		if token != "" {
			evs[len(evs)-1].Token = token
		}
		buf.Reset()
		enc := json.NewEncoder(&buf)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		_ = rc.SetWriteDeadline(time.Now().Add(2 * keep))
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		lastWrite = time.Now()
		return rc.Flush()
	}
	stateJSON := func(c *store.Contest, now time.Time) string {
		b, _ := json.Marshal([]any{ccs.ContestObject(c), ccs.StateObject(c, now)})
		return string(b)
	}
	sentState := stateJSON(c, now)
	// Awards (derived from the board): with the first events, then the
	// ones that changed after the entries that may change them, at most
	// once a second (ccsAwardEvents).
	awards := ccs.NewAwardFeed()
	first = append(first, s.ccsAwardEvents(setup, svc, c, v, awards, now)...)
	lastAwards, awardsDirty := time.Now(), false
	if err := send(first, ""); err != nil {
		return nil
	}
	log := s.log.With("contest_id", c.ID, "request_id", requestIDOf(r))
	// thawed: when the public view was frozen and is no longer, the
	// judgements and runs it held back up to upTo (nil otherwise); false
	// when they cannot be read. A resumed reader was frozen if its token
	// was appended during the freeze (stream ids are times).
	wasFrozen := ccs.PublicFrozen(c, now)
	if resumed != "" {
		wasFrozen = ccs.PublicFrozenAt(c, ccs.IDTime(resumed))
	}
	thawed := func(c *store.Contest, now time.Time, upTo string) ([]ccs.Event, bool) {
		frozen := ccs.PublicFrozen(c, now)
		was := wasFrozen
		wasFrozen = frozen
		if !reader.Public || !was || frozen || upTo == "0-0" {
			return nil, true
		}
		var held []ccs.Event
		err := feed.Range(ctx, c.ID, upTo, 500, func(es []ccs.Entry) error {
			for _, x := range es {
				held = append(held, reader.Replay(c, x.Fact, now)...)
			}
			return nil
		})
		if err != nil {
			log.Warn("replaying the thawed judgements failed", obs.Err(err))
			return nil, false
		}
		return held, true
	}
	block := min(time.Second, keep)
	lastCheck := time.Now()
	for ctx.Err() == nil && !s.draining.Load() {
		entries, err := feed.Read(ctx, c.ID, pos, block, 200)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			log.Warn("reading the contest feed failed; retrying", obs.Err(err))
			sleepCtx(ctx, time.Second)
			continue
		}
		now = s.cfg.Now()
		if time.Since(lastCheck) >= ccsContestRecheck || changesContest(entries) {
			lastCheck = time.Now()
			if fresh, err := s.cfg.Store.ContestByID(ctx, c.ID); err == nil {
				c = &fresh
			} else if ctx.Err() == nil {
				log.Warn("rereading the contest failed", obs.Err(err))
			}
		}
		for _, e := range entries {
			evs := reader.Events(c, e.Fact, now)
			// The public view thawed (an unfreeze, the end of a closed
			// contest): first what the freeze held back, so that the
			// entry's token covers it.
			if held, ok := thawed(c, now, e.ID); !ok {
				return nil // the client resumes from its last token
			} else if held != nil {
				evs = append(held, evs...)
			}
			if err := send(evs, ccs.Token(gen, e.ID)); err != nil {
				return nil
			}
			pos = e.ID
			if k := e.Fact.Kind; k == ccs.FactThaw || k == ccs.FactState {
				sentState = stateJSON(c, now) // sent with the entry
			}
		}
		if held, ok := thawed(c, now, pos); !ok {
			return nil
		} else if err := send(held, ccs.Token(gen, pos)); err != nil {
			return nil
		}
		// Entries may change the awards; so may time (the freeze, the
		// thaw): at most once a second, and every ccsContestRecheck.
		awardsDirty = awardsDirty || len(entries) > 0
		if (awardsDirty && time.Since(lastAwards) >= time.Second) || time.Since(lastAwards) >= ccsContestRecheck {
			awardsDirty, lastAwards = false, time.Now()
			if err := send(s.ccsAwardEvents(ctx, svc, c, v, awards, now), ccs.Token(gen, pos)); err != nil {
				return nil
			}
		}
		if st := stateJSON(c, now); st != sentState {
			sentState = st
			if err := send([]ccs.Event{ccs.NewEvent(ccs.TypeContests, ccs.ContestID(c), ccs.ContestObject(c)),
				ccs.NewEvent(ccs.TypeState, "", ccs.StateObject(c, now))}, ""); err != nil {
				return nil
			}
		}
		if time.Since(lastWrite) >= keep {
			_ = rc.SetWriteDeadline(time.Now().Add(2 * keep))
			if _, err := w.Write([]byte("\n")); err != nil {
				return nil
			}
			if rc.Flush() != nil {
				return nil
			}
			lastWrite = time.Now()
		}
	}
	return nil
}

// changesContest reports an entry after which the contest is read
// again: a thaw, a finalisation.
func changesContest(es []ccs.Entry) bool {
	for _, e := range es {
		if e.Fact.Kind == ccs.FactThaw || e.Fact.Kind == ccs.FactState {
			return true
		}
	}
	return false
}

// ccsParamsErr refuses a query parameter not in allowed.
func ccsParamsErr(r *http.Request, allowed ...string) *APIError {
	for k := range r.URL.Query() {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return badField(k, "is not a parameter of this endpoint")
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ccsAwardEvents are the award events a feed connection has not had:
// none for a public reader while the freeze holds (its awards would tell
// what the freeze hides; the thaw sends them), none when they cannot be
// computed (the next batch tries again).
func (s *Server) ccsAwardEvents(ctx context.Context, svc *ccs.Service, c *store.Contest, v ccs.Viewer, f *ccs.AwardFeed, now time.Time) []ccs.Event {
	if !v.Staff && ccs.PublicFrozen(c, now) {
		return nil
	}
	as, err := svc.Awards(ctx, c, v, now)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("awards for the event feed failed", "contest_id", c.ID, obs.Err(err))
		}
		return nil
	}
	return f.Events(as)
}
