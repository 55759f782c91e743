package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestChangeOwnPassword(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.LoginFreeFailures = 2 })
	e.user("amy", store.RoleStudent, "amy-password")
	c := e.client()
	if r := c.login("amy", "amy-password"); r.status != 200 {
		t.Fatal(r.raw)
	}
	other := e.client() // the same user on another device
	if r := other.login("amy", "amy-password"); r.status != 200 {
		t.Fatal(r.raw)
	}
	const path = "/api/me/password"
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"no current", map[string]string{"new_password": "brand-new-pw"}, 400, CodeValidation, "current_password"},
		{"short new", map[string]string{"current_password": "amy-password", "new_password": "short"}, 400, CodeValidation, "new_password"},
		{"same as old", map[string]string{"current_password": "amy-password", "new_password": "amy-password"}, 400, CodeValidation, "new_password"},
		{"unknown field", map[string]string{"current_password": "amy-password", "new_password": "brand-new-pw", "user_id": "1"}, 400, CodeValidation, "user_id"},
		{"wrong current", map[string]string{"current_password": "nope-nope", "new_password": "brand-new-pw"}, 400, CodeValidation, "current_password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, c.call("POST", path, tc.body), tc.status, tc.code, tc.field)
		})
	}
	// Without the CSRF header, and anonymous.
	wantErr(t, c.do("POST", path, map[string]string{"current_password": "amy-password", "new_password": "brand-new-pw"}), 403, CodeCSRF, "")
	wantErr(t, e.client().do("POST", path, map[string]string{"current_password": "amy-password", "new_password": "brand-new-pw"}), 401, CodeUnauthorized, "")

	oldCSRF := c.csrf
	r := c.call("POST", path, map[string]string{"current_password": "amy-password", "new_password": "brand-new-pw"})
	if r.status != 200 {
		t.Fatalf("change: %d %s", r.status, r.raw)
	}
	newCSRF, _ := r.body["csrf_token"].(string)
	if newCSRF == "" || newCSRF == oldCSRF || !strings.Contains(r.header.Get("Set-Cookie"), SessionCookie+"=") {
		t.Fatalf("the change did not hand out a new session: %s / %v", r.raw, r.header)
	}
	c.csrf = newCSRF
	if r := c.do("GET", "/api/me", nil); r.status != 200 {
		t.Fatalf("this browser was logged out by its own change: %d %s", r.status, r.raw)
	}
	wantErr(t, other.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	wantErr(t, e.client().login("amy", "amy-password"), 401, CodeInvalidCredentials, "")
	if r := e.client().login("amy", "brand-new-pw"); r.status != 200 {
		t.Fatalf("login with the new password: %d %s", r.status, r.raw)
	}
	// The other session is gone from Redis too (the hub reads sessions
	// from Redis only): amy has exactly the two live sessions of c and
	// the last login.
	if n, err := e.rdb.SCard(context.Background(), e.names.UserSessions(userID(t, e, "amy"))).Result(); err != nil || n != 2 {
		t.Errorf("amy's indexed sessions = %d (%v), want 2", n, err)
	}

	// Wrong current passwords count against the account: 3 allowed (the
	// login above reset the count).
	for i := range 3 {
		wantErr(t, c.call("POST", path, map[string]string{"current_password": fmt.Sprint("wrong-", i), "new_password": "another-pw-1"}),
			400, CodeValidation, "current_password")
	}
	wantErr(t, c.call("POST", path, map[string]string{"current_password": "brand-new-pw", "new_password": "another-pw-1"}),
		429, CodeRateLimited, "")
}

