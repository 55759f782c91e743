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

// resolve turns names into ids. An unknown user, problem or contest is
// reported by field (notFound), so a list can answer empty and a rejudge
// 404; a malformed verdict or language is a validation error.
func (s *Server) resolve(ctx context.Context, sel selection) (f judging.ListFilter, c *store.Contest, notFound string, apiE *APIError, err error) {
	if sel.Verdict != "" && !protocol.Verdict(sel.Verdict).Valid() {
		return f, nil, "", badField("verdict", "is not a verdict (AC, WA, TLE, MLE, OLE, RE, CE, PE, SE, queued, …)"), nil
	}
	if sel.Language != "" && !validLanguageID(sel.Language) {
		return f, nil, "", badField("language", "is not a language id"), nil
	}
	f.Verdict, f.Language = sel.Verdict, sel.Language
	if sel.User != "" {
		u, err := s.cfg.Store.UserByUsername(ctx, sel.User)
		if errors.Is(err, store.ErrNotFound) {
			return f, nil, "user", nil, nil
		} else if err != nil {
			return f, nil, "", nil, err
		}
		f.UserID = u.ID
	}
	if sel.Problem != "" {
		p, err := s.cfg.Store.ProblemBySlug(ctx, sel.Problem)
		if errors.Is(err, store.ErrNotFound) {
			return f, nil, "problem", nil, nil
		} else if err != nil {
			return f, nil, "", nil, err
		}
		f.ProblemID = p.ID
	}
	if sel.Contest != "" {
		ct, err := s.cfg.Store.ContestBySlug(ctx, sel.Contest)
		if errors.Is(err, store.ErrNotFound) {
			return f, nil, "contest", nil, nil
		} else if err != nil {
			return f, nil, "", nil, err
		}
		f.ContestID, c = ct.ID, &ct
	}
	return f, c, "", nil, nil
}

func (s *Server) handleSubmissions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a := authOf(r)
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) { // the same request always names the same parameter
		switch k {
		case "mine", "user", "problem", "contest", "verdict", "language", "cursor", "limit":
		default:
			writeAPIError(w, fieldErr(http.StatusBadRequest, CodeValidation, k, "unknown query parameter "+k))
			return
		}
	}
	mine := false
	if v := q.Get("mine"); v != "" {
		if v != "1" && v != "true" && v != "0" && v != "false" {
			writeAPIError(w, badField("mine", "must be 1 or 0"))
			return
		}
		if mine = v == "1" || v == "true"; mine && a.user == nil {
			writeAPIError(w, errUnauthorized)
			return
		}
	}
	sel := selection{User: q.Get("user"), Problem: q.Get("problem"), Contest: q.Get("contest"),
		Verdict: q.Get("verdict"), Language: q.Get("language")}
	f, c, notFound, apiE, err := s.resolve(ctx, sel)
	if err != nil {
		s.internal(w, r, err, http.StatusServiceUnavailable)
		return
	}
	if apiE != nil {
		writeAPIError(w, apiE)
		return
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeAPIError(w, badField("cursor", "must be the next_cursor of the previous page"))
			return
		}
		f.Before = n
	}
	f.Limit = judging.DefaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > judging.MaxListLimit {
			writeAPIError(w, badField("limit", "must be 1 to 100"))
			return
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
			s.internal(w, r, err, http.StatusServiceUnavailable)
			return
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
}

// OverrideJSON is one jury override of a submission (staff only).
type OverrideJSON struct {
	By         *string `json:"by"` // null once the account is gone
	At         string  `json:"at"`
	OldVerdict string  `json:"old_verdict"`
	NewVerdict string  `json:"new_verdict"`
	OldScore   float64 `json:"old_score"`
	NewScore   float64 `json:"new_score"`
	Reason     string  `json:"reason"`
}

func overridesJSON(os []store.Override) []OverrideJSON {
	out := make([]OverrideJSON, 0, len(os))
	for _, o := range os {
		j := OverrideJSON{At: o.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), OldVerdict: o.OldVerdict,
			NewVerdict: o.NewVerdict, OldScore: o.OldScore, NewScore: o.NewScore, Reason: o.Reason}
		if o.Username.Valid {
			u := o.Username.String
			j.By = &u
		}
		out = append(out, j)
	}
	return out
}

type overrideRequest struct {
	Verdict string   `json:"verdict"`
	Score   *float64 `json:"score"`
	Reason  string   `json:"reason"`
}

// handleOverride sets a submission's verdict by hand (staff), audited.
func (s *Server) handleOverride(w http.ResponseWriter, r *http.Request) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return
	}
	if !a.user.IsStaff() {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins and problem setters override verdicts"))
		return
	}
	id, ok := submissionIDParam(r)
	if !ok {
		writeAPIError(w, errNotFound)
		return
	}
	var req overrideRequest
	if e := decodeJSON(r, &req); e != nil {
		writeAPIError(w, e)
		return
	}
	if req.Verdict == "" {
		writeAPIError(w, badField("verdict", "is required"))
		return
	}
	sub, err := s.judging.Override(r.Context(), a.user, id, req.Verdict, req.Score, req.Reason)
	switch {
	case errors.Is(err, judging.ErrOverrideVerdict):
		writeAPIError(w, badField("verdict", "must be a final verdict: AC, WA, TLE, MLE, OLE, RE, CE, PE or SE"))
	case errors.Is(err, judging.ErrOverrideScore):
		writeAPIError(w, badField("score", "must be a number from 0 to 100"))
	case errors.Is(err, judging.ErrOverrideReason):
		writeAPIError(w, badField("reason", "is required: 1 to 1000 characters saying why"))
	case errors.Is(err, store.ErrNotFound):
		writeAPIError(w, errNotFound)
	case errors.Is(err, store.ErrNotFinal):
		writeAPIError(w, fieldErr(http.StatusConflict, CodeConflict, "verdict",
			"the submission is not judged yet: override its verdict once it has one"))
	case err != nil:
		s.internal(w, r, err, http.StatusServiceUnavailable)
	default:
		s.log.Info("verdict override", "submission_id", id, "user_id", a.user.ID, "verdict", sub.Verdict, "request_id", requestIDOf(r))
		writeJSON(w, http.StatusOK, map[string]any{"submission": s.submissionJSON(a.user, &sub)})
	}
}
