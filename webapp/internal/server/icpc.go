package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/ccs"
	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The ICPC contest day (docs/icpc.md): award settings, the results upload
// (results.tsv, scoreboard.tsv), problem colours and the balloon page.
// Session + CSRF routes; r is the /api router's CSRF group.
func (s *Server) icpcRoutes(r chi.Router) {
	r.With(onlyStaff("see award settings")).Get("/contests/{slug}/award-settings", s.h(s.handleAwardSettings))
	r.With(onlyStaff("set award settings")).Put("/contests/{slug}/award-settings", s.h(s.handleSetAwardSettings))
	r.Get("/contests/{slug}/problem-colors", s.h(s.handleProblemColors))
	r.With(onlyStaff("set problem colours")).Put("/contests/{slug}/problem-colors", s.h(s.handleSetProblemColors))
	r.With(onlyStaff("download results.tsv")).Get("/contests/{slug}/results.tsv", s.h(s.handleResultsTSV))
	r.With(onlyStaff("download scoreboard.tsv")).Get("/contests/{slug}/scoreboard.tsv", s.h(s.handleScoreboardTSV))
	r.With(onlyStaff("see the balloons")).Get("/contests/{slug}/balloons", s.h(s.handleBalloons))
	r.With(onlyStaff("mark balloons")).Put("/contests/{slug}/balloons/{team}/{label}", s.h(s.handleSetBalloon))
}

// AwardSettingsJSON is a contest's medal counts and honourable-mention
// rule.
type AwardSettingsJSON struct {
	Gold                 int  `json:"gold"`
	Silver               int  `json:"silver"`
	Bronze               int  `json:"bronze"`
	HonorableBelowMedian bool `json:"honorable_below_median"`
}

// icpcStaffContest is the {slug} contest of a staff route (onlyStaff on
// the route) and the staff member.
func (s *Server) icpcStaffContest(r *http.Request) (*store.User, *store.Contest, error) {
	c, err := s.contestParam(r)
	return userOf(r), c, err
}

func (s *Server) handleAwardSettings(w http.ResponseWriter, r *http.Request) error {
	_, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	a, err := s.cfg.Store.ContestAwardSettings(r.Context(), c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, AwardSettingsJSON(a))
	return nil
}

// handleSetAwardSettings sets the medal counts (each 0 to ccs.MaxMedals)
// and the median rule; an absent field keeps its value.
func (s *Server) handleSetAwardSettings(w http.ResponseWriter, r *http.Request) error {
	u, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	var req struct {
		Gold                 *int  `json:"gold"`
		Silver               *int  `json:"silver"`
		Bronze               *int  `json:"bronze"`
		HonorableBelowMedian *bool `json:"honorable_below_median"`
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	a, err := s.cfg.Store.ContestAwardSettings(r.Context(), c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	for _, f := range []struct {
		name string
		v    *int
		dst  *int
	}{{"gold", req.Gold, &a.Gold}, {"silver", req.Silver, &a.Silver}, {"bronze", req.Bronze, &a.Bronze}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > ccs.MaxMedals {
			return badField(f.name, fmt.Sprintf("must be 0 to %d", ccs.MaxMedals))
		}
		*f.dst = *f.v
	}
	if req.HonorableBelowMedian != nil {
		a.HonorableBelowMedian = *req.HonorableBelowMedian
	}
	if err := s.cfg.Store.SetContestAwardSettings(r.Context(), c.ID, a); err != nil {
		return unavailableErr(err)
	}
	s.log.Info("award settings set", "contest_id", c.ID, "gold", a.Gold, "silver", a.Silver, "bronze", a.Bronze,
		"median", a.HonorableBelowMedian, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, AwardSettingsJSON(a))
	return nil
}

// ProblemColorJSON is a problem's balloon colour.
type ProblemColorJSON struct {
	Label string `json:"label"`
	Color string `json:"color"`
	RGB   string `json:"rgb"`
}

// rgbPattern: '#' and 3 or 6 hex digits (HTML; the CLICS problem's rgb).
var rgbPattern = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// MaxColorName bounds a colour's name.
const MaxColorName = 64

func (s *Server) handleProblemColors(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contestParam(r)
	if err != nil {
		return err
	}
	if userOf(r) == nil {
		return errUnauthorized
	}
	out, err := s.problemColors(r.Context(), c)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"problems": out})
	return nil
}

func (s *Server) problemColors(ctx context.Context, c *store.Contest) ([]ProblemColorJSON, error) {
	cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	colors, err := s.cfg.Store.ContestProblemColors(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]ProblemColorJSON, 0, len(cps))
	for _, p := range cps {
		col := colors[p.ProblemID]
		out = append(out, ProblemColorJSON{Label: p.Label, Color: col.Color, RGB: col.RGB})
	}
	return out, nil
}

