package server

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func regBody(name, email string) map[string]string {
	b := map[string]string{"username": name, "password": "password1"}
	if email != "" {
		b["email"] = email
	}
	return b
}

func wantMode(t *testing.T, r resp, mode string, domains ...string) {
	t.Helper()
	got, _ := r.body["domains"].([]any)
	var ds []string
	for _, d := range got {
		ds = append(ds, d.(string))
	}
	if r.status != 200 || r.body["mode"] != mode || !slices.Equal(ds, domains) || r.body["domains"] == nil {
		t.Fatalf("settings %d %s, want mode %s domains %v", r.status, r.raw, mode, domains)
	}
}

// TestRegistrationModes: open (the default), closed (admins create
// accounts) and domains, set by an admin at run time.
func TestRegistrationModes(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.Limits.RegisterPerHour = 100 })
	anon := se.client()
	users := func() int { return countUsers(t, se.env) }

	// The default: open, to anyone, with or without an address.
	wantMode(t, anon.do("GET", "/api/settings/registration", nil), "open")
	if r := anon.do("POST", "/api/users", regBody("open1", "")); r.status != 201 {
		t.Fatalf("open: %d %s", r.status, r.raw)
	}

	// Who may change it: admins, with the CSRF token.
	set := map[string]any{"mode": "closed"}
	wantErr(t, anon.do("PUT", "/api/settings/registration", set), 401, CodeUnauthorized, "")
	wantErr(t, se.student.call("PUT", "/api/settings/registration", set), 403, CodeForbidden, "")
	wantErr(t, se.setter.call("PUT", "/api/settings/registration", set), 403, CodeForbidden, "")
	wantErr(t, se.admin.do("PUT", "/api/settings/registration", set), 403, CodeCSRF, "")
	for _, tc := range []struct {
		name  string
		body  any
		field string
	}{
		{"no mode", map[string]any{"domains": []string{"uni.edu"}}, "mode"},
		{"unknown mode", map[string]any{"mode": "invite"}, "mode"},
		{"mode of the wrong type", map[string]any{"mode": 1}, "mode"},
		{"domains mode without domains", map[string]any{"mode": "domains"}, "domains"},
		{"not a domain", map[string]any{"mode": "domains", "domains": []string{"uni edu"}}, "domains"},
		{"one label", map[string]any{"mode": "domains", "domains": []string{"localhost"}}, "domains"},
		{"domains of the wrong type", map[string]any{"mode": "domains", "domains": "uni.edu"}, "domains"},
		{"unknown field", map[string]any{"mode": "open", "invite_only": true}, "invite_only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, se.admin.call("PUT", "/api/settings/registration", tc.body), 400, CodeValidation, tc.field)
			wantMode(t, anon.do("GET", "/api/settings/registration", nil), "open")
		})
	}

	// Closed: nobody registers, refusals are not counted as users; admins
	// still create accounts (with the CSRF token, not without).
	wantMode(t, se.admin.call("PUT", "/api/settings/registration", set), "closed")
	wantMode(t, anon.do("GET", "/api/settings/registration", nil), "closed")
	n := users()
	wantErr(t, anon.do("POST", "/api/users", regBody("closed1", "")), 403, CodeRegistrationClosed, "")
	wantErr(t, se.student.call("POST", "/api/users", regBody("closed2", "")), 403, CodeRegistrationClosed, "")
	wantErr(t, se.admin.do("POST", "/api/users", regBody("closed3", "")), 403, CodeRegistrationClosed, "")
	// Field errors still come first: the form says what is wrong with it.
	wantErr(t, anon.do("POST", "/api/users", regBody("ab", "")), 400, CodeValidation, "username")
	if users() != n {
		t.Fatal("a refused registration created an account")
	}
	r := se.admin.call("POST", "/api/users", regBody("made-by-admin", "m@example.org"))
	if r.status != 201 {
		t.Fatalf("admin creates an account while closed: %d %s", r.status, r.raw)
	}
	if u, err := se.st.UserByUsername(context.Background(), "made-by-admin"); err != nil || u.Role != store.RoleStudent {
		t.Fatalf("made by admin: %+v %v", u, err)
	}

	// Domains: an address at a listed domain or a subdomain of one.
	r = se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "domains", "domains": []string{"Uni.EDU", "@school.org", "uni.edu"}})
	wantMode(t, r, "domains", "school.org", "uni.edu")
	wantMode(t, anon.do("GET", "/api/settings/registration", nil), "domains", "school.org", "uni.edu")
	wantErr(t, anon.do("POST", "/api/users", regBody("dom1", "")), 400, CodeValidation, "email")
	wantErr(t, anon.do("POST", "/api/users", regBody("dom2", "x@example.org")), 400, CodeValidation, "email")
	wantErr(t, anon.do("POST", "/api/users", regBody("dom3", "x@evil-uni.edu")), 400, CodeValidation, "email")
	wantErr(t, anon.do("POST", "/api/users", regBody("dom4", "x@uni.edu.evil.org")), 400, CodeValidation, "email")
	for i, email := range []string{"a@uni.edu", "b@cs.uni.edu", "c@SCHOOL.org"} {
		if r := anon.do("POST", "/api/users", regBody(fmt.Sprint("dom-ok", i), email)); r.status != 201 {
			t.Fatalf("%s: %d %s", email, r.status, r.raw)
		}
	}
	// Switching to open keeps the list for later; a PUT without domains
	// keeps it too.
	wantMode(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "open"}), "open", "school.org", "uni.edu")
	if r := anon.do("POST", "/api/users", regBody("open2", "x@example.org")); r.status != 201 {
		t.Fatalf("open again: %d %s", r.status, r.raw)
	}
	wantMode(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "open", "domains": []string{}}), "open")
}

