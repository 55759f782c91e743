package server

import "testing"

func TestDuplicateKey(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":2}`:                            "",
		`{"a":1,"a":2}`:                            "a",
		`{"role":"student","Role":"admin"}`:        "Role",
		`{"p":[{"label":"A"},{"label":"A"}]}`:      "",
		`{"p":[{"label":"A","label":"B"}]}`:        "label",
		`{"x":{"y":1},"y":2}`:                      "",
		`{"x":{"y":1,"z":{"y":2}},"x2":[1,[2,3]]}`: "",
		`{"x":{"y":{}},"x":0}`:                     "x",
		`[]`:                                       "",
	} {
		if got := duplicateKey([]byte(in)); got != want {
			t.Errorf("duplicateKey(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestDuplicateKeysRefused: a request with a key twice is refused,
// naming it, and writes nothing.
func TestDuplicateKeysRefused(t *testing.T) {
	e := newEnv(t, nil)
	c := e.client()
	wantErr(t, c.do("POST", "/api/users", `{"username":"alice","password":"password1","username":"admin"}`), 400, CodeInvalidJSON, "username")
	wantErr(t, c.do("POST", "/api/session", `{"username":"a","Username":"b","password":"x"}`), 400, CodeInvalidJSON, "Username")
	if n := countUsers(t, e); n != 0 {
		t.Fatalf("%d users", n)
	}
	// Display names lose their bidi controls.
	if r := c.do("POST", "/api/users", map[string]string{"username": "bidi", "password": "password1", "display_name": "\u202eevil\u202c"}); r.status != 201 {
		t.Fatalf("register: %d %s", r.status, r.raw)
	}
	if u, err := e.st.UserByUsername(t.Context(), "bidi"); err != nil || u.DisplayName != "evil" {
		t.Fatalf("stored %+v, %v", u, err)
	}
}