// handleSetProblemColors replaces the contest's problem colours: every
// listed label must be one of its problems, with a colour name (1 to
// MaxColorName characters) and an RGB #rgb or #rrggbb; a problem not
// listed has none.
func (s *Server) handleSetProblemColors(w http.ResponseWriter, r *http.Request) error {
	u, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	var req struct {
		Problems []ProblemColorJSON `json:"problems"`
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	ctx := r.Context()
	cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	byLabel := map[string]int64{}
	for _, p := range cps {
		byLabel[p.Label] = p.ProblemID
	}
	seen := map[string]bool{}
	colors := make([]store.ProblemColor, 0, len(req.Problems))
	for i, p := range req.Problems {
		at := fmt.Sprintf("problem %d: ", i+1)
		id, ok := byLabel[p.Label]
		name := strings.TrimSpace(p.Color)
		switch {
		case !ok:
			return badField("problems", at+"label "+strconv.Quote(p.Label)+" is no problem of this contest")
		case seen[p.Label]:
			return badField("problems", at+"label "+p.Label+" is listed twice")
		case name == "" || utf8.RuneCountInString(name) > MaxColorName || hasControl(name):
			return badField("problems", fmt.Sprintf("%scolor must be a name of 1 to %d characters", at, MaxColorName))
		case !rgbPattern.MatchString(p.RGB):
			return badField("problems", at+"rgb must be #rgb or #rrggbb (hex)")
		}
		seen[p.Label] = true
		colors = append(colors, store.ProblemColor{ProblemID: id, Color: name, RGB: strings.ToLower(p.RGB)})
	}
	if err := s.cfg.Store.SetContestProblemColors(ctx, c.ID, colors); err != nil {
		return unavailableErr(err)
	}
	s.log.Info("problem colours set", "contest_id", c.ID, "problems", len(colors), "user_id", u.ID, "request_id", requestIDOf(r))
	out, err := s.problemColors(ctx, c)
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"problems": out})
	return nil
}

