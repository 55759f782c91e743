package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/verdict-oj/verdict/webapp/internal/teamfmt"
)

// ErrTeamHasSubmissions: a team that submitted cannot be deleted (its
// submissions keep its id; migration 0010).
var ErrTeamHasSubmissions = errors.New("store: the team has submissions")

// Group is a row of contest_groups (migration 0010).
type Group struct {
	ID        int64  `db:"id"`
	ContestID int64  `db:"contest_id"`
	ExtID     string `db:"ext_id"`
	ICPCID    string `db:"icpc_id"`
	Name      string `db:"name"`
	Hidden    bool   `db:"hidden"`
	SortOrder int    `db:"sort_order"`
}

// Organization is a row of contest_organizations.
type Organization struct {
	ID         int64  `db:"id"`
	ContestID  int64  `db:"contest_id"`
	ExtID      string `db:"ext_id"`
	ICPCID     string `db:"icpc_id"`
	Name       string `db:"name"`
	FormalName string `db:"formal_name"`
	Country    string `db:"country"`
}

// Team is a row of teams with its organisation's id and name, its groups'
// ids and its members.
type Team struct {
	ID             int64          `db:"id"`
	ContestID      int64          `db:"contest_id"`
	ExtID          string         `db:"ext_id"`
	ICPCID         string         `db:"icpc_id"`
	Name           string         `db:"name"`
	DisplayName    string         `db:"display_name"`
	OrganizationID sql.NullInt64  `db:"organization_id"`
	OrgExtID       sql.NullString `db:"org_ext_id"`
	OrgName        sql.NullString `db:"org_name"`
	// Groups are the team's groups' ext ids, Hidden whether any is
	// hidden (the team is then off the public board).
	Groups  []string     `db:"-"`
	Hidden  bool         `db:"-"`
	Members []TeamMember `db:"-"`
}

// ShownName is what a board shows: the display name, else the name.
func (t *Team) ShownName() string {
	if t.DisplayName != "" {
		return t.DisplayName
	}
	return t.Name
}

// TeamMember is a row of team_members with the user's names.
type TeamMember struct {
	TeamID      int64  `db:"team_id"`
	UserID      int64  `db:"user_id"`
	Username    string `db:"username"`
	DisplayName string `db:"display_name"`
	Role        string `db:"role"`
}

// ContestTeamMode reports whether a contest is a team contest
// (contests.team_mode). ErrNotFound for no such contest.
func (s *Store) ContestTeamMode(ctx context.Context, contestID int64) (bool, error) {
	var on bool
	err := s.DB.GetContext(ctx, &on, "SELECT team_mode FROM contests WHERE id = ?", contestID)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("store team mode of contest %d: %w", contestID, ErrNotFound)
	}
	if err != nil {
		return false, fmt.Errorf("store team mode of contest %d: %w", contestID, err)
	}
	return on, nil
}

// SetContestTeamMode makes a contest a team contest or an individual one.
func (s *Store) SetContestTeamMode(ctx context.Context, contestID int64, on bool) error {
	if _, err := s.DB.ExecContext(ctx, "UPDATE contests SET team_mode = ? WHERE id = ?", on, contestID); err != nil {
		return fmt.Errorf("store set team mode of contest %d: %w", contestID, err)
	}
	return nil
}