func userID(t *testing.T, e *env, name string) int64 {
	t.Helper()
	u, err := e.st.UserByUsername(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func TestAdminListsUsers(t *testing.T) {
	se := newStaffEnv(t, nil)
	for i := range 5 {
		se.user(fmt.Sprintf("class-%02d", i), store.RoleStudent, "class-password")
	}
	zh := se.user("wang.fang", store.RoleStudent, "class-password")
	if _, err := se.st.UpdateUser(context.Background(), zh.ID, store.UserUpdate{DisplayName: ptr("王芳")}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Users []AdminUserJSON `json:"users"`
		Next  *string         `json:"next_cursor"`
	}
	get := func(q string) page {
		t.Helper()
		r := se.admin.do("GET", "/api/users"+q, nil)
		if r.status != 200 {
			t.Fatalf("GET /api/users%s: %d %s", q, r.status, r.raw)
		}
		var p page
		decode(t, r.raw, &p)
		return p
	}
	names := func(p page) string {
		var s []string
		for _, u := range p.Users {
			s = append(s, u.Username)
		}
		return strings.Join(s, ",")
	}
	// All users (root, setter, stud, 5 class, wang.fang), two at a time.
	var all []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("the cursor does not advance")
		}
		p := get("?limit=2" + cursor)
		all = append(all, names(p))
		if p.Next == nil {
			break
		}
		cursor = "&cursor=" + *p.Next
	}
	if got := strings.Join(all, ","); got != "root,setter,stud,class-00,class-01,class-02,class-03,class-04,wang.fang" {
		t.Errorf("paged list = %s", got)
	}
	for q, want := range map[string]string{
		"?q=class-0":              "class-00,class-01,class-02,class-03,class-04",
		"?q=%E7%8E%8B":            "wang.fang", // 王, in the display name
		"?role=setter":            "setter",
		"?q=class&role=admin":     "",
		"?q=%25":                  "", // a literal %, not a wildcard
		"?q=class_0":              "", // a literal _, not a wildcard
		"?disabled=true":          "",
		"?disabled=false&q=stud":  "stud",
		"?q=root&limit=200":       "root",
		"?q=CLASS-04":             "class-04", // case-insensitive collation
		"?q=xyz-nobody&limit=1":   "",
		"?role=student&q=wang.fa": "wang.fang",
	} {
		if got := names(get(q)); got != want {
			t.Errorf("GET /api/users%s = %q, want %q", q, got, want)
		}
	}
	p := get("?q=wang")
	if len(p.Users) != 1 || p.Users[0].DisplayName != "王芳" || p.Users[0].Role != "student" || p.Users[0].Disabled || p.Users[0].CreatedAt.IsZero() {
		t.Errorf("wang.fang = %+v", p.Users)
	}
	for _, tc := range []struct{ q, field string }{
		{"?role=king", "role"}, {"?disabled=maybe", "disabled"}, {"?limit=0", "limit"}, {"?limit=201", "limit"},
		{"?cursor=abc", "cursor"}, {"?sort=name", "sort"}, {"?q=a&q=b", "q"}, {"?q=" + strings.Repeat("a", 65), "q"},
	} {
		wantErr(t, se.admin.do("GET", "/api/users"+tc.q, nil), 400, CodeValidation, tc.field)
	}
	wantErr(t, se.setter.do("GET", "/api/users", nil), 403, CodeForbidden, "")
	wantErr(t, se.student.do("GET", "/api/users", nil), 403, CodeForbidden, "")
	wantErr(t, se.client().do("GET", "/api/users", nil), 401, CodeUnauthorized, "")
}

func ptr[T any](v T) *T { return &v }

