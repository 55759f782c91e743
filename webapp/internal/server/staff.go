package server

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Staff tools: the bulk source export and the admin lists of problems and
// contests.

// staffOnly answers 401 or 403 unless the caller is staff.
func staffOnly(w http.ResponseWriter, r *http.Request, what string) (*store.User, bool) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return nil, false
	}
	if !a.user.IsStaff() {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins and problem setters "+what))
		return nil, false
	}
	return a.user, true
}

// onlyParams refuses a query parameter not in allowed, naming it.
func onlyParams(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, k) {
			writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, k, "unknown query parameter "+k))
			return false
		}
	}
	return true
}

// ExportTimeout bounds one export: the request deadline (seconds) is far
// too short for thousands of sources.
const ExportTimeout = 10 * time.Minute

// handleExport streams a zip of a contest's or a problem's submissions
// (staff): GET /api/export?contest=slug|problem=slug[&final=1].
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	u, ok := staffOnly(w, r, "export sources")
	if !ok || !onlyParams(w, r, "contest", "problem", "final") {
		return
	}
	q := r.URL.Query()
	var sc judging.ExportScope
	switch v := q.Get("final"); v {
	case "", "0", "false":
	case "1", "true":
		sc.FinalOnly = true
	default:
		writeAPIError(w, badField("final", "must be 1 or 0"))
		return
	}
	ctx := r.Context()
	target, ok := s.staffScope(w, r, q)
	if !ok {
		return
	}
	sc.ContestID, sc.ProblemID = target.contestID, target.problemID
	name := target.kind + "-" + target.slug
	if sc.FinalOnly {
		name += "-final"
	}
	// Longer than an API answer: its own deadline (a client that goes
	// away fails the next write, which ends the export).
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ExportTimeout)
	defer cancel()
	if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(ExportTimeout)); err != nil {
		s.log.Debug("cannot extend the write deadline of an export", obs.Err(err))
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.zip"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	// Chunked from the first byte: the zip is written as MySQL yields
	// the sources, never buffered whole.
	_ = http.NewResponseController(w).Flush()
	st, err := s.judging.Export(ectx, w, sc)
	log := s.log.With("user_id", u.ID, "request_id", requestIDOf(r), "export", name)
	if err != nil {
		// The headers are gone: all we can do is cut the zip short (its
		// central directory is missing, so no tool takes it as whole).
		log.Warn("export failed part way", "files", st.Files, obs.Err(err))
		panic(http.ErrAbortHandler)
	}
	log.Info("export", "files", st.Files, "users", st.Users, "bytes", st.Bytes)
}

// pageParams reads q, cursor and limit of an admin list.
func pageParams(w http.ResponseWriter, r *http.Request) (store.Page, bool) {
	if !onlyParams(w, r, "q", "cursor", "limit") {
		return store.Page{}, false
	}
	q := r.URL.Query()
	p := store.Page{Query: strings.TrimSpace(q.Get("q")), Limit: 50}
	if utf8.RuneCountInString(p.Query) > 100 {
		writeAPIError(w, badField("q", "must be at most 100 characters"))
		return p, false
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeAPIError(w, badField("cursor", "must be the next_cursor of the previous page"))
			return p, false
		}
		p.After = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeAPIError(w, badField("limit", "must be 1 to 100"))
			return p, false
		}
		p.Limit = n
	}
	return p, true
}

func nextCursor(n, limit int, lastID int64) *string {
	if n < limit {
		return nil
	}
	c := strconv.FormatInt(lastID, 10)
	return &c
}

// AdminProblemJSON is a problem in the admin list.
type AdminProblemJSON struct {
	ProblemSummaryJSON
	ID        int64     `json:"id"`
	UpdatedAt time.Time `json:"updated_at"`
}

// handleAdminProblems lists every problem (staff), searched by slug and
// title, in id order, paged by cursor.
func (s *Server) handleAdminProblems(w http.ResponseWriter, r *http.Request) {
	if _, ok := staffOnly(w, r, "list every problem"); !ok {
		return
	}
	p, ok := pageParams(w, r)
	if !ok {
		return
	}
	rows, err := s.cfg.Store.SearchProblems(r.Context(), p)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := make([]AdminProblemJSON, 0, len(rows))
	var last int64
	for _, x := range rows {
		out = append(out, AdminProblemJSON{ProblemSummaryJSON: ProblemSummaryJSON{Slug: x.Slug, Title: x.Title,
			TimeLimitMs: x.TimeLimitMs, MemoryLimitKB: x.MemoryLimitKB, Mode: x.Mode, Visibility: x.Visibility},
			ID: x.ID, UpdatedAt: x.UpdatedAt})
		last = x.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"problems": out, "next_cursor": nextCursor(len(rows), p.Limit, last)})
}

// handleAdminContests lists every contest, hidden ones too (staff).
func (s *Server) handleAdminContests(w http.ResponseWriter, r *http.Request) {
	if _, ok := staffOnly(w, r, "list every contest"); !ok {
		return
	}
	p, ok := pageParams(w, r)
	if !ok {
		return
	}
	rows, err := s.cfg.Store.SearchContests(r.Context(), p)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	out := make([]ContestJSON, 0, len(rows))
	var last int64
	for i := range rows {
		out = append(out, s.contestJSON(&rows[i], true, false))
		last = rows[i].ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"contests": out, "next_cursor": nextCursor(len(rows), p.Limit, last)})
}

// staffTarget is the contest or the problem a staff tool works on.
type staffTarget struct {
	contestID, problemID int64
	kind, slug           string // "contest" or "problem", and its slug
}

// staffScope reads ?contest= or ?problem= (exactly one), as the export
// and the similarity check take them, answering the error itself when
// it reports false.
func (s *Server) staffScope(w http.ResponseWriter, r *http.Request, q url.Values) (staffTarget, bool) {
	contest, problem := q.Get("contest"), q.Get("problem")
	if (contest == "") == (problem == "") {
		writeAPIError(w, badField("contest", "give exactly one of contest or problem"))
		return staffTarget{}, false
	}
	ctx := r.Context()
	if contest != "" {
		c, err := s.cfg.Store.ContestBySlug(ctx, contest)
		if errors.Is(err, store.ErrNotFound) {
			writeAPIError(w, fieldErr(http.StatusNotFound, CodeNotFound, "contest", "no such contest"))
			return staffTarget{}, false
		} else if err != nil {
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return staffTarget{}, false
		}
		return staffTarget{contestID: c.ID, kind: "contest", slug: c.Slug}, true
	}
	p, err := s.cfg.Store.ProblemBySlug(ctx, problem)
	if errors.Is(err, store.ErrNotFound) {
		writeAPIError(w, fieldErr(http.StatusNotFound, CodeNotFound, "problem", "no such problem"))
		return staffTarget{}, false
	} else if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return staffTarget{}, false
	}
	return staffTarget{problemID: p.ID, kind: "problem", slug: p.Slug}, true
}
