package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
	"github.com/verdict-oj/verdict/webapp/internal/teamfmt"
)

// Teams, organisations and groups of a contest (docs/icpc.md, "Teams"):
// the formats are teamfmt's, the rules the store's; these handlers do
// HTTP. Staff read, admins write.

func (s *Server) teamRoutes(r chi.Router) {
	r.With(onlyStaff("see a contest's teams")).Get("/contests/{slug}/teams", s.h(s.handleContestTeams))
	r.With(onlyAdmins("change a contest's teams")).Put("/contests/{slug}/team-mode", s.h(s.handleSetTeamMode))
	r.With(onlyAdmins("import teams")).Post("/contests/{slug}/teams/import", s.h(s.handleImportTeams))
	r.With(onlyStaff("export teams")).Get("/contests/{slug}/teams/export", s.h(s.handleExportTeams))
	deleteTeams := onlyAdmins("delete teams")
	r.With(deleteTeams).Delete("/contests/{slug}/teams/{id}", s.h(s.handleDeleteTeamObject))
	r.With(deleteTeams).Delete("/contests/{slug}/groups/{id}", s.h(s.handleDeleteTeamObject))
	r.With(deleteTeams).Delete("/contests/{slug}/organizations/{id}", s.h(s.handleDeleteTeamObject))
}

// MaxTeamImportBytes caps one team, organisation or group file.
const MaxTeamImportBytes = 8 << 20

// TeamsJSON answers GET /api/contests/{slug}/teams.
type TeamsJSON struct {
	TeamMode      bool               `json:"team_mode"`
	Groups        []GroupJSON        `json:"groups"`
	Organizations []ccs.Organization `json:"organizations"`
	Teams         []TeamJSON         `json:"teams"`
}

// GroupJSON is a group as the admin page shows it.
type GroupJSON struct {
	ID        string `json:"id"`
	ICPCID    string `json:"icpc_id,omitempty"`
	Name      string `json:"name"`
	Hidden    bool   `json:"hidden"`
	SortOrder int    `json:"sortorder"`
}

// TeamJSON is a team as the admin page shows it.
type TeamJSON struct {
	ccs.Team
	Organization string       `json:"organization,omitempty"`
	Members      []MemberJSON `json:"members"`
}

// MemberJSON is a team member.
type MemberJSON struct {
	Username    string `json:"username"`
	DisplayName string `json:"display_name"`
	Role        string `json:"role"`
}

// TeamImportJSON answers an import.
type TeamImportJSON struct {
	Format string `json:"format"`
	store.TeamImport
}

// teamImportError is the 400 body of a rejected import: the error and
// every bad line.
type teamImportError struct {
	Error  *APIError           `json:"error"`
	Errors []teamfmt.LineError `json:"errors"`
}

