package ccs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/scoreboard"
	"github.com/verdict-oj/verdict/webapp/internal/store"
	"github.com/verdict-oj/verdict/webapp/internal/teamfmt"
)

// TypeTeamMembers is the team-members endpoint (staff only: members'
// names are personal data).
const TypeTeamMembers = "team-members"

// TeamGroup is a CLICS group (a category of teams; awards.go's Group is
// the awards' view of one).
type TeamGroup struct {
	ID     string  `json:"id"`
	ICPCID *string `json:"icpc_id,omitempty"`
	Name   string  `json:"name"`
}

// OrganizationOf is the CLICS organization of a stored one.
func OrganizationOf(o *store.Organization) Organization {
	out := Organization{ID: o.ExtID, ICPCID: strPtr(o.ICPCID), Name: o.Name, FormalName: strPtr(o.FormalName)}
	if o.Country != "" {
		out.Country = strPtr(o.Country)
	}
	return out
}

// TeamMember is a CLICS team member: a user on a team.
type TeamMember struct {
	ID        string `json:"id"`
	TeamID    string `json:"team_id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Role      string `json:"role"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// GroupOf is the CLICS group of a stored one.
func GroupOf(g *store.Group) TeamGroup {
	return TeamGroup{ID: g.ExtID, ICPCID: strPtr(g.ICPCID), Name: g.Name}
}

// TeamOf is the CLICS team of a stored one (its label is its id).
func TeamOf(t *store.Team) Team {
	out := Team{ID: t.ExtID, ICPCID: strPtr(t.ICPCID), Name: t.Name, Label: t.ExtID, DisplayName: strPtr(t.DisplayName),
		Hidden: t.Hidden, GroupIDs: slices.Clone(t.Groups)}
	if out.GroupIDs == nil {
		out.GroupIDs = []string{}
	}
	if t.OrgExtID.Valid {
		o := t.OrgExtID.String
		out.OrganizationID = &o
	}
	return out
}

// MemberOf is the CLICS team member of a stored one: the user's display
// name split at its last space into first and last name (a name of one
// word is the first name).
func MemberOf(t *store.Team, m *store.TeamMember) TeamMember {
	name := strings.TrimSpace(m.DisplayName)
	if name == "" {
		name = m.Username
	}
	first, last := name, ""
	if i := strings.LastIndexByte(name, ' '); i > 0 {
		first, last = strings.TrimSpace(name[:i]), name[i+1:]
	}
	role := m.Role
	if role == "" {
		role = "contestant"
	}
	return TeamMember{ID: ID(m.UserID), TeamID: t.ExtID, FirstName: first, LastName: last, Role: role}
}

// SubmissionTeamID is the CLICS team of a submission: its team's in a team
// contest, its user's otherwise.
func SubmissionTeamID(c *store.Contest, sub *store.Submission) string {
	if c.TeamMode && sub.TeamExtID.Valid {
		return sub.TeamExtID.String
	}
	return ID(sub.UserID)
}

// Groups lists a contest's groups (the public's without the hidden ones).
func (s *Service) Groups(ctx context.Context, c *store.Contest, v Viewer) ([]TeamGroup, error) {
	gs, err := s.St.ContestGroups(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := []TeamGroup{}
	for i := range gs {
		if !gs[i].Hidden || v.Staff {
			out = append(out, GroupOf(&gs[i]))
		}
	}
	slices.SortFunc(out, func(a, b TeamGroup) int { return teamfmt.CompareIDs(a.ID, b.ID) })
	return out, nil
}

// Organizations lists a contest's organisations.
func (s *Service) Organizations(ctx context.Context, c *store.Contest) ([]Organization, error) {
	os, err := s.St.ContestOrganizations(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Organization, 0, len(os))
	for i := range os {
		out = append(out, OrganizationOf(&os[i]))
	}
	slices.SortFunc(out, func(a, b Organization) int { return teamfmt.CompareIDs(a.ID, b.ID) })
	return out, nil
}

// contestTeams are a team contest's teams a viewer may see (the public's
// without those of hidden groups).
func (s *Service) contestTeams(ctx context.Context, c *store.Contest, v Viewer) ([]store.Team, error) {
	ts, err := s.St.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ts, func(t store.Team) bool { return t.Hidden && !v.Staff }), nil
}

// TeamMembers lists a team contest's members (staff only; the caller
// checks).
func (s *Service) TeamMembers(ctx context.Context, c *store.Contest) ([]TeamMember, error) {
	out := []TeamMember{}
	if !c.TeamMode {
		return out, nil
	}
	ts, err := s.St.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		for j := range ts[i].Members {
			out = append(out, MemberOf(&ts[i], &ts[i].Members[j]))
		}
	}
	slices.SortFunc(out, func(a, b TeamMember) int { return cmpID(a.ID, b.ID) })
	return out, nil
}