// ContestGroups lists a contest's groups by sort order, then id.
func (s *Store) ContestGroups(ctx context.Context, contestID int64) ([]Group, error) {
	out := []Group{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT id, contest_id, ext_id, icpc_id, name, hidden, sort_order
		FROM contest_groups WHERE contest_id = ? ORDER BY sort_order, id`, contestID); err != nil {
		return nil, fmt.Errorf("store groups of contest %d: %w", contestID, err)
	}
	return out, nil
}

// ContestOrganizations lists a contest's organisations by id.
func (s *Store) ContestOrganizations(ctx context.Context, contestID int64) ([]Organization, error) {
	out := []Organization{}
	if err := s.DB.SelectContext(ctx, &out, `SELECT id, contest_id, ext_id, icpc_id, name, formal_name, country
		FROM contest_organizations WHERE contest_id = ? ORDER BY id`, contestID); err != nil {
		return nil, fmt.Errorf("store organizations of contest %d: %w", contestID, err)
	}
	return out, nil
}

const teamSelect = `SELECT t.id, t.contest_id, t.ext_id, t.icpc_id, t.name, t.display_name, t.organization_id,
	o.ext_id AS org_ext_id, o.name AS org_name
	FROM teams t LEFT JOIN contest_organizations o ON o.id = t.organization_id`

// ContestTeams lists a contest's teams (by id) with their groups and
// members.
func (s *Store) ContestTeams(ctx context.Context, contestID int64) ([]Team, error) {
	out := []Team{}
	if err := s.DB.SelectContext(ctx, &out, teamSelect+" WHERE t.contest_id = ? ORDER BY t.id", contestID); err != nil {
		return nil, fmt.Errorf("store teams of contest %d: %w", contestID, err)
	}
	if err := s.fillTeams(ctx, contestID, out); err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Store) fillTeams(ctx context.Context, contestID int64, ts []Team) error {
	var gs []struct {
		TeamID int64  `db:"team_id"`
		ExtID  string `db:"ext_id"`
		Hidden bool   `db:"hidden"`
	}
	if err := s.DB.SelectContext(ctx, &gs, `SELECT tg.team_id, g.ext_id, g.hidden
		FROM team_groups tg JOIN contest_groups g ON g.id = tg.group_id
		WHERE g.contest_id = ? ORDER BY g.sort_order, g.id`, contestID); err != nil {
		return fmt.Errorf("store team groups of contest %d: %w", contestID, err)
	}
	var ms []TeamMember
	if err := s.DB.SelectContext(ctx, &ms, `SELECT m.team_id, m.user_id, u.username, u.display_name, m.role
		FROM team_members m JOIN users u ON u.id = m.user_id
		WHERE m.contest_id = ? ORDER BY m.team_id, u.username`, contestID); err != nil {
		return fmt.Errorf("store team members of contest %d: %w", contestID, err)
	}
	idx := make(map[int64]int, len(ts))
	for i := range ts {
		ts[i].Groups, ts[i].Members = []string{}, []TeamMember{}
		idx[ts[i].ID] = i
	}
	for _, g := range gs {
		if i, ok := idx[g.TeamID]; ok {
			ts[i].Groups = append(ts[i].Groups, g.ExtID)
			ts[i].Hidden = ts[i].Hidden || g.Hidden
		}
	}
	for _, m := range ms {
		if i, ok := idx[m.TeamID]; ok {
			ts[i].Members = append(ts[i].Members, m)
		}
	}
	return nil
}

// TeamOfUser returns the team a user is on in a contest, or ErrNotFound.
func (s *Store) TeamOfUser(ctx context.Context, contestID, userID int64) (Team, error) {
	var t Team
	err := s.DB.GetContext(ctx, &t, teamSelect+` JOIN team_members m ON m.team_id = t.id
		WHERE m.contest_id = ? AND m.user_id = ?`, contestID, userID)
	if errors.Is(err, sql.ErrNoRows) {
		return Team{}, fmt.Errorf("store team of user %d in contest %d: %w", userID, contestID, ErrNotFound)
	}
	if err != nil {
		return Team{}, fmt.Errorf("store team of user %d in contest %d: %w", userID, contestID, err)
	}
	return t, nil
}

// TeamImport counts what an import changed.
type TeamImport struct {
	Groups        int `json:"groups"`
	Organizations int `json:"organizations"`
	Teams         int `json:"teams"`
	Members       int `json:"members"`
}

// ImportTeams applies a parsed file to a contest in one transaction:
// groups, organisations and teams are created or updated by id; a
// team's groups are replaced; its members are replaced when the file
// lists members (teams.json with "members", CSV with a members column)
// and are registered as the contest's participants. A group or
// organisation a team names must exist (in the contest or the same
// file); a member must be a user, on no other team of the contest unless
// this file moves them. Errors are teamfmt.Errors naming the lines;
// nothing is written then.
func (s *Store) ImportTeams(ctx context.Context, contestID int64, d *teamfmt.Data) (TeamImport, error) {
	var res TeamImport
	op := fmt.Sprintf("store import teams into contest %d", contestID)
	err := s.inTx(ctx, op, func(tx *sqlx.Tx) error {
		res = TeamImport{}
		var errs teamfmt.Errors
		bad := func(line int, field, format string, args ...any) {
			if len(errs) < teamfmt.MaxErrors {
				errs = append(errs, teamfmt.LineError{Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
			}
		}
		for _, g := range d.Groups {
			if _, err := tx.ExecContext(ctx, `INSERT INTO contest_groups (contest_id, ext_id, icpc_id, name, hidden, sort_order)
				VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE icpc_id = VALUES(icpc_id), name = VALUES(name),
				hidden = VALUES(hidden), sort_order = VALUES(sort_order)`,
				contestID, g.ID, g.ICPCID, g.Name, g.Hidden, g.SortOrder); err != nil {
				return err
			}
			res.Groups++
		}
		for _, o := range d.Organizations {
			if _, err := tx.ExecContext(ctx, `INSERT INTO contest_organizations (contest_id, ext_id, icpc_id, name, formal_name, country)
				VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE icpc_id = VALUES(icpc_id), name = VALUES(name),
				formal_name = VALUES(formal_name), country = VALUES(country)`,
				contestID, o.ID, o.ICPCID, o.Name, o.FormalName, o.Country); err != nil {
				return err
			}
			res.Organizations++
		}
		if len(d.Teams) == 0 {
			return nil
		}
		groups, err := extIDs(ctx, tx, "contest_groups", contestID)
		if err != nil {
			return err
		}
		orgs, err := extIDs(ctx, tx, "contest_organizations", contestID)
		if err != nil {
			return err
		}
		// Members: every username named, resolved at once.
		var names []string
		for _, t := range d.Teams {
			names = append(names, t.Members...)
		}
		users := map[string]int64{}
		if len(names) > 0 {
			q, args, err := sqlx.In("SELECT id, username FROM users WHERE username IN (?)", names)
			if err != nil {
				return err
			}
			var rows []struct {
				ID       int64  `db:"id"`
				Username string `db:"username"`
			}
			if err := tx.SelectContext(ctx, &rows, tx.Rebind(q), args...); err != nil {
				return err
			}
			for _, r := range rows {
				users[strings.ToLower(r.Username)] = r.ID
			}
		}
		// Who is on which team now, and which teams this file names.
		var current []struct {
			UserID int64  `db:"user_id"`
			ExtID  string `db:"ext_id"`
		}
		if err := tx.SelectContext(ctx, &current, `SELECT m.user_id, t.ext_id FROM team_members m JOIN teams t ON t.id = m.team_id
			WHERE m.contest_id = ?`, contestID); err != nil {
			return err
		}
		inFile := map[string]bool{}
		for _, t := range d.Teams {
			if t.Members != nil {
				inFile[t.ID] = true
			}
		}
		onTeam := map[int64]string{}
		for _, c := range current {
			if !inFile[c.ExtID] { // members of teams this file replaces are free
				onTeam[c.UserID] = c.ExtID
			}
		}
		claimed := map[int64]int{} // user → line of this file
		for _, t := range d.Teams {
			for _, gid := range t.GroupIDs {
				if _, ok := groups[gid]; !ok {
					bad(t.Line, "group_ids", "no group %q in this contest (import the groups first)", gid)
				}
			}
			if t.OrganizationID != "" {
				if _, ok := orgs[t.OrganizationID]; !ok {
					bad(t.Line, "organization_id", "no organization %q in this contest (import the organizations first)", t.OrganizationID)
				}
			}
			for _, m := range t.Members {
				uid, ok := users[strings.ToLower(m)]
				switch {
				case !ok:
					bad(t.Line, "members", "no user %q", m)
				case claimed[uid] != 0:
					bad(t.Line, "members", "%q is also a member on line %d", m, claimed[uid])
				case onTeam[uid] != "" && onTeam[uid] != t.ID:
					bad(t.Line, "members", "%q is on team %q of this contest already", m, onTeam[uid])
				}
				if ok && claimed[uid] == 0 {
					claimed[uid] = t.Line
				}
			}
		}
		if len(errs) > 0 {
			return errs
		}
		for _, t := range d.Teams {
			var org any
			if t.OrganizationID != "" {
				org = orgs[t.OrganizationID]
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO teams (contest_id, ext_id, icpc_id, name, display_name, organization_id)
				VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE icpc_id = VALUES(icpc_id), name = VALUES(name),
				display_name = VALUES(display_name), organization_id = VALUES(organization_id)`,
				contestID, t.ID, t.ICPCID, t.Name, t.DisplayName, org); err != nil {
				return err
			}
			var tid int64
			if err := tx.GetContext(ctx, &tid, "SELECT id FROM teams WHERE contest_id = ? AND ext_id = ?", contestID, t.ID); err != nil {
				return err
			}
			res.Teams++
			if _, err := tx.ExecContext(ctx, "DELETE FROM team_groups WHERE team_id = ?", tid); err != nil {
				return err
			}
			for _, gid := range t.GroupIDs {
				if _, err := tx.ExecContext(ctx, "INSERT IGNORE INTO team_groups (team_id, group_id) VALUES (?, ?)", tid, groups[gid]); err != nil {
					return err
				}
			}
			if t.Members == nil {
				continue
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM team_members WHERE team_id = ?", tid); err != nil {
				return err
			}
			ids := make([]int64, 0, len(t.Members))
			for _, m := range t.Members {
				ids = append(ids, users[strings.ToLower(m)])
			}
			for _, uid := range ids {
				if _, err := tx.ExecContext(ctx, "INSERT INTO team_members (team_id, contest_id, user_id) VALUES (?, ?, ?)",
					tid, contestID, uid); err != nil {
					return err
				}
				res.Members++
			}
			if _, err := insertParticipants(ctx, tx, contestID, ids); err != nil {
				return err
			}
		}
		return nil
	})
	if te, ok := errors.AsType[teamfmt.Errors](err); ok {
		return TeamImport{}, te
	}
	return res, err
}