// standings are the contest's final standings for the results upload:
// the live board with every contestant on it (a team contest's teams but
// the hidden ones; an individual contest's registered users), its awards
// as staff edited them (ccs.EditStandings, as the Contest API's awards),
// and how the upload files name each team.
func (s *Server) standings(ctx context.Context, c *store.Contest) ([]ccs.Standing, []string, ccs.TeamInfo, error) {
	doc, err := s.judging.Scoreboard(ctx, c, false)
	if err != nil {
		return nil, nil, nil, err
	}
	ext, inst := map[string]string{}, map[string]string{}
	if c.TeamMode {
		teams, err := s.cfg.Store.ContestTeams(ctx, c.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		hidden, on := map[string]bool{}, map[string]bool{}
		for _, t := range teams {
			hidden[t.ExtID] = t.Hidden
			ext[t.ExtID] = cmp.Or(t.ICPCID, t.ExtID)
			if t.OrgName.Valid {
				inst[t.ExtID] = t.OrgName.String
			}
		}
		rows := doc.Rows[:0:0]
		for _, r := range doc.Rows {
			if id := ccs.RowTeamID(&r); !hidden[id] {
				on[id] = true
				rows = append(rows, r)
			}
		}
		for _, t := range teams {
			if !t.Hidden && !on[t.ExtID] {
				rows = append(rows, scoreboard.Row{User: t.ExtID, TeamID: t.ExtID, DisplayName: t.ShownName(), Problems: map[string]scoreboard.DocCell{}})
			}
		}
		doc.Rows = rows
	} else {
		parts, err := s.cfg.Store.ContestParticipants(ctx, c.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		registered := make([]scoreboard.Row, len(parts))
		for i, p := range parts {
			registered[i] = scoreboard.Row{User: p.Username, UserID: p.UserID, DisplayName: p.DisplayName}
		}
		doc = scoreboard.WithAbsent(doc, registered)
	}
	set, err := s.cfg.Store.ContestAwardSettings(ctx, c.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	groups, groupsOf, err := s.ccsService().GroupsOf(ctx, c, ccs.Viewer{Staff: true})
	if err != nil {
		return nil, nil, nil, err
	}
	edits, err := s.cfg.Store.ContestAwardEdits(ctx, c.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	cps, err := s.cfg.Store.ContestProblems(ctx, c.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	labels := make([]string, 0, len(cps))
	for _, p := range cps {
		labels = append(labels, p.Label)
	}
	st := ccs.EditStandings(doc.Rule, ccs.Standings(doc, ccs.AwardSettingsOf(set), groupsOf), groups, edits)
	def := ccs.DefaultTeamInfo(st)
	info := func(id string) (string, string) {
		e, i := def(id)
		return cmp.Or(ext[id], e), cmp.Or(inst[id], i)
	}
	return st, labels, info, nil
}

// handleResultsTSV serves results.tsv (staff): the ICPC results upload.
func (s *Server) handleResultsTSV(w http.ResponseWriter, r *http.Request) error {
	return s.serveTSV(w, r, "results", func(buf *bytes.Buffer, st []ccs.Standing, _ []string, info ccs.TeamInfo) error {
		return ccs.WriteResultsTSV(buf, st, info)
	})
}

// handleScoreboardTSV serves scoreboard.tsv (staff).
func (s *Server) handleScoreboardTSV(w http.ResponseWriter, r *http.Request) error {
	return s.serveTSV(w, r, "scoreboard", func(buf *bytes.Buffer, st []ccs.Standing, labels []string, info ccs.TeamInfo) error {
		return ccs.WriteScoreboardTSV(buf, st, labels, info)
	})
}

func (s *Server) serveTSV(w http.ResponseWriter, r *http.Request, name string,
	write func(*bytes.Buffer, []ccs.Standing, []string, ccs.TeamInfo) error) error {
	_, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	if e := paramsErr(r); e != nil {
		return e
	}
	st, labels, info, err := s.standings(r.Context(), c)
	if err != nil {
		return unavailableErr(err)
	}
	var buf bytes.Buffer
	if err := write(&buf, st, labels, info); err != nil {
		return internalErr(err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/tab-separated-values; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+name+`.tsv"`)
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if _, err := buf.WriteTo(w); err != nil {
		s.log.Debug(name+".tsv: client went away", obs.Err(err))
	}
	return nil
}

// BalloonsJSON is the balloon page: the list and the live channel that
// says when to read it again.
type BalloonsJSON struct {
	Items   []ccs.Balloon    `json:"items"`
	Channel protocol.Channel `json:"channel"`
}

func (s *Server) handleBalloons(w http.ResponseWriter, r *http.Request) error {
	_, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	items, err := s.ccsService().Balloons(r.Context(), c)
	if err != nil {
		return unavailableErr(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, BalloonsJSON{Items: items, Channel: protocol.Channel{Kind: protocol.ChannelBalloons, ID: c.ID}})
	return nil
}

// handleSetBalloon marks the balloon of {team} on problem {label}
// delivered or not ({"delivered": bool}); the balloon must exist.
func (s *Server) handleSetBalloon(w http.ResponseWriter, r *http.Request) error {
	u, c, err := s.icpcStaffContest(r)
	if err != nil {
		return err
	}
	var req struct {
		Delivered *bool `json:"delivered"`
	}
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Delivered == nil {
		return badField("delivered", "is required (true or false)")
	}
	ctx := r.Context()
	items, err := s.ccsService().Balloons(ctx, c)
	if err != nil {
		return unavailableErr(err)
	}
	team, label := chi.URLParam(r, "team"), chi.URLParam(r, "label")
	var b *ccs.Balloon
	for i := range items {
		if items[i].Team == team && items[i].Label == label {
			b = &items[i]
		}
	}
	if b == nil {
		return apiErr(http.StatusNotFound, CodeNotFound, "no balloon for team "+team+" on problem "+label)
	}
	if err := s.cfg.Store.SetBalloonDelivered(ctx, c.ID, store.BalloonKey{Team: team, ProblemID: b.ProblemID}, *req.Delivered, u.ID); err != nil {
		return unavailableErr(err)
	}
	what := "undelivered"
	if *req.Delivered {
		what = "delivered"
	}
	s.publishBalloon(ctx, protocol.BalloonChange{ContestID: c.ID, What: what, Team: team, ProblemID: b.ProblemID})
	items, err = s.ccsService().Balloons(ctx, c)
	if err != nil {
		return unavailableErr(err)
	}
	for i := range items {
		if items[i].Team == team && items[i].Label == label {
			writeJSON(w, http.StatusOK, items[i])
			return nil
		}
	}
	return errNotFound // rejudged away meanwhile
}

// publishBalloon tells the contest's balloon pages to read the list
// again. Best effort: the mark is stored; a page that misses it sees it
// on its next read.
func (s *Server) publishBalloon(ctx context.Context, ch protocol.BalloonChange) {
	body, err := json.Marshal(ch)
	if err != nil {
		return
	}
	state, _ := json.Marshal(map[string]int64{"changed_ms": s.cfg.Now().UnixMilli()})
	if _, err := s.judging.Queue().PublishDoc(ctx, protocol.Channel{Kind: protocol.ChannelBalloons, ID: ch.ContestID},
		protocol.EventBalloon, body, state); err != nil {
		s.log.Warn("balloon change not published", "contest_id", ch.ContestID, obs.Err(err))
	}
}
