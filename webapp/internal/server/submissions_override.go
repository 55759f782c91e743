package server

import (
	"errors"
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/judging"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// POST /api/submissions/{id}/override (onlyStaff): the jury's verdicts.

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

// handleOverride sets a submission's verdict by hand (onlyStaff), audited.
func (s *Server) handleOverride(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	id, ok := submissionIDParam(r)
	if !ok {
		return errNotFound
	}
	var req overrideRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Verdict == "" {
		return badField("verdict", "is required")
	}
	sub, err := s.judging.Override(r.Context(), u, id, req.Verdict, req.Score, req.Reason)
	switch {
	case errors.Is(err, judging.ErrOverrideVerdict):
		return badField("verdict", "must be a final verdict: AC, WA, TLE, MLE, OLE, RE, CE, PE or SE")
	case errors.Is(err, judging.ErrOverrideScore):
		return badField("score", "must be a number from 0 to 100")
	case errors.Is(err, judging.ErrOverrideReason):
		return badField("reason", "is required: 1 to 1000 characters saying why")
	case errors.Is(err, store.ErrNotFound):
		return errNotFound
	case errors.Is(err, store.ErrNotFinal):
		return fieldErr(http.StatusConflict, CodeConflict, "verdict",
			"the submission is not judged yet: override its verdict once it has one")
	case err != nil:
		return unavailableErr(err)
	}
	s.log.Info("verdict override", "submission_id", id, "user_id", u.ID, "verdict", sub.Verdict, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, map[string]any{"submission": s.submissionJSON(u, &sub)})
	return nil
}
