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
		if gz := b.Gzip(); gz != nil && acceptsGzip(r) {
			// Compressed once per published board, not per request (nginx
			// passes an encoded answer on as it is).
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Vary", "Accept-Encoding")
			writeRawJSON(w, http.StatusOK, gz)
			return nil
		}
		w.Header().Set("Vary", "Accept-Encoding")
		writeRawJSON(w, http.StatusOK, b.Raw)
		return nil
	}
	doc, err := s.judging.Scoreboard(r.Context(), c, false)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, doc)
	return nil
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (with a q-value above 0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.TrimSpace(name) != "*" {
				continue
			}
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
				return false
			}
			return true
		}
	}
	return false
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
