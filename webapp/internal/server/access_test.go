package server

import (
	"net/http"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestAccessErr(t *testing.T) {
	admin := &store.User{Role: store.RoleAdmin}
	setter := &store.User{Role: store.RoleSetter}
	student := &store.User{Role: store.RoleStudent}
	for _, tc := range []struct {
		name   string
		u      *store.User
		role   int
		status int // 0: allowed
		msg    string
	}{
		{"anonymous user route", nil, anyUser, 401, "log in first"},
		{"student user route", student, anyUser, 0, ""},
		{"anonymous staff route", nil, staffRole, 401, "log in first"},
		{"student staff route", student, staffRole, 403, "only admins and problem setters rejudge"},
		{"setter staff route", setter, staffRole, 0, ""},
		{"admin staff route", admin, staffRole, 0, ""},
		{"setter admin route", setter, adminRole, 403, "only admins rejudge"},
		{"admin admin route", admin, adminRole, 0, ""},
	} {
		e := accessErr(tc.u, tc.role, "rejudge")
		switch {
		case tc.status == 0 && e != nil:
			t.Errorf("%s: refused %v", tc.name, e)
		case tc.status != 0 && (e == nil || e.Status != tc.status || e.Message != tc.msg):
			t.Errorf("%s: %v, want %d %q", tc.name, e, tc.status, tc.msg)
		case tc.status == http.StatusForbidden && e.Code != CodeForbidden, tc.status == http.StatusUnauthorized && e.Code != CodeUnauthorized:
			t.Errorf("%s: code %s", tc.name, e.Code)
		}
	}
}
