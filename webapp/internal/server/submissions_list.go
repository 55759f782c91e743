package server

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// The status page: GET /api/submissions lists submissions through
// judging.ListSubmissions (who may see which rows, and what of them, is
// decided there) and names the live channel the page should watch.

// SubmissionsJSON answers GET /api/submissions.
type SubmissionsJSON struct {
	Submissions []SubmissionJSON `json:"submissions"`
	NextCursor  *string          `json:"next_cursor"`
	// Live is the channel whose events update this list (absent for
	// anonymous visitors): a status channel for staff and for a contest
	// that lists everyone's verdicts, else the viewer's user channel.
	Live *protocol.Channel `json:"live,omitempty"`
}

// selection is a status page filter as given by name (query or JSON).
type selection struct {
	User, Problem, Contest, Verdict, Language string
}

func (sel selection) empty() bool { return sel == selection{} }

// unknownName is a selection naming a user, problem or contest that does
// not exist: a list answers empty, a rejudge 404 naming the field.
type unknownName struct{ field string }

func (e *unknownName) Error() string { return "no such " + e.field }

// resolve turns names into ids. An unknown user, problem or contest is an
// *unknownName; a malformed verdict or language is an *APIError; any
// other error is the store failing.
func (s *Server) resolve(ctx context.Context, sel selection) (f judging.ListFilter, c *store.Contest, err error) {
	if sel.Verdict != "" && !protocol.Verdict(sel.Verdict).Valid() {
		return f, nil, badField("verdict", "is not a verdict (AC, WA, TLE, MLE, OLE, RE, CE, PE, SE, queued, …)")
	}
	if sel.Language != "" && !validLanguageID(sel.Language) {
		return f, nil, badField("language", "is not a language id")
	}
	f.Verdict, f.Language = sel.Verdict, sel.Language
	lookup := func(field string, err error) error {
		if errors.Is(err, store.ErrNotFound) {
			return &unknownName{field}
		}
		return err
	}
	if sel.User != "" {
		u, err := s.cfg.Store.UserByUsername(ctx, sel.User)
		if err != nil {
			return f, nil, lookup("user", err)
		}
		f.UserID = u.ID
	}
	if sel.Problem != "" {
		p, err := s.cfg.Store.ProblemBySlug(ctx, sel.Problem)
		if err != nil {
			return f, nil, lookup("problem", err)
		}
		f.ProblemID = p.ID
	}
	if sel.Contest != "" {
		ct, err := s.cfg.Store.ContestBySlug(ctx, sel.Contest)
		if err != nil {
			return f, nil, lookup("contest", err)
		}
		f.ContestID, c = ct.ID, &ct
	}
	return f, c, nil
}

func (s *Server) handleSubmissions(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	a := authOf(r)
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) { // the same request always names the same parameter
		switch k {
		case "mine", "user", "problem", "contest", "verdict", "language", "cursor", "limit":
		default:
			return fieldErr(http.StatusBadRequest, CodeValidation, k, "unknown query parameter "+k)
		}
	}
	mine := false
	if v := q.Get("mine"); v != "" {
		if v != "1" && v != "true" && v != "0" && v != "false" {
			return badField("mine", "must be 1 or 0")
		}
		if mine = v == "1" || v == "true"; mine && a.user == nil {
			return errUnauthorized
		}
	}
	sel := selection{User: q.Get("user"), Problem: q.Get("problem"), Contest: q.Get("contest"),
		Verdict: q.Get("verdict"), Language: q.Get("language")}
	notFound := ""
	f, c, err := s.resolve(ctx, sel)
	var un *unknownName
	if errors.As(err, &un) {
		notFound = un.field
	} else if err != nil {
		return unavailableErr(err)
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return badField("cursor", "must be the next_cursor of the previous page")
		}
		f.Before = n
	}
	f.Limit = judging.DefaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > judging.MaxListLimit {
			return badField("limit", "must be 1 to 100")
		}
		f.Limit = n
	}
	if c != nil && !c.Visible && (a.user == nil || !a.user.IsStaff()) {
		notFound = "contest" // a hidden contest is no contest to students
	}
	if mine {
		if f.UserID != 0 && f.UserID != a.user.ID {
			notFound = "user"
		}
		f.UserID = a.user.ID
	}
	out := SubmissionsJSON{Submissions: []SubmissionJSON{}}
	if ch, ok := judging.StatusChannel(a.user, c); ok && notFound == "" {
		if mine && !a.user.IsStaff() {
			ch = protocol.Channel{Kind: protocol.ChannelUser, ID: a.user.ID} // their own only
		}
		out.Live = &ch
	}
	if notFound == "" {
		rows, next, err := s.judging.ListSubmissions(ctx, a.user, f)
		if err != nil {
			return unavailableErr(err)
		}
		for i := range rows {
			out.Submissions = append(out.Submissions, submissionView(&rows[i].Sub, rows[i].Shown))
		}
		if next > 0 {
			c := strconv.FormatInt(next, 10)
			out.NextCursor = &c
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