// FactObject is a CLICS object carried by a FactObjects fact: Data nil is
// a deletion. Hidden objects go to staff readers only (a hidden group, a
// team of one, every team member).
type FactObject struct {
	Type   string          `json:"t"`
	ID     string          `json:"i"`
	Data   json.RawMessage `json:"d,omitempty"`
	Hidden bool            `json:"h,omitempty"`
}

// FactObjects: groups, organisations, teams or members changed (an
// import, a deletion); the fact carries the objects as they are now.
const FactObjects = "objects"

// TeamObjects maps a contest's groups, organisations, teams and members
// as FactObjects (every object, hidden marked), in the order a client
// needs them: groups and organisations before the teams naming them.
func TeamObjects(gs []store.Group, os []store.Organization, ts []store.Team) []FactObject {
	var out []FactObject
	add := func(typ, id string, v any, hidden bool) {
		b, _ := json.Marshal(v)
		out = append(out, FactObject{Type: typ, ID: id, Data: b, Hidden: hidden})
	}
	for i := range gs {
		add(TypeGroups, gs[i].ExtID, GroupOf(&gs[i]), gs[i].Hidden)
	}
	for i := range os {
		add(TypeOrganizations, os[i].ExtID, OrganizationOf(&os[i]), false)
	}
	for i := range ts {
		add(TypeTeams, ts[i].ExtID, TeamOf(&ts[i]), ts[i].Hidden)
	}
	for i := range ts {
		for j := range ts[i].Members {
			m := MemberOf(&ts[i], &ts[i].Members[j])
			add(TypeTeamMembers, m.ID, m, true)
		}
	}
	return out
}

// objectEvents are a FactObjects fact's events for a reader.
func (r *Reader) objectEvents(f Fact) []Event {
	var out []Event
	for _, o := range f.Objects {
		if r.Public && o.Hidden {
			continue
		}
		var data any
		if len(o.Data) > 0 {
			data = o.Data
		}
		if o.Type == TypeTeams {
			// The team as imported: a submission fact must not replace
			// it with the little it carries (organisation, groups).
			r.teamKeysSent[o.ID] = data != nil
		}
		out = append(out, NewEvent(o.Type, o.ID, data))
	}
	return out
}

// TeamsFor lists the teams a viewer may see: a team contest's teams (the
// public's without those of hidden groups), else the registered users
// as teams of one.
func (s *Service) TeamsFor(ctx context.Context, c *store.Contest, v Viewer) ([]Team, error) {
	if !c.TeamMode {
		return s.Teams(ctx, c)
	}
	ts, err := s.contestTeams(ctx, c, v)
	if err != nil {
		return nil, err
	}
	out := make([]Team, 0, len(ts))
	for i := range ts {
		out = append(out, TeamOf(&ts[i]))
	}
	slices.SortFunc(out, func(a, b Team) int { return teamfmt.CompareIDs(a.ID, b.ID) })
	return out, nil
}

// teamSubmissions keeps the submissions made for a team the viewer may
// see.
func (s *Service) teamSubmissions(ctx context.Context, c *store.Contest, v Viewer, subs []store.Submission) ([]store.Submission, error) {
	ts, err := s.contestTeams(ctx, c, v)
	if err != nil {
		return nil, err
	}
	shown := make(map[int64]bool, len(ts))
	for _, t := range ts {
		shown[t.ID] = true
	}
	return slices.DeleteFunc(subs, func(sub store.Submission) bool { return !sub.TeamID.Valid || !shown[sub.TeamID.Int64] }), nil
}

