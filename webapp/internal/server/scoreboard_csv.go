package server

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
)

// handleScoreboardCSV serves a contest's full (live, never frozen)
// scoreboard as a CSV download (staff; hidden contests included, as on
// the JSON board staff see). It reads the very document GET
// /api/contests/{slug}/scoreboard gives staff, so the two always agree.
// The route is onlyStaff: a student learns nothing, not even whether the
// contest exists.
func (s *Server) handleScoreboardCSV(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c, err := s.cfg.Store.ContestBySlug(ctx, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	doc, err := s.judging.Scoreboard(ctx, &c, false)
	if err != nil {
		return unavailableErr(err)
	}
	// Everyone registered is in the export, zeros included (the live board
	// lists only users who submitted).
	parts, err := s.cfg.Store.ContestParticipants(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	registered := make([]scoreboard.Row, len(parts))
	for i, p := range parts {
		registered[i] = scoreboard.Row{User: p.Username, UserID: p.UserID, DisplayName: p.DisplayName}
	}
	if c.TeamMode { // a team contest's rows are its teams (teams.go)
		if registered, err = s.teamRows(ctx, &c); err != nil {
			return unavailableErr(err)
		}
	}
	doc = scoreboard.WithAbsent(doc, registered)
	// The problems in label order, with columns even for a problem nobody
	// tried (the document only has the cells that exist).
	cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	labels := make([]string, 0, len(cps))
	for _, p := range cps {
		labels = append(labels, p.Label)
	}
	// Built whole before the status goes out, so that a failure is still
	// a JSON error rather than half a file.
	var buf bytes.Buffer
	if err := scoreboard.WriteCSV(&buf, doc, labels); err != nil {
		return internalErr(err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+csvFilename(c.Slug)+`"`)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	// Live results of a running contest: no cache may keep or share them.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if _, err := buf.WriteTo(w); err != nil {
		s.log.Debug("scoreboard csv: client went away", obs.Err(err))
	}
	return nil
}

// csvFilename is "<slug>-scoreboard.csv" with every byte outside
// [A-Za-z0-9._-] replaced by '_'. Slugs are validated on creation, so
// this changes nothing today; it keeps a quote, a backslash or a control
// character of some older or imported slug out of the
// Content-Disposition header.
func csvFilename(slug string) string {
	b := []byte(slug)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "scoreboard.csv"
	}
	return string(b) + "-scoreboard.csv"
}
