package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/simcheck"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The similarity check (staff): GET /api/similarity ranks the pairs of a
// problem's or a contest's sources, GET /api/similarity/compare shows two
// side by side. The algorithm is package similarity's, the loading and the
// per-node slot package simcheck's.

// SimilarityTimeout bounds one ranking: longer than an API request (3,000
// sources take a second or two, a whole large contest more).
const SimilarityTimeout = 2 * time.Minute

// SimilarityJSON is the answer of GET /api/similarity.
type SimilarityJSON struct {
	Scope      string          `json:"scope"`
	Sources    int             `json:"sources"`
	Checked    int             `json:"checked"`
	Skipped    int             `json:"skipped"`
	Candidates int             `json:"candidates"`
	ElapsedMs  int64           `json:"elapsed_ms"`
	Pairs      []simcheck.Pair `json:"pairs"`
}

// handleSimilarity ranks the most similar pairs of sources of a contest
// or a problem (onlyStaff).
func (s *Server) handleSimilarity(w http.ResponseWriter, r *http.Request) error {
	if e := paramsErr(r, "contest", "problem", "all", "limit"); e != nil {
		return e
	}
	q := r.URL.Query()
	var sc simcheck.Scope
	switch q.Get("all") {
	case "", "0", "false":
	case "1", "true":
		sc.All = true
	default:
		return badField("all", "must be 1 or 0")
	}
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return badField("limit", "must be 1 to 1000")
		}
		limit = n
	}
	ctx := r.Context()
	target, err := s.staffScope(r, q)
	if err != nil {
		return err
	}
	sc.ContestID, sc.ProblemID = target.contestID, target.problemID
	scope := target.kind + " " + target.slug
	// Longer than an API answer: its own deadline, for the answer's
	// write too.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SimilarityTimeout)
	defer cancel()
	if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(SimilarityTimeout + 10*time.Second)); err != nil {
		s.log.Debug("cannot extend the write deadline of a similarity check", obs.Err(err))
	}
	rep, err := s.sim.Rank(rctx, sc, limit)
	switch {
	case errors.Is(err, simcheck.ErrBusy):
		w.Header().Set("Retry-After", "10")
		return apiErr(http.StatusServiceUnavailable, CodeUnavailable, "another similarity check is running on this node; try again shortly")
	case errors.Is(err, simcheck.ErrTooMany):
		return badField("all", "too many sources to check at once: check one problem, or each user's final submissions only")
	case err != nil:
		return unavailableErr(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, SimilarityJSON{Scope: scope, Sources: rep.Sources, Checked: rep.Checked, Skipped: rep.Skipped,
		Candidates: rep.Candidates, ElapsedMs: rep.Elapsed.Milliseconds(), Pairs: rep.Pairs})
	return nil
}

// handleSimilarityCompare shows two sources side by side (onlyStaff).
func (s *Server) handleSimilarityCompare(w http.ResponseWriter, r *http.Request) error {
	if e := paramsErr(r, "a", "b"); e != nil {
		return e
	}
	var ids [2]int64
	for i, k := range []string{"a", "b"} {
		n, err := strconv.ParseInt(r.URL.Query().Get(k), 10, 64)
		if err != nil || n < 1 {
			return badField(k, "must be a submission id")
		}
		ids[i] = n
	}
	c, err := s.sim.Compare(r.Context(), ids[0], ids[1])
	if errors.Is(err, store.ErrNotFound) {
		return apiErr(http.StatusNotFound, CodeNotFound, "no such submission")
	} else if err != nil {
		return unavailableErr(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, c)
	return nil
}