func TestAdminEditsUser(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	se.user("other", store.RoleStudent, "other-password")
	path := "/api/users/stud"
	for _, tc := range []struct {
		name   string
		who    *client
		path   string
		body   any
		status int
		code   string
		field  string
	}{
		{"unknown user", se.admin, "/api/users/nobody", map[string]any{"role": "setter"}, 404, CodeNotFound, "username"},
		{"bad role", se.admin, path, map[string]any{"role": "king"}, 400, CodeValidation, "role"},
		{"bad email", se.admin, path, map[string]any{"email": "not-an-email"}, 400, CodeValidation, "email"},
		{"bad display name", se.admin, path, map[string]any{"display_name": "a\x00b"}, 400, CodeValidation, "display_name"},
		{"unknown field", se.admin, path, map[string]any{"password_hash": "x"}, 400, CodeValidation, "password_hash"},
		{"wrong type", se.admin, path, map[string]any{"disabled": "yes"}, 400, CodeValidation, "disabled"},
		{"own role", se.admin, "/api/users/root", map[string]any{"role": "student"}, 400, CodeValidation, "role"},
		{"disable self", se.admin, "/api/users/root", map[string]any{"disabled": true}, 400, CodeValidation, "disabled"},
		{"setter", se.setter, path, map[string]any{"role": "admin"}, 403, CodeForbidden, ""},
		{"student", se.student, path, map[string]any{"role": "admin"}, 403, CodeForbidden, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, tc.who.call("PUT", tc.path, tc.body), tc.status, tc.code, tc.field)
		})
	}
	if u, _ := se.st.UserByUsername(ctx, "stud"); u.Role != store.RoleStudent || u.Disabled {
		t.Fatalf("a refused edit changed the user: %+v", u)
	}
	// An admin may resend their own role unchanged (a form that sends all
	// fields).
	if r := se.admin.call("PUT", "/api/users/root", map[string]any{"role": "admin", "display_name": "The Root"}); r.status != 200 {
		t.Fatalf("own unchanged role: %d %s", r.status, r.raw)
	}

	r := se.admin.call("PUT", path, map[string]any{"display_name": "Stu Dent", "email": "stu@example.org", "role": "setter"})
	if r.status != 200 {
		t.Fatalf("edit: %d %s", r.status, r.raw)
	}
	var got struct {
		User AdminUserJSON `json:"user"`
	}
	decode(t, r.raw, &got)
	if got.User.DisplayName != "Stu Dent" || got.User.Email != "stu@example.org" || got.User.Role != "setter" {
		t.Fatalf("edited = %+v", got.User)
	}
	// A new role ends the user's sessions (the hub trusts the role in the
	// session): they log in again, with the new role.
	wantErr(t, se.student.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	se.student = se.client()
	if r := se.student.login("stud", "stud-password"); r.status != 200 || r.body["user"].(map[string]any)["role"] != "setter" {
		t.Fatalf("login after the role change: %d %s", r.status, r.raw)
	}
	wantErr(t, se.admin.call("PUT", "/api/users/other", map[string]any{"email": "stu@example.org"}), 409, CodeConflict, "email")
	// "" clears the e-mail and resets the display name to the username.
	r = se.admin.call("PUT", path, map[string]any{"email": "", "display_name": ""})
	decode(t, r.raw, &got)
	if r.status != 200 || got.User.Email != "" || got.User.DisplayName != "stud" {
		t.Fatalf("clear: %d %s", r.status, r.raw)
	}

	// Disabling logs the user out everywhere, and they cannot log in.
	r = se.admin.call("PUT", path, map[string]any{"disabled": true})
	if r.status != 200 {
		t.Fatalf("disable: %d %s", r.status, r.raw)
	}
	wantErr(t, se.student.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	if n, _ := se.rdb.SCard(ctx, se.names.UserSessions(userID(t, se.env, "stud"))).Result(); n != 0 {
		t.Errorf("a disabled user still has %d sessions in Redis", n)
	}
	wantErr(t, se.client().login("stud", "stud-password"), 401, CodeInvalidCredentials, "")
	if r := se.admin.call("PUT", path, map[string]any{"disabled": false}); r.status != 200 {
		t.Fatalf("enable: %d %s", r.status, r.raw)
	}
	if r := se.client().login("stud", "stud-password"); r.status != 200 {
		t.Fatalf("login after enabling: %d %s", r.status, r.raw)
	}
}

func TestAdminResetsPassword(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.LoginFreeFailures = 1 })
	// The student locked themself out with wrong passwords.
	for range 2 {
		se.client().login("stud", "forgotten-1")
	}
	wantErr(t, se.client().login("stud", "stud-password"), 429, CodeRateLimited, "")

	for _, tc := range []struct {
		name   string
		who    *client
		path   string
		body   any
		status int
		code   string
		field  string
	}{
		{"unknown user", se.admin, "/api/users/nobody/password", map[string]any{}, 404, CodeNotFound, "username"},
		{"short password", se.admin, "/api/users/stud/password", map[string]any{"password": "short"}, 400, CodeValidation, "password"},
		{"unknown field", se.admin, "/api/users/stud/password", map[string]any{"pass": "x"}, 400, CodeValidation, "pass"},
		{"setter", se.setter, "/api/users/stud/password", map[string]any{}, 403, CodeForbidden, ""},
		{"student", se.student, "/api/users/stud/password", map[string]any{}, 403, CodeForbidden, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, tc.who.call("POST", tc.path, tc.body), tc.status, tc.code, tc.field)
		})
	}
	r := se.admin.call("POST", "/api/users/stud/password", map[string]any{})
	pw, _ := r.body["password"].(string)
	if r.status != 200 || len(pw) != 16 || r.body["username"] != "stud" {
		t.Fatalf("generated reset: %d %s", r.status, r.raw)
	}
	wantErr(t, se.student.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	if r := se.client().login("stud", pw); r.status != 200 {
		t.Fatalf("login with the generated password (the reset also lifts the lock-out): %d %s", r.status, r.raw)
	}
	// A chosen password; no body at all also generates one.
	if r := se.admin.call("POST", "/api/users/stud/password", map[string]any{"password": "chosen-by-admin"}); r.status != 200 || r.body["password"] != "chosen-by-admin" {
		t.Fatalf("chosen reset: %d %s", r.status, r.raw)
	}
	if r := se.client().login("stud", "chosen-by-admin"); r.status != 200 {
		t.Fatalf("login with the chosen password: %d", r.status)
	}
	if r := se.admin.call("POST", "/api/users/setter/password", nil); r.status != 200 || len(r.body["password"].(string)) != 16 {
		t.Fatalf("reset without a body: %d %s", r.status, r.raw)
	}
}

