package server

import (
	"net/http"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// Who may call a route. The middlewares (requireUser, onlyStaff,
// onlyAdmins) guard routes on the router; a handler that must check part
// way (after a lookup, say) returns accessErr, so a route answers the
// same 401 or 403 whichever way it checks.

// userOf is the signed-in user of a request (nil: anonymous). Behind
// requireUser, onlyStaff or onlyAdmins it is never nil.
func userOf(r *http.Request) *store.User { return authOf(r).user }

// Roles a route may require.
const (
	anyUser = iota
	staffRole
	adminRole
)

// accessErr is why u may not do what (nil: it may): 401 without a user,
// 403 without the role.
func accessErr(u *store.User, role int, what string) *APIError {
	switch {
	case u == nil:
		return errUnauthorized
	case role == staffRole && !u.IsStaff():
		return apiErr(http.StatusForbidden, CodeForbidden, "only admins and problem setters "+what)
	case role == adminRole && u.Role != store.RoleAdmin:
		return apiErr(http.StatusForbidden, CodeForbidden, "only admins "+what)
	}
	return nil
}

func guard(role int, what string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if e := accessErr(userOf(r), role, what); e != nil {
				writeAPIError(w, e)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// requireUser answers 401 unless someone is signed in.
func requireUser(next http.Handler) http.Handler { return guard(anyUser, "")(next) }

// onlyStaff answers 401 or 403 unless an admin or a problem setter made
// the request; what names the action for the 403 message.
func onlyStaff(what string) func(http.Handler) http.Handler { return guard(staffRole, what) }

// onlyAdmins answers 401 or 403 unless an admin made the request.
func onlyAdmins(what string) func(http.Handler) http.Handler { return guard(adminRole, what) }
