package server

import (
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// requireStaff answers 401/403 unless an admin or a problem setter made
// the request; what names the action for the 403 message.
func requireStaff(w http.ResponseWriter, r *http.Request, what string) (*store.User, bool) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return nil, false
	}
	if !a.user.IsStaff() {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins and problem setters "+what))
		return nil, false
	}
	return a.user, true
}

// requireAdmin answers 401/403 unless an admin made the request.
func requireAdmin(w http.ResponseWriter, r *http.Request, what string) (*store.User, bool) {
	a := authOf(r)
	if a.user == nil {
		writeAPIError(w, errUnauthorized)
		return nil, false
	}
	if a.user.Role != store.RoleAdmin {
		writeAPIError(w, apiErr(http.StatusForbidden, CodeForbidden, "only admins "+what))
		return nil, false
	}
	return a.user, true
}

// validSlug: 1–64 of a-z 0-9 -, starting with a letter or digit (the
// admin pages' pattern).
func validSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}