// TestImportedPasswordEndsSessions: a CSV import that sets a password is
// a reset too.
func TestImportedPasswordEndsSessions(t *testing.T) {
	se := newStaffEnv(t, nil)
	r := se.admin.upload("/api/users/import", "file", []byte("username,password\nstud,imported-pw-1\n"), "text/csv")
	if r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	wantErr(t, se.student.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	if r := se.client().login("stud", "imported-pw-1"); r.status != 200 {
		t.Fatalf("login with the imported password: %d", r.status)
	}
	// An import without a password leaves sessions alone.
	c := se.client()
	c.login("setter", "setter-password")
	if r := se.admin.upload("/api/users/import", "file", []byte("username,display_name,role\nsetter,Set Ter,setter\n"), "text/csv"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if r := c.do("GET", "/api/me", nil); r.status != 200 {
		t.Fatalf("an import without a password logged the user out: %d", r.status)
	}
}

func decode(t *testing.T, raw string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// TestSessionEpochCutsRaces: a login that read the user before a reset
// landed (its bcrypt check takes ~100 ms) must not come out of it with a
// valid session; nor may a password change undo a reset that came first.
func TestSessionEpochCutsRaces(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	stud, err := se.st.UserByUsername(ctx, "stud")
	if err != nil {
		t.Fatal(err)
	}
	// The login read epoch E; the reset lands; the login then makes its
	// session with E.
	if err := se.st.SetPasswordHash(ctx, stud.ID, stud.PasswordHash); err != nil {
		t.Fatal(err)
	}
	late, err := se.srv.sessions.Create(ctx, stud.ID, stud.Role, stud.SessionEpoch)
	if err != nil {
		t.Fatal(err)
	}
	c := se.client()
	r := c.do("GET", "/api/me", nil, "Cookie", SessionCookie+"="+late.ID)
	wantErr(t, r, 401, CodeUnauthorized, "")
	// A change conditioned on the epoch the user had before the reset is
	// refused: the reset stands.
	if _, err := se.st.ChangePasswordHash(ctx, stud.ID, stud.SessionEpoch, "other-hash"); !errors.Is(err, store.ErrStale) {
		t.Fatalf("change after a reset = %v, want ErrStale", err)
	}
	if u, _ := se.st.UserByUsername(ctx, "stud"); u.PasswordHash != stud.PasswordHash || u.SessionEpoch != stud.SessionEpoch+1 {
		t.Fatalf("after the refused change: epoch %d (want %d), hash changed: %v", u.SessionEpoch, stud.SessionEpoch+1, u.PasswordHash != stud.PasswordHash)
	}
}

// TestRoleChangeEndsSessions: the hub authorises live channels from the
// role stored in the session, so a demoted admin's sessions must end.
func TestRoleChangeEndsSessions(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	if r := se.admin.call("PUT", "/api/users/setter", map[string]any{"display_name": "Still A Setter"}); r.status != 200 {
		t.Fatalf("rename: %d %s", r.status, r.raw)
	}
	if r := se.setter.do("GET", "/api/me", nil); r.status != 200 {
		t.Fatalf("a rename logged the user out: %d", r.status)
	}
	if r := se.admin.call("PUT", "/api/users/setter", map[string]any{"role": "student"}); r.status != 200 {
		t.Fatalf("demote: %d %s", r.status, r.raw)
	}
	wantErr(t, se.setter.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
	if n, _ := se.rdb.SCard(ctx, se.names.UserSessions(userID(t, se.env, "setter"))).Result(); n != 0 {
		t.Errorf("a demoted user keeps %d sessions in Redis (the hub would trust their old role)", n)
	}
	// An import that changes a role does the same.
	c := se.client()
	if r := c.login("setter", "setter-password"); r.status != 200 {
		t.Fatal(r.raw)
	}
	if r := se.admin.upload("/api/users/import", "file", []byte("username,role\nsetter,setter\n"), "text/csv"); r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	wantErr(t, c.do("GET", "/api/me", nil), 401, CodeUnauthorized, "")
}

func TestAdminsCannotResetThemselvesOrLoseTheLastAdmin(t *testing.T) {
	se := newStaffEnv(t, nil)
	ctx := context.Background()
	wantErr(t, se.admin.call("POST", "/api/users/root/password", map[string]any{"password": "chosen-by-thief"}), 400, CodeValidation, "username")
	wantErr(t, se.admin.upload("/api/users/import", "file", []byte("username,password,role\nroot,chosen-by-thief,admin\n"), "text/csv"),
		400, CodeValidation, "file")
	if r := se.client().login("root", "root-password"); r.status != 200 {
		t.Fatalf("the admin's password changed: %d", r.status)
	}
	// The only enabled admin cannot be demoted or disabled, whoever asks
	// (a second admin demoting the first while being demoted, say).
	root := se.adminUser
	for _, up := range []store.UserUpdate{{Role: ptr(store.RoleSetter)}, {Disabled: ptr(true)}} {
		if _, err := se.st.UpdateUser(ctx, root.ID, up); !errors.Is(err, store.ErrLastAdmin) {
			t.Errorf("UpdateUser(the last admin, %+v) = %v, want ErrLastAdmin", up, err)
		}
	}
	// With a second admin, either may demote the other.
	if r := se.admin.call("PUT", "/api/users/setter", map[string]any{"role": "admin"}); r.status != 200 {
		t.Fatal(r.raw)
	}
	if _, err := se.st.UpdateUser(ctx, root.ID, store.UserUpdate{Role: ptr(store.RoleSetter)}); err != nil {
		t.Fatalf("demoting one of two admins: %v", err)
	}
}

// TestLoginNamesAreCanonical: the collation would match "BOB", " bob " or
// a full-width "ｂob" to bob; each must neither count apart (a free
// rate-limit counter) nor log in as someone else.
func TestLoginNamesAreCanonical(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.LoginFreeFailures = 2 })
	e.user("bob", store.RoleStudent, "bob-password")
	if r := e.client().login(" BOB ", "bob-password"); r.status != 200 {
		t.Fatalf("upper case and spaces: %d %s", r.status, r.raw)
	}
	wantErr(t, e.client().login("ｂob", "bob-password"), 401, CodeInvalidCredentials, "")
	for _, name := range []string{"BOB", "bob ", "Bob"} {
		wantErr(t, e.client().login(name, "wrong-password"), 401, CodeInvalidCredentials, "")
	}
	wantErr(t, e.client().login("bob", "bob-password"), 429, CodeRateLimited, "")
}
