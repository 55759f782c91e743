package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
	"github.com/verdict-oj/verdict/webapp/internal/teamfmt"
)

// Accounts of a contest (docs/icpc.md, "Accounts"): accounts.tsv and
// accounts.json create or update users with their passwords; a team
// account joins its team (a team contest's) and is registered in the
// contest. Through the team import and export endpoints
// (?format=accounts.tsv|accounts.json), admins only.

// AccountImportJSON answers an account import.
type AccountImportJSON struct {
	Format     string `json:"format"`
	Created    int    `json:"created"`
	Updated    int    `json:"updated"`
	Members    int    `json:"members"`
	Registered int    `json:"registered"`
	// Passwords are the passwords made up for new users the file gave
	// none (username → password), shown once.
	Passwords map[string]string `json:"passwords,omitempty"`
}

// accountRole maps an account type to a Verdict role ("" for none).
func accountRole(typ string) string {
	switch typ {
	case teamfmt.AccountTeam:
		return store.RoleStudent
	case teamfmt.AccountJudge, teamfmt.AccountStaff:
		return store.RoleSetter
	case teamfmt.AccountAdmin:
		return store.RoleAdmin
	}
	return ""
}

// teamfmtErr is the 400 answer to a rejected import, with every bad line.
func teamfmtErr(errs teamfmt.Errors) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d error(s); nothing was imported: ", len(errs))
	for i, le := range errs {
		if i == 5 {
			b.WriteString(" …")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(le.Error())
	}
	field := "file"
	if len(errs) == 1 && errs[0].Line > 0 {
		field = errs[0].Field
	}
	e := fieldErr(http.StatusBadRequest, CodeValidation, field, b.String())
	return withBody(e, teamImportError{Error: e, Errors: errs})
}

