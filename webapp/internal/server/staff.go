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

// paramsErr is the first query parameter not in allowed, as a 400.
func paramsErr(r *http.Request, allowed ...string) *APIError {
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, k) {
			return fieldErr(http.StatusBadRequest, CodeValidation, k, "unknown query parameter "+k)
		}
	}
	return nil
}

// ExportTimeout bounds one export: the request deadline (seconds) is far
// too short for thousands of sources.
const ExportTimeout = 10 * time.Minute

// handleExport streams a zip of a contest's or a problem's submissions
// (onlyStaff): GET /api/export?contest=slug|problem=slug[&final=1].
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	if e := paramsErr(r, "contest", "problem", "final"); e != nil {
		return e
	}
	q := r.URL.Query()
	var sc judging.ExportScope
	switch v := q.Get("final"); v {
	case "", "0", "false":
	case "1", "true":
		sc.FinalOnly = true
	default:
		return badField("final", "must be 1 or 0")
	}
	ctx := r.Context()
	target, err := s.staffScope(r, q)
	if err != nil {
		return err
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
	return nil
}

// pageParams reads q, cursor and limit of an admin list.
func pageParams(r *http.Request) (store.Page, error) {
	if e := paramsErr(r, "q", "cursor", "limit"); e != nil {
		return store.Page{}, e
	}
	q := r.URL.Query()
	p := store.Page{Query: strings.TrimSpace(q.Get("q")), Limit: 50}
	if utf8.RuneCountInString(p.Query) > 100 {
		return p, badField("q", "must be at most 100 characters")
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return p, badField("cursor", "must be the next_cursor of the previous page")
		}
		p.After = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return p, badField("limit", "must be 1 to 100")
		}
		p.Limit = n
	}
	return p, nil
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

// handleAdminProblems lists every problem (onlyStaff), searched by slug and
// title, in id order, paged by cursor.
func (s *Server) handleAdminProblems(w http.ResponseWriter, r *http.Request) error {
	p, err := pageParams(r)
	if err != nil {
		return err
	}
	rows, err := s.cfg.Store.SearchProblems(r.Context(), p)
	if err != nil {
		return unavailableErr(err)
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
	return nil
}

// handleAdminContests lists every contest, hidden ones too (onlyStaff).
func (s *Server) handleAdminContests(w http.ResponseWriter, r *http.Request) error {
	p, err := pageParams(r)
	if err != nil {
		return err
	}
	rows, err := s.cfg.Store.SearchContests(r.Context(), p)
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]ContestJSON, 0, len(rows))
	var last int64
	for i := range rows {
		out = append(out, s.contestJSON(&rows[i], true, false))
		last = rows[i].ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"contests": out, "next_cursor": nextCursor(len(rows), p.Limit, last)})
	return nil
}

// staffTarget is the contest or the problem a staff tool works on.
type staffTarget struct {
	contestID, problemID int64
	kind, slug           string // "contest" or "problem", and its slug
}

// staffScope reads ?contest= or ?problem= (exactly one), as the export
// and the similarity check take them.
func (s *Server) staffScope(r *http.Request, q url.Values) (staffTarget, error) {
	contest, problem := q.Get("contest"), q.Get("problem")
	if (contest == "") == (problem == "") {
		return staffTarget{}, badField("contest", "give exactly one of contest or problem")
	}
	ctx := r.Context()
	if contest != "" {
		c, err := s.cfg.Store.ContestBySlug(ctx, contest)
		if errors.Is(err, store.ErrNotFound) {
			return staffTarget{}, fieldErr(http.StatusNotFound, CodeNotFound, "contest", "no such contest")
		} else if err != nil {
			return staffTarget{}, unavailableErr(err)
		}
		return staffTarget{contestID: c.ID, kind: "contest", slug: c.Slug}, nil
	}
	p, err := s.cfg.Store.ProblemBySlug(ctx, problem)
	if errors.Is(err, store.ErrNotFound) {
		return staffTarget{}, fieldErr(http.StatusNotFound, CodeNotFound, "problem", "no such problem")
	} else if err != nil {
		return staffTarget{}, unavailableErr(err)
	}
	return staffTarget{problemID: p.ID, kind: "problem", slug: p.Slug}, nil
}