// TestRegistrationModeReachesEveryNode: a second web node on the same
// database applies an admin's change within its settings TTL.
func TestRegistrationModeReachesEveryNode(t *testing.T) {
	se := newStaffEnv(t, nil)
	o, err := obs.New(obs.Config{Component: "webapp", LogOutput: t.Output(), Log: obs.LogConfig{Format: "text", Level: "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := se.srv.cfg
	cfg.Obs, cfg.SettingsTTL = o, 200*time.Millisecond
	other, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(other.Handler())
	t.Cleanup(ts.Close)
	anon := &env{t: t, srv: other, st: se.st, rdb: se.rdb, names: se.names, ts: ts}
	c := anon.client()
	wantMode(t, c.do("GET", "/api/settings/registration", nil), "open") // cached now
	wantMode(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "closed"}), "closed")
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := c.do("POST", "/api/users", regBody("late", ""))
		if r.status == 403 {
			wantErr(t, r, 403, CodeRegistrationClosed, "")
			break
		}
		if r.status != 201 && r.status != 409 {
			t.Fatalf("the other node: %d %s", r.status, r.raw)
		}
		if time.Now().After(deadline) {
			t.Fatal("the other node still registers 5 s after registration was closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantMode(t, c.do("GET", "/api/settings/registration", nil), "closed")
}

// TestRegistrationSettingsUnreadable: when the policy cannot be read, the
// register route and the settings answer 503; nothing is created.
func TestRegistrationSettingsUnreadable(t *testing.T) {
	se := newStaffEnv(t, nil)
	se.st.DB.MustExec("RENAME TABLE settings TO settings_gone")
	t.Cleanup(func() { se.st.DB.Exec("RENAME TABLE settings_gone TO settings") })
	anon := se.client()
	n := countUsers(t, se.env)
	wantErr(t, anon.do("POST", "/api/users", regBody("nobody", "")), 503, CodeUnavailable, "")
	wantErr(t, anon.do("GET", "/api/settings/registration", nil), 503, CodeUnavailable, "")
	wantErr(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "closed"}), 503, CodeUnavailable, "")
	if countUsers(t, se.env) != n {
		t.Fatal("an account was created without a readable policy")
	}
}

// TestRegistrationRefusalsNotRateCounted: refused registrations (closed,
// wrong domain) do not use up the address's registration rate.
func TestRegistrationRefusalsNotRateCounted(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.Limits.RegisterPerHour = 2 })
	anon := se.client()
	reg := func(name, email string) resp {
		return anon.do("POST", "/api/users", regBody(name, email), "X-Forwarded-For", "192.0.2.20")
	}
	wantMode(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "domains", "domains": []string{"uni.edu"}}), "domains", "uni.edu")
	for i := range 5 {
		wantErr(t, reg(fmt.Sprint("no", i), "x@example.org"), 400, CodeValidation, "email")
	}
	for i := range 2 {
		if r := reg(fmt.Sprint("yes", i), fmt.Sprintf("y%d@uni.edu", i)); r.status != 201 {
			t.Fatalf("registration %d: %d %s", i, r.status, r.raw)
		}
	}
	wantErr(t, reg("yes2", "y2@uni.edu"), 429, CodeRateLimited, "")
	// Admins are not rate limited (from the same address).
	if r := se.admin.do("POST", "/api/users", regBody("by-admin", ""), "X-CSRF-Token", se.admin.csrf, "X-Forwarded-For", "192.0.2.20"); r.status != 201 {
		t.Fatalf("admin after the limit: %d %s", r.status, r.raw)
	}
}

// TestRegistrationSettingsEditedByHand: a row that is not a valid policy
// (an edit by hand) reads as closed, never as open; an admin's PUT
// repairs it.
func TestRegistrationSettingsEditedByHand(t *testing.T) {
	for _, v := range []string{`{"mode":"sometimes"}`, `{"mode":"domains","domains":[]}`, `not json`} {
		t.Run(v, func(t *testing.T) {
			se := newStaffEnv(t, nil)
			se.st.DB.MustExec("INSERT INTO settings (name, value) VALUES ('registration', ?)", v)
			anon := se.client()
			wantErr(t, anon.do("POST", "/api/users", regBody("hand", "")), 403, CodeRegistrationClosed, "")
			wantMode(t, anon.do("GET", "/api/settings/registration", nil), "closed")
			wantMode(t, se.admin.call("PUT", "/api/settings/registration", map[string]any{"mode": "open", "domains": []string{}}), "open")
			if r := anon.do("POST", "/api/users", regBody("hand", "")); r.status != 201 {
				t.Fatalf("after the repair: %d %s", r.status, r.raw)
			}
		})
	}
}
