package teamfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Account formats: the users of a contest with their passwords, as the
// CCS requirements' accounts.tsv and the CLICS/DOMjudge accounts.json
// give them.
const (
	FormatAccountsTSV  = "accounts.tsv"
	FormatAccountsJSON = "accounts.json"
)

// AccountFormats lists the account formats (not in Formats: they are
// users, not teams; see ParseAccounts).
var AccountFormats = []string{FormatAccountsTSV, FormatAccountsJSON}

// IsAccountFormat reports whether format is an account format.
func IsAccountFormat(format string) bool { return slices.Contains(AccountFormats, format) }

// Account types.
const (
	AccountTeam    = "team"
	AccountJudge   = "judge"
	AccountAdmin   = "admin"
	AccountAnalyst = "analyst"
	AccountStaff   = "staff"
)

// Account is one account of an account file: a user, its type and, for a
// team account, the team it is a member of.
type Account struct {
	Line     int    `json:"-"`
	ID       string `json:"id,omitempty"`
	Username string `json:"username"`
	Password string `json:"password,omitempty"`
	Type     string `json:"type"`
	Name     string `json:"name,omitempty"`
	// TeamID is a team account's team (its CLICS id). accounts.tsv names
	// it by the username, team-nnn, nnn the team number zero-padded: the
	// candidates are then TeamCandidates.
	TeamID string `json:"team_id,omitempty"`
	// TeamCandidates: an accounts.tsv team account's possible team ids
	// ("022" and "22" for team-022); the caller takes the first the
	// contest has.
	TeamCandidates []string `json:"-"`
}

var teamUserRE = regexp.MustCompile(`^team-?([0-9]+)$`)

// ParseAccounts reads an account file. Every error is a LineError inside
// Errors (line 0 or 1 for a file that is no such format at all). It
// checks the structure: a known type, a username, a team account's team;
// the caller checks usernames, names and passwords against its rules and
// that the teams exist.
func ParseAccounts(format string, r io.Reader) ([]Account, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("teamfmt: read: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var c checker
	var out []Account
	switch format {
	case FormatAccountsTSV:
		rows, nums, err := tsvLines(b)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 || len(rows[0]) < 2 || !slices.Contains([]string{"accounts", "file_version"}, strings.ToLower(rows[0][0])) ||
			rows[0][1] != "1" {
			line := 1
			if len(nums) > 0 {
				line = nums[0]
			}
			return nil, Errors{{Line: line, Field: "header", Message: `the first line must be "accounts", a tab and the version (1)`}}
		}
		for i, fs := range rows[1:] {
			line := nums[i+1]
			if len(fs) < 4 {
				c.add(line, []string{"type", "name", "username", "password"}[len(fs)],
					"is missing: a line has 4 tab-separated fields (type, full name, username, password)")
				continue
			}
			a := Account{Line: line, Type: strings.ToLower(fs[0]), Name: fs[1], Username: fs[2], Password: fs[3]}
			if a.Type == AccountTeam {
				m := teamUserRE.FindStringSubmatch(a.Username)
				if m == nil {
					c.add(line, "username", "a team account's username is team-<team number> (team-022), not %q", a.Username)
				} else {
					num := strings.TrimLeft(m[1], "0")
					if num == "" {
						num = "0"
					}
					a.TeamCandidates = []string{num}
					if m[1] != num {
						a.TeamCandidates = append(a.TeamCandidates, m[1])
					}
				}
			}
			out = append(out, a)
		}
	case FormatAccountsJSON:
		items, err := jsonItems(b)
		if err != nil {
			return nil, err
		}
		for i, raw := range items {
			var item struct {
				ID       flexString `json:"id"`
				Username string     `json:"username"`
				Password string     `json:"password"`
				Type     string     `json:"type"`
				Name     string     `json:"name"`
				TeamID   flexString `json:"team_id"`
				IP       string     `json:"ip"`
				PersonID flexString `json:"person_id"`
			}
			if !decodeItem(&c, i+1, raw, &item) {
				continue
			}
			a := Account{Line: i + 1, ID: string(item.ID), Username: item.Username, Password: item.Password, Type: strings.ToLower(item.Type),
				Name: item.Name, TeamID: string(item.TeamID)}
			if a.TeamID != "" {
				a.TeamCandidates = []string{a.TeamID}
			}
			if a.Type == AccountTeam && a.TeamID == "" {
				c.add(a.Line, "team_id", "is required for a team account")
			}
			c.id(a.Line, "team_id", a.TeamID, false)
			out = append(out, a)
		}
	default:
		return nil, fmt.Errorf("%w %q (one of %s)", ErrUnknownFormat, format, strings.Join(AccountFormats, ", "))
	}
	if len(out) > MaxItems {
		return nil, Errors{{Field: "file", Message: fmt.Sprintf("%d accounts; at most %d per import", len(out), MaxItems)}}
	}
	seen := map[string]int{}
	for _, a := range out {
		switch a.Type {
		case AccountTeam, AccountJudge, AccountAdmin, AccountAnalyst, AccountStaff:
		default:
			c.add(a.Line, "type", "%q is not an account type (team, judge, admin, analyst, staff)", a.Type)
		}
		c.text(a.Line, "name", a.Name, false)
		key := strings.ToLower(a.Username)
		switch {
		case a.Username == "":
			c.add(a.Line, "username", "is required")
		case seen[key] != 0:
			c.add(a.Line, "username", "%q is also on line %d", a.Username, seen[key])
		default:
			seen[key] = a.Line
		}
	}
	if len(out) == 0 && len(c.errs) == 0 {
		return nil, Errors{{Line: 1, Field: "file", Message: "lists no account"}}
	}
	if len(c.errs) > 0 {
		slices.SortStableFunc(c.errs, func(a, b LineError) int { return a.Line - b.Line })
		return nil, c.errs
	}
	return out, nil
}

// WriteAccounts writes accounts in an account format. Passwords are
// written as given ("" when not known: Verdict keeps only their hashes).
func WriteAccounts(w io.Writer, format string, as []Account) error {
	switch format {
	case FormatAccountsTSV:
		var b strings.Builder
		b.WriteString("accounts\t1\n")
		for _, a := range as {
			b.WriteString(tsv(a.Type, a.Name, a.Username, a.Password))
		}
		_, err := io.WriteString(w, b.String())
		return err
	case FormatAccountsJSON:
		if as == nil {
			as = []Account{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(as)
	}
	return fmt.Errorf("%w %q (one of %s)", ErrUnknownFormat, format, strings.Join(AccountFormats, ", "))
}