// importAccounts imports team accounts (handleImportTeams).
func (s *Server) importAccounts(w http.ResponseWriter, r *http.Request, c *store.Contest, admin *store.User, format string, data []byte) error {
	ctx := r.Context()
	as, err := teamfmt.ParseAccounts(format, bytes.NewReader(data))
	if errs, ok := errors.AsType[teamfmt.Errors](err); ok {
		return teamfmtErr(errs)
	}
	if err != nil {
		return internalErr(err)
	}
	teams, err := s.cfg.Store.ContestTeams(ctx, c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	teamOf := map[string]string{} // a member's username → its team
	known := map[string]bool{}
	for _, t := range teams {
		known[t.ExtID] = true
		for _, m := range t.Members {
			teamOf[strings.ToLower(m.Username)] = t.ExtID
		}
	}
	names := make([]string, 0, len(as))
	for _, a := range as {
		names = append(names, a.Username)
	}
	existing, err := s.cfg.Store.UsersByUsername(ctx, names)
	if err != nil {
		return unavailableErr(err)
	}
	var errs teamfmt.Errors
	bad := func(line int, field, format string, args ...any) {
		if len(errs) < teamfmt.MaxErrors {
			errs = append(errs, teamfmt.LineError{Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
		}
	}
	users := make([]store.ImportUser, 0, len(as))
	passwords := make([]string, 0, len(as))
	made := map[string]string{}
	var joins []store.TeamJoin
	for _, a := range as {
		role := accountRole(a.Type)
		name := account.StripBidi(a.Name)
		if name == "" {
			name = a.Username
		}
		var fe *account.FieldError
		switch {
		case role == "":
			bad(a.Line, "type", "Verdict has no %q role: import analysts as judges, or give them a read API token", a.Type)
			continue
		case errors.As(account.ValidateUsername(a.Username), &fe), errors.As(account.ValidateDisplayName(name), &fe):
			bad(a.Line, fe.Field, "%s %s", fe.Field, fe.Message)
			continue
		case a.Password != "" && errors.As(account.ValidatePassword(a.Password), &fe):
			bad(a.Line, "password", "password %s", fe.Message)
			continue
		case strings.EqualFold(a.Username, admin.Username) && (role != admin.Role || a.Password != ""):
			bad(a.Line, "username", "your own account: change your role and password on your account page")
			continue
		}
		if a.Type == teamfmt.AccountTeam {
			j := store.TeamJoin{Username: a.Username}
			if c.TeamMode {
				for _, id := range a.TeamCandidates {
					if known[id] {
						j.TeamExtID = id
						break
					}
				}
				cur := teamOf[strings.ToLower(a.Username)]
				switch {
				case j.TeamExtID == "":
					bad(a.Line, "team_id", "no team %s in this contest (import the teams first)", strings.Join(a.TeamCandidates, " or "))
					continue
				case cur != "" && cur != j.TeamExtID:
					bad(a.Line, "username", "%q is on team %q of this contest already", a.Username, cur)
					continue
				}
			}
			joins = append(joins, j)
		}
		pw := a.Password
		if _, ok := existing[a.Username]; !ok && pw == "" {
			pw = account.RandomPassword()
			made[a.Username] = pw
		}
		users = append(users, store.ImportUser{Line: a.Line, Username: a.Username, DisplayName: name, Role: role})
		passwords = append(passwords, pw)
	}
	if len(errs) > 0 {
		return teamfmtErr(errs)
	}
	// Hash before the transaction (bcrypt is slow on purpose), on every core.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var hashErr error
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				h, err := s.hasher.Hash(ctx, passwords[i])
				mu.Lock()
				if err != nil {
					hashErr = err
				} else {
					users[i].PasswordHash = h
				}
				mu.Unlock()
			}
		})
	}
	for i := range users {
		if passwords[i] != "" {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	if hashErr != nil {
		return s.hashErr(r, hashErr)
	}
	res, lineErrs, err := s.cfg.Store.ImportUsers(ctx, users, 0)
	if errors.Is(err, store.ErrImportRejected) {
		var te teamfmt.Errors
		for _, le := range lineErrs {
			te = append(te, teamfmt.LineError{Line: le.Line, Field: le.Field, Message: le.Message})
		}
		return teamfmtErr(te)
	}
	if err != nil {
		return unavailableErr(err)
	}
	for _, id := range res.Ended {
		s.endSessions(ctx, id, "")
	}
	out := AccountImportJSON{Format: format, Created: res.Created, Updated: res.Updated}
	if len(made) > 0 {
		out.Passwords = made
	}
	if len(joins) > 0 {
		out.Members, out.Registered, err = s.cfg.Store.JoinTeams(ctx, c.ID, joins)
		if errors.Is(err, store.ErrOnAnotherTeam) || errors.Is(err, store.ErrNotFound) {
			// The teams changed since the check: the users are written.
			return fieldErr(http.StatusConflict, CodeConflict, "file", "the users were imported but not put on their teams: "+err.Error())
		}
		if err != nil {
			return unavailableErr(err)
		}
		s.participantsChanged(c)
		if c.TeamMode && out.Members > 0 {
			s.teamsChanged(r, c)
		}
	}
	s.log.Info("accounts imported", "contest_id", c.ID, "format", format, "created", res.Created, "updated", res.Updated,
		"members", out.Members, "registered", out.Registered, "by", admin.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, out)
	return nil
}

// exportAccounts writes a contest's team accounts: a team contest's
// members (each with its team), else the registered users. Passwords
// are empty: Verdict keeps only their hashes.
func (s *Server) exportAccounts(w http.ResponseWriter, r *http.Request, c *store.Contest, format string) error {
	ctx := r.Context()
	var as []teamfmt.Account
	if c.TeamMode {
		teams, err := s.cfg.Store.ContestTeams(ctx, c.ID)
		if err != nil {
			return unavailableErr(err)
		}
		for _, t := range teams {
			for _, m := range t.Members {
				as = append(as, teamfmt.Account{ID: m.Username, Username: m.Username, Type: teamfmt.AccountTeam, Name: m.DisplayName, TeamID: t.ExtID})
			}
		}
	} else {
		ps, err := s.cfg.Store.ContestParticipants(ctx, c.ID)
		if err != nil {
			return unavailableErr(err)
		}
		for _, p := range ps {
			as = append(as, teamfmt.Account{ID: p.Username, Username: p.Username, Type: teamfmt.AccountTeam, Name: p.DisplayName})
		}
	}
	var buf bytes.Buffer
	if err := teamfmt.WriteAccounts(&buf, format, as); err != nil {
		return internalErr(err)
	}
	ct := "text/tab-separated-values; charset=utf-8"
	if format == teamfmt.FormatAccountsJSON {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="`+format+`"`)
	_, _ = w.Write(buf.Bytes())
	return nil
}
