package server

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Scoreboards: GET /api/contests/{slug}/scoreboard and the unfreeze
// (the CSV and TSV exports are scoreboard_csv.go and icpc.go).

// contestParam is the visible contest of the {slug} route parameter:
// store.ErrNotFound (404) for an unknown one, and for a hidden one but to
// staff.
func (s *Server) contestParam(r *http.Request) (*store.Contest, error) {
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return nil, err
	}
	if u := userOf(r); !c.Visible && (u == nil || !u.IsStaff()) {
		return nil, errNotFound
	}
	return &c, nil
}

// handleScoreboard serves a contest's scoreboard: the public one (frozen
// during the freeze) to everyone, the live one to staff (?view=public
// shows staff the public one).
func (s *Server) handleScoreboard(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	u := userOf(r)
	staff := u != nil && u.IsStaff()
	view := r.URL.Query().Get("view")
	if view != "" && view != "public" && view != "live" {
		return badField("view", "must be public or live")
	}
	if view == "live" && !staff {
		return fieldErr(http.StatusForbidden, CodeForbidden, "view", "only staff see the live board")
	}
	public := !staff || view == "public"
	if c.Phase(s.cfg.Now()) == "upcoming" && !staff {
		writeJSON(w, http.StatusOK, map[string]any{"rule": c.Rule, "frozen": false, "full": true, "rows": []any{}})
		return nil
	}
	if q := r.URL.Query(); q.Has("group") {
		return s.groupBoard(w, r, c, public, q.Get("group")) // one group's board (teams.go)
	}
	if public {
		b, err := s.judging.PublicBoard(r.Context(), c)
		if err != nil {
			return unavailableErr(err)
		}
		w.Header().Set("Vary", "Accept-Encoding")
		// Compressed once per published board, not per request (nginx
		// passes an encoded answer on as it is), and only for a client
		// that takes it: a board assembled for this request alone is
		// compressed for nobody else.
		if acceptsGzip(r) {
			if gz := b.Gzip(); gz != nil {
				w.Header().Set("Content-Encoding", "gzip")
				writeRawJSON(w, http.StatusOK, gz)
				return nil
			}
		}
		raw, err := b.JSON()
		if err != nil {
			return unavailableErr(err)
		}
		writeRawJSON(w, http.StatusOK, raw)
		return nil
	}
	doc, err := s.judging.Scoreboard(r.Context(), c, false)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, doc)
	return nil
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip,
// as RFC 9110 (12.5.3) reads it: the weight of gzip is the q-value of its
// own entry ("x-gzip" is the same coding, 8.4.1.3) when it has one — the
// most specific entry wins, so "*;q=0, gzip" takes it and "gzip;q=0, *"
// does not — else that of "*", else none; an entry without a q-value
// weighs 1, and a weight of 0 means "not acceptable". Of two entries of
// one coding the heavier counts. An entry whose q-value is malformed is
// left out. A request without the header gets no gzip: a client that
// sends none is not assumed to decode it (RFC 9110 allows either).
func acceptsGzip(r *http.Request) bool {
	gzipQ, anyQ := -1, -1 // in thousandths; -1: no entry
	for _, v := range r.Header.Values("Accept-Encoding") {
		for entry := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(entry, ";")
			name = strings.TrimSpace(name)
			q, ok := weightOf(params)
			if name == "" || !ok {
				continue
			}
			switch {
			case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
				gzipQ = max(gzipQ, q)
			case name == "*":
				anyQ = max(anyQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return anyQ > 0
}

// weightOf reads an Accept-Encoding entry's parameters (what follows its
// coding's ";"): its q-value in thousandths (1000 when it has none), and
// false when the q-value is malformed (RFC 9110 12.4.2: "0" or "1",
// optionally followed by "." and at most three digits, at most "1.000").
// Other parameters, which the grammar does not have, are passed over.
func weightOf(params string) (int, bool) {
	q, seen := 1000, false
	for p := range strings.SplitSeq(params, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		if !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		if seen {
			return 0, false // two weights: which one?
		}
		seen = true
		v, ok := parseQValue(strings.TrimSpace(val))
		if !ok {
			return 0, false
		}
		q = v
	}
	return q, true
}

// parseQValue parses a qvalue (RFC 9110 12.4.2) into thousandths.
func parseQValue(s string) (int, bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	whole, frac := int(s[0]-'0'), s[1:]
	if frac != "" {
		if frac[0] != '.' || len(frac) > 4 {
			return 0, false
		}
		frac = frac[1:]
	}
	v := whole * 1000
	scale := 100
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v += int(c-'0') * scale
		scale /= 10
	}
	if v > 1000 {
		return 0, false
	}
	return v, true
}

// handleUnfreeze reveals a contest's frozen scoreboard (onlyAdmins).
func (s *Server) handleUnfreeze(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	if !c.UnfrozenAt.Valid {
		if err := s.cfg.Store.SetUnfrozen(r.Context(), c.ID, s.cfg.Now()); err != nil {
			return unavailableErr(err)
		}
	}
	s.judging.ForgetContest(c.ID)
	if err := s.judging.FeedThaw(r.Context(), c.ID); err != nil { // the Contest API feed (ccs_feed.go)
		s.log.Warn("the thaw did not reach the contest's event feed", obs.Err(err))
	}
	if err := s.judging.PublishScoreboard(r.Context(), c.ID); err != nil {
		s.log.Warn("publishing the revealed scoreboard failed", obs.Err(err))
		s.judging.MarkDirty(c.ID)
	}
	writeJSON(w, http.StatusOK, map[string]any{"contest": c.Slug, "unfrozen": true})
	return nil
}