// extIDs maps a contest's objects of a table by ext id.
func extIDs(ctx context.Context, tx *sqlx.Tx, table string, contestID int64) (map[string]int64, error) {
	var rows []struct {
		ID    int64  `db:"id"`
		ExtID string `db:"ext_id"`
	}
	if err := tx.SelectContext(ctx, &rows, "SELECT id, ext_id FROM "+table+" WHERE contest_id = ?", contestID); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.ExtID] = r.ID
	}
	return out, nil
}

// DeleteTeam deletes a contest's team by ext id (its members stay
// registered). ErrNotFound, or ErrTeamHasSubmissions.
func (s *Store) DeleteTeam(ctx context.Context, contestID int64, extID string) error {
	return s.inTx(ctx, fmt.Sprintf("store delete team %q of contest %d", extID, contestID), func(tx *sqlx.Tx) error {
		var id int64
		err := tx.GetContext(ctx, &id, "SELECT id FROM teams WHERE contest_id = ? AND ext_id = ? FOR UPDATE", contestID, extID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, "SELECT COUNT(*) FROM submissions WHERE team_id = ?", id); err != nil {
			return err
		}
		if n > 0 {
			return ErrTeamHasSubmissions
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM teams WHERE id = ?", id)
		return err
	})
}

// DeleteGroup deletes a contest's group (teams leave it).
func (s *Store) DeleteGroup(ctx context.Context, contestID int64, extID string) error {
	return s.deleteExt(ctx, "contest_groups", contestID, extID)
}

// DeleteOrganization deletes a contest's organisation (its teams keep
// no affiliation).
func (s *Store) DeleteOrganization(ctx context.Context, contestID int64, extID string) error {
	return s.deleteExt(ctx, "contest_organizations", contestID, extID)
}

func (s *Store) deleteExt(ctx context.Context, table string, contestID int64, extID string) error {
	res, err := s.DB.ExecContext(ctx, "DELETE FROM "+table+" WHERE contest_id = ? AND ext_id = ?", contestID, extID)
	if err != nil {
		return fmt.Errorf("store delete %s %q: %w", table, extID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store delete %s %q: %w", table, extID, ErrNotFound)
	}
	return nil
}

// ExportTeams is a contest's groups, organisations and teams (with
// members) as teamfmt data.
func (s *Store) ExportTeams(ctx context.Context, contestID int64) (*teamfmt.Data, error) {
	gs, err := s.ContestGroups(ctx, contestID)
	if err != nil {
		return nil, err
	}
	os, err := s.ContestOrganizations(ctx, contestID)
	if err != nil {
		return nil, err
	}
	ts, err := s.ContestTeams(ctx, contestID)
	if err != nil {
		return nil, err
	}
	d := &teamfmt.Data{Groups: []teamfmt.Group{}, Organizations: []teamfmt.Organization{}, Teams: []teamfmt.Team{}}
	for _, g := range gs {
		d.Groups = append(d.Groups, teamfmt.Group{ID: g.ExtID, ICPCID: g.ICPCID, Name: g.Name, Hidden: g.Hidden, SortOrder: g.SortOrder})
	}
	for _, o := range os {
		d.Organizations = append(d.Organizations, teamfmt.Organization{ID: o.ExtID, ICPCID: o.ICPCID, Name: o.Name,
			FormalName: o.FormalName, Country: o.Country})
	}
	for _, t := range ts {
		ft := teamfmt.Team{ID: t.ExtID, ICPCID: t.ICPCID, Name: t.Name, DisplayName: t.DisplayName,
			OrganizationID: t.OrgExtID.String, GroupIDs: slices.Clone(t.Groups), Members: []string{}}
		for _, m := range t.Members {
			ft.Members = append(ft.Members, m.Username)
		}
		d.Teams = append(d.Teams, ft)
	}
	slices.SortFunc(d.Teams, func(a, b teamfmt.Team) int { return teamfmt.CompareIDs(a.ID, b.ID) })
	return d, nil
}

// TeamHidden reports whether a team is in a hidden group (off the public
// board).
func (s *Store) TeamHidden(ctx context.Context, teamID int64) (bool, error) {
	var n int
	if err := s.DB.GetContext(ctx, &n, `SELECT COUNT(*) FROM team_groups tg JOIN contest_groups g ON g.id = tg.group_id
		WHERE tg.team_id = ? AND g.hidden`, teamID); err != nil {
		return false, fmt.Errorf("store team %d hidden: %w", teamID, err)
	}
	return n > 0, nil
}
