package server

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// MaxImportBytes caps the CSV of one user import.
const MaxImportBytes = 4 << 20

// importColumns are the columns a user CSV may have; username is required.
var importColumns = []string{"username", "display_name", "email", "password", "role"}

// ImportJSON answers POST /api/users/import.
type ImportJSON struct {
	Created int                     `json:"created"`
	Updated int                     `json:"updated"`
	Errors  []store.ImportLineError `json:"errors"`
	// Passwords holds the generated password of every created user whose
	// row had none, by username. It is in this answer only.
	Passwords map[string]string `json:"passwords,omitempty"`
	// Contest is present when the import registered the users in a
	// contest (?contest=<slug>).
	Contest *ImportContestJSON `json:"contest,omitempty"`
}

// ImportContestJSON says how an import registered its users in a contest.
type ImportContestJSON struct {
	Slug    string `json:"slug"`
	Added   int    `json:"added"`   // newly registered
	Already int    `json:"already"` // registered before
}

// importError is the 400 body of a rejected import: the usual error plus
// every bad line.
type importError struct {
	Error  *APIError               `json:"error"`
	Errors []store.ImportLineError `json:"errors"`
}

// parsedRow is one CSV line before hashing.
type parsedRow struct {
	line                                     int
	username, display, email, password, role string
}

