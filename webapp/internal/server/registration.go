package server

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// CodeRegistrationClosed: self-registration is switched off (an admin
// creates accounts).
const CodeRegistrationClosed = "registration_closed"

// RegistrationJSON is the self-registration policy: GET and PUT
// /api/settings/registration.
type RegistrationJSON struct {
	// Mode is open, closed or domains.
	Mode string `json:"mode"`
	// Domains: with mode domains, the e-mail domains (and their
	// subdomains) that may register. Kept, but unused, in the other modes.
	Domains []string `json:"domains"`
}

func registrationJSON(p account.Registration) RegistrationJSON {
	d := p.Domains
	if d == nil {
		d = []string{}
	}
	return RegistrationJSON{Mode: p.Mode, Domains: d}
}

// handleRegistrationSettings answers anyone: the register page shows
// whether it is closed and which domains may register.
func (s *Server) handleRegistrationSettings(w http.ResponseWriter, r *http.Request) error {
	p, err := s.settings.Registration(r.Context())
	if err != nil {
		return unavailableErr(err)
	}
	writeJSON(w, http.StatusOK, registrationJSON(p))
	return nil
}

type registrationRequest struct {
	Mode    *string   `json:"mode"`
	Domains *[]string `json:"domains"`
}

// handleSetRegistrationSettings: onlyAdmins. An absent domains keeps the
// list.
func (s *Server) handleSetRegistrationSettings(w http.ResponseWriter, r *http.Request) error {
	u := userOf(r)
	var req registrationRequest
	if e := decodeJSON(r, &req); e != nil {
		return e
	}
	ctx := r.Context()
	p, err := s.settings.Registration(ctx)
	if err != nil {
		return unavailableErr(err)
	}
	if req.Mode == nil {
		return badField("mode", "is required (open, closed or domains)")
	}
	p.Mode = *req.Mode
	if req.Domains != nil {
		p.Domains = *req.Domains
	}
	p, err = s.settings.SetRegistration(ctx, p, u.ID)
	if fe, ok := errors.AsType[*account.FieldError](err); ok {
		return invalid(fe.Field, err)
	}
	if err != nil {
		return unavailableErr(err)
	}
	s.log.Info("registration mode set", "mode", p.Mode, "domains", p.Domains, "user_id", u.ID, "request_id", requestIDOf(r))
	writeJSON(w, http.StatusOK, registrationJSON(p))
	return nil
}

// adminCreates reports whether an admin is creating an account on POST
// /api/users (with the session's CSRF token: the route is outside the
// CSRF check, which an anonymous registration cannot pass): admins create
// accounts in every registration mode, and are not rate limited.
func adminCreates(r *http.Request) bool {
	a := authOf(r)
	if a.user == nil || a.sess == nil || a.user.Role != store.RoleAdmin {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(a.sess.CSRF)) == 1
}

// registrationErr applies the registration policy to a
// self-registration with email (already validated): nil when it admits
// it, else 403 registration_closed, 400 on the field email (missing or at
// another domain), 503 when the policy could not be read.
func (s *Server) registrationErr(r *http.Request, email string) error {
	p, err := s.settings.Registration(r.Context())
	if err != nil {
		return unavailableErr(err)
	}
	err = p.Admits(email)
	if errors.Is(err, account.ErrRegistrationClosed) {
		return apiErr(http.StatusForbidden, CodeRegistrationClosed, "registration is closed: the organisers create the accounts")
	}
	if fe, ok := errors.AsType[*account.FieldError](err); ok {
		return fieldErr(http.StatusBadRequest, CodeValidation, fe.Field, fe.Field+" "+fe.Message)
	}
	if err != nil {
		return internalErr(err) // Admits returns no other error
	}
	return nil
}