// teamSnapshot is a team contest's groups, organisations, teams and (for
// staff) members as the feed's first events, with r's teams recorded.
func (s *Service) teamSnapshot(ctx context.Context, c *store.Contest, v Viewer, r *Reader) ([]Event, error) {
	gs, err := s.St.ContestGroups(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	os, err := s.St.ContestOrganizations(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	ts, err := s.St.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, o := range TeamObjects(gs, os, ts) {
		if r.Public && o.Hidden {
			continue
		}
		if o.Type == TypeTeams {
			r.SentTeamKey(o.ID)
		}
		out = append(out, NewEvent(o.Type, o.ID, o.Data))
	}
	return out, nil
}

// GroupsOf are a team contest's groups as the awards name them, and
// each team's groups (by CLICS team id): what group winners are computed
// from. Hidden groups are left out for the public.
func (s *Service) GroupsOf(ctx context.Context, c *store.Contest, v Viewer) ([]Group, map[string][]Group, error) {
	groups, byTeam := []Group{}, map[string][]Group{}
	if !c.TeamMode {
		return groups, byTeam, nil
	}
	gs, err := s.St.ContestGroups(ctx, c.ID)
	if err != nil {
		return nil, nil, err
	}
	names := map[string]Group{}
	for _, g := range gs {
		if g.Hidden && !v.Staff {
			continue
		}
		names[g.ExtID] = Group{ID: g.ExtID, Name: g.Name}
		groups = append(groups, names[g.ExtID])
	}
	ts, err := s.contestTeams(ctx, c, v)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range ts {
		for _, g := range t.Groups {
			if n, ok := names[g]; ok {
				byTeam[t.ExtID] = append(byTeam[t.ExtID], n)
			}
		}
	}
	return groups, byTeam, nil
}

// GroupScoreboard is the scoreboard of one group's teams, ranked among
// themselves (CLICS scoreboard?group_id=). ErrNotFound for no such group
// (a hidden one for the public, or not a team contest).
func (s *Service) GroupScoreboard(ctx context.Context, c *store.Contest, v Viewer, now time.Time, group string) (Scoreboard, error) {
	groups, byTeam, err := s.GroupsOf(ctx, c, v)
	if err != nil {
		return Scoreboard{}, err
	}
	if !slices.ContainsFunc(groups, func(g Group) bool { return g.ID == group }) {
		return Scoreboard{}, fmt.Errorf("%w: group %q", ErrNotFound, group)
	}
	doc, labels, ids, err := s.board(ctx, c, v)
	if err != nil {
		return Scoreboard{}, err
	}
	if !started(c, v, now) {
		doc.Rows = nil
	}
	doc = scoreboard.Filter(doc, func(r *scoreboard.Row) bool {
		return slices.ContainsFunc(byTeam[RowTeamID(r)], func(g Group) bool { return g.ID == group })
	})
	return ScoreboardOf(c, doc, labels, ids, now), nil
}

// TeamClarifications names a team contest's clarifications by team: a
// question from a member is from their team, an answer to them is to
// their team. team maps a user's id (as a CLICS id) to their team's;
// users on no team (staff) keep their own.
func TeamClarifications(cls []Clarification, team func(user string) (string, bool)) []Clarification {
	for i := range cls {
		for _, p := range []**string{&cls[i].FromTeamID, &cls[i].ToTeamID} {
			if *p == nil {
				continue
			}
			if t, ok := team(**p); ok {
				*p = &t
			}
		}
	}
	return cls
}

// memberTeams maps a team contest's members (user ids as CLICS ids) to
// their teams' ids.
func (s *Service) memberTeams(ctx context.Context, c *store.Contest) (map[string]string, error) {
	ts, err := s.St.ContestTeams(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range ts {
		for _, m := range t.Members {
			out[ID(m.UserID)] = t.ExtID
		}
	}
	return out, nil
}