// parseUserCSV reads the CSV: a header row naming the columns (any order,
// case-insensitive), then one user per line. It returns the rows and the
// per-line errors; a *APIError for a file that cannot be read at all.
func parseUserCSV(data []byte, maxRows int) ([]parsedRow, []store.ImportLineError, *APIError) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM from spreadsheets
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, badField("file", "is empty; the first line must name the columns, e.g. username,display_name,email,password,role")
	}
	if err != nil {
		return nil, nil, badField("file", "line 1: "+csvMessage(err))
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if !containsString(importColumns, h) {
			return nil, nil, badField("file", fmt.Sprintf("line 1: unknown column %q; the columns are %s", h, strings.Join(importColumns, ", ")))
		}
		if _, dup := col[h]; dup {
			return nil, nil, badField("file", fmt.Sprintf("line 1: column %q appears twice", h))
		}
		col[h] = i
	}
	if _, ok := col["username"]; !ok {
		return nil, nil, badField("file", "line 1: the header has no username column")
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var rows []parsedRow
	var errs []store.ImportLineError
	seenUser, seenEmail := map[string]int{}, map[string]int{}
	for {
		line, _ := cr.FieldPos(0)
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return nil, nil, badField("file", fmt.Sprintf("line %d: %s", line, csvMessage(err)))
		}
		line, _ = cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(rows)+len(errs) >= maxRows {
			return nil, nil, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "file",
				fmt.Sprintf("more than %d users; split the file", maxRows))
		}
		if len(rec) != len(header) {
			errs = append(errs, store.ImportLineError{Line: line, Message: fmt.Sprintf("%d fields, the header has %d", len(rec), len(header))})
			continue
		}
		row := parsedRow{line: line, username: get(rec, "username"), display: get(rec, "display_name"),
			email: get(rec, "email"), password: get(rec, "password"), role: strings.ToLower(get(rec, "role"))}
		if row.role == "" {
			row.role = store.RoleStudent
		}
		row.display = account.StripBidi(row.display)
		if row.display == "" {
			row.display = row.username
		}
		bad := func(field, msg string) {
			errs = append(errs, store.ImportLineError{Line: line, Field: field, Message: msg})
		}
		var fe *account.FieldError
		switch {
		case errors.As(account.ValidateUsername(row.username), &fe),
			errors.As(account.ValidateDisplayName(row.display), &fe),
			errors.As(account.ValidateEmail(row.email), &fe):
			bad(fe.Field, fe.Field+" "+fe.Message)
		case row.password != "" && errors.As(account.ValidatePassword(row.password), &fe):
			bad(fe.Field, fe.Field+" "+fe.Message)
		case row.role != store.RoleAdmin && row.role != store.RoleSetter && row.role != store.RoleStudent:
			bad("role", "role must be admin, setter or student")
		case seenUser[row.username] != 0:
			bad("username", fmt.Sprintf("username %s is also on line %d", row.username, seenUser[row.username]))
		case row.email != "" && seenEmail[strings.ToLower(row.email)] != 0:
			bad("email", fmt.Sprintf("email is also on line %d", seenEmail[strings.ToLower(row.email)]))
		default:
			seenUser[row.username] = line
			if row.email != "" {
				seenEmail[strings.ToLower(row.email)] = line
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 && len(errs) == 0 {
		return nil, nil, badField("file", "has a header but no users")
	}
	return rows, errs, nil
}

func csvMessage(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// handleImportUsers creates or updates users from a CSV (onlyAdmins). All
// or nothing: any bad line rejects the whole file.
func (s *Server) handleImportUsers(w http.ResponseWriter, r *http.Request) error {
	admin := userOf(r)
	ctx := r.Context()
	// ?contest=<slug> also registers every imported user in that contest.
	var contest *store.Contest
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) { // the same request always names the same parameter
		v := q[k]
		if k != "contest" || len(v) != 1 {
			return badField(k, "is not a parameter of the import (only contest=<slug>, once)")
		}
		c, err := s.cfg.Store.ContestBySlug(ctx, v[0])
		if errors.Is(err, store.ErrNotFound) {
			return fieldErr(http.StatusNotFound, CodeNotFound, "contest", "no contest has the slug "+v[0])
		}
		if err != nil {
			return unavailableErr(err)
		}
		contest = &c
	}
	data, e := readUpload(r, MaxImportBytes, "text/csv", "text/plain")
	if e != nil {
		return e
	}
	rows, lineErrs, e := parseUserCSV(data, s.cfg.MaxImportRows)
	if e != nil {
		return e
	}
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row.username
	}
	existing, err := s.cfg.Store.UsersByUsername(ctx, names)
	if err != nil {
		return unavailableErr(err)
	}
	for _, row := range rows {
		if row.username == admin.Username && row.role != admin.Role {
			lineErrs = append(lineErrs, store.ImportLineError{Line: row.line, Field: "role", Message: "you cannot change your own role"})
		}
		if row.username == admin.Username && row.password != "" {
			lineErrs = append(lineErrs, store.ImportLineError{Line: row.line, Field: "password",
				Message: "change your own password on your account page, which asks for the current one"})
		}
	}
	if len(lineErrs) > 0 {
		s.rejectImport(w, lineErrs)
		return nil
	}
	// Hash before the transaction (bcrypt is slow on purpose), on every core.
	users := make([]store.ImportUser, len(rows))
	passwords := map[string]string{}
	for i, row := range rows {
		users[i] = store.ImportUser{Line: row.line, Username: row.username, DisplayName: row.display, Role: row.role}
		if row.email != "" {
			users[i].Email.String, users[i].Email.Valid = row.email, true
		}
		if _, known := existing[row.username]; row.password == "" && !known {
			rows[i].password = account.RandomPassword()
			passwords[row.username] = rows[i].password
		}
	}
	var wg sync.WaitGroup
	var hashErr error
	var mu sync.Mutex
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				h, err := s.hasher.Hash(r.Context(), rows[i].password)
				if err != nil {
					mu.Lock()
					hashErr = err
					mu.Unlock()
					continue
				}
				users[i].PasswordHash = h
			}
		})
	}
	for i := range rows {
		if rows[i].password != "" {
			next <- i
		}
	}
	close(next)
	wg.Wait()
	if hashErr != nil {
		return s.hashErr(r, hashErr)
	}
	var contestID int64
	if contest != nil {
		contestID = contest.ID
	}
	res, lineErrs, err := s.cfg.Store.ImportUsers(ctx, users, contestID)
	if errors.Is(err, store.ErrImportRejected) {
		s.rejectImport(w, lineErrs)
		return nil
	}
	if err != nil {
		return unavailableErr(err)
	}
	for _, id := range res.Ended {
		s.endSessions(ctx, id, "")
	}
	s.log.Info("users imported", "created", res.Created, "updated", res.Updated, "contest_id", contestID,
		"registered", res.Registered, "user_id", admin.ID, "request_id", requestIDOf(r))
	out := ImportJSON{Created: res.Created, Updated: res.Updated, Errors: []store.ImportLineError{}}
	if len(passwords) > 0 {
		out.Passwords = passwords
	}
	if contest != nil {
		out.Contest = &ImportContestJSON{Slug: contest.Slug, Added: res.Registered, Already: len(users) - res.Registered}
		s.participantsChanged(contest)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// rejectImport answers 400 with every bad line; the message holds the
// first few, for clients that show only the message.
func (s *Server) rejectImport(w http.ResponseWriter, errs []store.ImportLineError) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d line(s) have errors; nothing was imported:", len(errs))
	for i, e := range errs {
		if i == 5 {
			fmt.Fprintf(&b, " …")
			break
		}
		fmt.Fprintf(&b, " line %d: %s;", e.Line, e.Message)
	}
	writeJSON(w, http.StatusBadRequest, importError{
		Error:  fieldErr(http.StatusBadRequest, CodeValidation, "file", strings.TrimSuffix(b.String(), ";")),
		Errors: errs,
	})
}
