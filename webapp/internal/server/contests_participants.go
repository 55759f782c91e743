package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// MaxParticipantsPerRequest caps the usernames of one POST
// /api/contests/{slug}/participants.
const MaxParticipantsPerRequest = 5000

// ParticipantJSON is a user registered in a contest.
type ParticipantJSON struct {
	UserID       int64     `json:"user_id"`
	Username     string    `json:"username"`
	RegisteredAt time.Time `json:"registered_at"`
}

// unknownUsersError is the 422 body of an add naming users that do not
// exist: the usual error, with the list both inside it (what the admin
// page reads) and beside it.
type unknownUsersError struct {
	Error   unknownUsersDetail `json:"error"`
	Unknown []string           `json:"unknown"`
}

type unknownUsersDetail struct {
	*APIError
	Unknown []string `json:"unknown"`
}

// participantsContest resolves {slug} for the participants endpoints
// (onlyStaff; hidden contests included).
func (s *Server) participantsContest(r *http.Request) (*store.User, *store.Contest, error) {
	c, err := s.cfg.Store.ContestBySlug(r.Context(), chi.URLParam(r, "slug"))
	if err != nil {
		return nil, nil, err
	}
	return userOf(r), &c, nil
}

// handleParticipants lists the users registered in a contest (onlyStaff).
func (s *Server) handleParticipants(w http.ResponseWriter, r *http.Request) error {
	_, c, err := s.participantsContest(r)
	if err != nil {
		return err
	}
	list, err := s.cfg.Store.ContestParticipants(r.Context(), c.ID)
	if err != nil {
		return unavailableErr(err)
	}
	out := make([]ParticipantJSON, 0, len(list))
	for _, p := range list {
		out = append(out, ParticipantJSON{UserID: p.UserID, Username: p.Username, RegisteredAt: p.RegisteredAt})
	}
	writeJSON(w, http.StatusOK, map[string]any{"participants": out})
	return nil
}

type addParticipantsRequest struct {
	Usernames *[]string `json:"usernames"`
}

// checkUsernames validates the list of an add: not empty, at most max,
// each a well-formed username (trimmed and lower-cased: usernames are
// lower-case) and none twice.
func checkUsernames(list []string, max int) ([]string, *APIError) {
	if len(list) == 0 {
		return nil, badField("usernames", "must list at least one username")
	}
	if len(list) > max {
		return nil, fieldErr(http.StatusRequestEntityTooLarge, CodeTooLarge, "usernames",
			fmt.Sprintf("%d usernames; add at most %d at once", len(list), max))
	}
	out := make([]string, len(list))
	seen := make(map[string]int, len(list))
	for i, n := range list {
		n = strings.ToLower(strings.TrimSpace(n))
		if err := account.ValidateUsername(n); err != nil {
			var fe *account.FieldError
			msg := "is not a username"
			if errors.As(err, &fe) {
				msg = fe.Message
			}
			shown := list[i]
			if len(shown) > 40 {
				shown = shown[:40] + "…"
			}
			return nil, fieldErr(http.StatusBadRequest, CodeValidation, "usernames",
				fmt.Sprintf("usernames[%d] %q: %s", i, shown, msg))
		}
		if j, dup := seen[n]; dup {
			return nil, fieldErr(http.StatusBadRequest, CodeValidation, "usernames",
				fmt.Sprintf("usernames[%d]: %s is also usernames[%d]; list each user once", i, n, j))
		}
		seen[n] = i
		out[i] = n
	}
	return out, nil
}

// handleAddParticipants registers existing users in a contest (onlyStaff).
// Every username must exist, else nothing is written and the answer is
// 422 with the unknown ones.
func (s *Server) handleAddParticipants(w http.ResponseWriter, r *http.Request) error {
	u, c, err := s.participantsContest(r)
	if err != nil {
		return err
	}
	var req addParticipantsRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	if req.Usernames == nil {
		return badField("usernames", "is required: a list of usernames")
	}
	names, e := checkUsernames(*req.Usernames, MaxParticipantsPerRequest)
	if e != nil {
		return e
	}
	ctx := r.Context()
	users, err := s.cfg.Store.UsersByUsername(ctx, names)
	if err != nil {
		return unavailableErr(err)
	}
	ids := make([]int64, 0, len(names))
	unknown := []string{}
	for _, n := range names {
		if us, ok := users[n]; ok {
			ids = append(ids, us.ID)
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		shown := unknown
		if len(shown) > 10 {
			shown = shown[:10]
		}
		msg := fmt.Sprintf("%d unknown username(s); nothing was added: %s", len(unknown), strings.Join(shown, ", "))
		if len(shown) < len(unknown) {
			msg += ", …"
		}
		ae := fieldErr(http.StatusUnprocessableEntity, CodeValidation, "usernames", msg)
		writeJSON(w, ae.Status, unknownUsersError{Error: unknownUsersDetail{APIError: ae, Unknown: unknown}, Unknown: unknown})
		return nil
	}
	added, err := s.cfg.Store.AddParticipants(ctx, c.ID, ids)
	if err != nil {
		return unavailableErr(err)
	}
	s.participantsChanged(c)
	s.log.Info("contest participants added", "contest_id", c.ID, "added", added, "already", len(ids)-added,
		"user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, map[string]int{"added": added, "already": len(ids) - added})
	return nil
}

// handleRemoveParticipant unregisters a user from a contest (onlyStaff). Their
// submissions stay; in a list contest they can no longer submit and leave
// the scoreboard.
func (s *Server) handleRemoveParticipant(w http.ResponseWriter, r *http.Request) error {
	u, c, err := s.participantsContest(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	name := chi.URLParam(r, "username")
	notParticipant := fieldErr(http.StatusNotFound, CodeNotFound, "username", name+" is not a participant of this contest")
	target, err := s.cfg.Store.UserByUsername(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return notParticipant
	}
	if err != nil {
		return unavailableErr(err)
	}
	err = s.cfg.Store.RemoveParticipant(ctx, c.ID, target.ID)
	if errors.Is(err, store.ErrNotFound) {
		return notParticipant
	}
	if err != nil {
		return unavailableErr(err)
	}
	s.participantsChanged(c)
	s.log.Info("contest participant removed", "contest_id", c.ID, "participant_id", target.ID,
		"user_id", u.ID, "request_id", requestIDOf(r))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// participantsChanged republishes a contest's scoreboard, which shows
// only registered users.
func (s *Server) participantsChanged(c *store.Contest) {
	s.judging.MarkDirty(c.ID)
}