// teamContest is the {slug} contest, hidden or not (the routes are
// staff's).
func (s *Server) teamContest(r *http.Request) (*store.Contest, error) {
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (s *Server) handleContestTeams(w http.ResponseWriter, r *http.Request) error {
	c, err := s.teamContest(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	gs, err := s.cfg.Store.ContestGroups(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	os, err := s.cfg.Store.ContestOrganizations(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	ts, err := s.cfg.Store.ContestTeams(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	out := TeamsJSON{TeamMode: c.TeamMode, Groups: []GroupJSON{}, Organizations: []ccs.Organization{}, Teams: []TeamJSON{}}
	for _, g := range gs {
		out.Groups = append(out.Groups, GroupJSON{ID: g.ExtID, ICPCID: g.ICPCID, Name: g.Name, Hidden: g.Hidden, SortOrder: g.SortOrder})
	}
	for i := range os {
		out.Organizations = append(out.Organizations, ccs.OrganizationOf(&os[i]))
	}
	for i := range ts {
		tj := TeamJSON{Team: ccs.TeamOf(&ts[i]), Organization: ts[i].OrgName.String, Members: []MemberJSON{}}
		for _, m := range ts[i].Members {
			tj.Members = append(tj.Members, MemberJSON{Username: m.Username, DisplayName: m.DisplayName, Role: m.Role})
		}
		out.Teams = append(out.Teams, tj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleSetTeamMode makes a contest a team contest or an individual one
// and rebuilds its board (the rows change from users to teams;
// onlyAdmins).
func (s *Server) handleSetTeamMode(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Enabled *bool `json:"enabled"`
	}
	u := userOf(r)
	c, err := s.teamContest(r)
	if err != nil {
		return err
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Enabled == nil {
		return badField("enabled", "is required (true: a team contest)")
	}
	ctx := r.Context()
	if err := s.cfg.Store.SetContestTeamMode(ctx, c.ID, *req.Enabled); err != nil {
		return unavailableErr(err)
	}
	s.judging.ForgetContest(c.ID)
	c.TeamMode = *req.Enabled
	// The cells are keyed by user or by team: build them again.
	if err := s.judging.Board().Delete(ctx, c.ID); err != nil {
		return unavailableErr(err)
	}
	if err := s.judging.RebuildBoard(ctx, c); err != nil {
		return unavailableErr(err)
	}
	s.judging.MarkDirty(c.ID)
	s.log.Info("contest team mode set", "contest_id", c.ID, "team_mode", *req.Enabled, "by", u.ID)
	writeJSON(w, http.StatusOK, map[string]bool{"team_mode": *req.Enabled})
	return nil
}

func teamFormat(r *http.Request) (string, *APIError) {
	f := r.URL.Query().Get("format")
	formats := append(slices.Clone(teamfmt.Formats), teamfmt.AccountFormats...)
	if slices.Contains(formats, f) {
		return f, nil
	}
	return "", badField("format", "must be one of "+strings.Join(formats, ", "))
}

// handleImportTeams imports teams, organisations and groups, or team
// accounts (onlyAdmins).
func (s *Server) handleImportTeams(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.teamContest(r)
	if err != nil {
		return err
	}
	format, e := teamFormat(r)
	if e != nil {
		return e
	}
	data, e := readUpload(r, MaxTeamImportBytes, "text/csv", "text/plain", "text/tab-separated-values", "application/json")
	if e != nil {
		return e
	}
	if teamfmt.IsAccountFormat(format) { // users, not teams (teams_accounts.go)
		return s.importAccounts(w, r, c, u, format, data)
	}
	ctx := r.Context()
	d, err := teamfmt.Parse(format, bytes.NewReader(data))
	if err == nil {
		var res store.TeamImport
		res, err = s.cfg.Store.ImportTeams(ctx, c.ID, d)
		if err == nil {
			s.teamsChanged(r, c)
			s.log.Info("teams imported", "contest_id", c.ID, "format", format, "teams", res.Teams, "groups", res.Groups,
				"organizations", res.Organizations, "members", res.Members, "by", u.ID)
			writeJSON(w, http.StatusOK, TeamImportJSON{Format: format, TeamImport: res})
			return nil
		}
	}
	if errs, ok := errors.AsType[teamfmt.Errors](err); ok {
		return teamfmtErr(errs)
	}
	return unavailableErr(err)
}

// teamsChanged tells the rest of the system that a contest's teams
// changed: the event feed gets the objects as they are now, the board is
// published again (names, hidden groups).
func (s *Server) teamsChanged(r *http.Request, c *store.Contest, deleted ...ccs.FactObject) {
	ctx := r.Context()
	s.judging.MarkDirty(c.ID)
	gs, err := s.cfg.Store.ContestGroups(ctx, c.ID)
	var os []store.Organization
	var ts []store.Team
	if err == nil {
		os, err = s.cfg.Store.ContestOrganizations(ctx, c.ID)
	}
	if err == nil {
		ts, err = s.cfg.Store.ContestTeams(ctx, c.ID)
	}
	if err == nil {
		objs := append(deleted, ccs.TeamObjects(gs, os, ts)...)
		_, err = s.ccsService().Feed.Append(ctx, c.ID, ccs.Fact{Kind: ccs.FactObjects, Objects: objs, Event: s.cfg.Now().UnixMilli()})
	}
	if err != nil {
		s.log.Warn("contest API feed not told of changed teams", "contest_id", c.ID, "err", err)
	}
}

// handleExportTeams writes a contest's teams in one of the formats
// (onlyStaff).
func (s *Server) handleExportTeams(w http.ResponseWriter, r *http.Request) error {
	c, err := s.teamContest(r)
	if err != nil {
		return err
	}
	format, e := teamFormat(r)
	if e != nil {
		return e
	}
	if teamfmt.IsAccountFormat(format) {
		return s.exportAccounts(w, r, c, format)
	}
	d, err := s.cfg.Store.ExportTeams(r.Context(), c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	var buf bytes.Buffer
	if err := teamfmt.Write(&buf, format, d); err != nil {
		return internalErr(err)
	}
	ct := "text/tab-separated-values; charset=utf-8"
	name := format
	switch {
	case strings.HasSuffix(format, ".json"):
		ct = "application/json"
	case format == teamfmt.FormatCSV:
		ct, name = "text/csv; charset=utf-8", "teams.csv"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// handleDeleteTeamObject deletes a team, group or organisation
// (onlyAdmins).
func (s *Server) handleDeleteTeamObject(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	c, err := s.teamContest(r)
	if err != nil {
		return err
	}
	ctx, id := r.Context(), chi.URLParam(r, "id")
	var typ string
	switch {
	case strings.Contains(r.URL.Path, "/groups/"):
		typ, err = ccs.TypeGroups, s.cfg.Store.DeleteGroup(ctx, c.ID, id)
	case strings.Contains(r.URL.Path, "/organizations/"):
		typ, err = ccs.TypeOrganizations, s.cfg.Store.DeleteOrganization(ctx, c.ID, id)
	default:
		typ, err = ccs.TypeTeams, s.cfg.Store.DeleteTeam(ctx, c.ID, id)
	}
	if errors.Is(err, store.ErrTeamHasSubmissions) {
		return fieldErr(http.StatusConflict, CodeConflict, "id", "the team has submissions: it stays (move it to a hidden group to take it off the board)")
	}
	if err != nil {
		return err
	}
	s.log.Info("contest object deleted", "contest_id", c.ID, "type", typ, "id", id, "by", u.ID)
	s.teamsChanged(r, c, ccs.FactObject{Type: typ, ID: id})
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// groupBoard answers GET /api/contests/{slug}/scoreboard?group=<id>: one
// group's teams (a region, a category), ranked among themselves.
func (s *Server) groupBoard(w http.ResponseWriter, r *http.Request, c *store.Contest, public bool, group string) error {
	doc, err := s.judging.GroupScoreboard(r.Context(), c, public, group)
	if errors.Is(err, judging.ErrNoGroup) {
		return fieldErr(http.StatusNotFound, CodeNotFound, "group", "no such group in this contest (groups are a team contest's)")
	}
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, doc)
	return nil
}

// teamRows are a team contest's teams as board rows (what the CSV export
// lists, zeros included).
func (s *Server) teamRows(ctx context.Context, c *store.Contest) ([]scoreboard.Row, error) {
	ts, err := s.cfg.Store.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]scoreboard.Row, 0, len(ts))
	for i := range ts {
		out = append(out, scoreboard.Row{User: ts[i].ExtID, TeamID: ts[i].ExtID, DisplayName: ts[i].ShownName(),
			Affiliation: ts[i].OrgName.String})
	}
	return out, nil
}
