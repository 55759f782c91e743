package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestImportUsers(t *testing.T) {
	se := newStaffEnv(t, func(c *Config) { c.MaxImportRows = 10 })
	ctx := context.Background()
	csv := "username,display_name,email,password,role\n" +
		"alice,Alice A,alice@example.org,alice-pass-1,\n" +
		"bob,,,,setter\n" +
		"\n" +
		"carol,\"Carol, C.\",,,student\n"

	wantErr(t, se.setter.upload("/api/users/import", "file", []byte(csv), ""), 403, CodeForbidden, "")
	wantErr(t, se.student.upload("/api/users/import", "file", []byte(csv), ""), 403, CodeForbidden, "")
	before := se.count("users")
	for _, tc := range []struct {
		name, body    string
		status        int
		field         string
		lines         []int
		wantInMessage string
	}{
		{"empty", "", 400, "file", nil, "empty"},
		{"no username column", "name,email\nx,y\n", 400, "file", nil, "unknown column"},
		{"header only", "username\n", 400, "file", nil, "no users"},
		{"too many rows", "username\na1\na2\na3\na4\na5\na6\na7\na8\na9\na10\na11\n", 413, "file", nil, "more than 10"},
		{"bad quote", "username\n\"abc\n", 400, "file", nil, "line 2"},
		{"bad lines", "username,email,password,role\n" +
			"ok-user,,good-password,\n" +
			"Bad User,,,\n" +
			"dup,,,admin\n" +
			"dup,,,\n" +
			"eve,not-an-email,,\n" +
			"frank,,short,\n" +
			"gina,,,god\n" +
			"hank,,\n", 400, "file", []int{3, 5, 6, 7, 8, 9}, "line 3"},
		{"email taken in MySQL", "username,email\nnewbie,root@example.org\n", 400, "file", []int{2}, "email"},
		{"own role", "username,role\nroot,student\n", 400, "file", []int{2}, "own role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "email taken in MySQL" {
				if _, err := se.st.DB.Exec("UPDATE users SET email = 'root@example.org' WHERE username = 'root'"); err != nil {
					t.Fatal(err)
				}
			}
			r := se.admin.upload("/api/users/import", "file", []byte(tc.body), "")
			code := CodeValidation
			if tc.status == 413 {
				code = CodeTooLarge
			}
			wantErr(t, r, tc.status, code, tc.field)
			if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tc.wantInMessage) {
				t.Fatalf("message %q lacks %q", msg, tc.wantInMessage)
			}
			var got struct {
				Errors []store.ImportLineError `json:"errors"`
			}
			_ = json.Unmarshal([]byte(r.raw), &got)
			var lines []int
			for _, e := range got.Errors {
				lines = append(lines, e.Line)
				if e.Message == "" {
					t.Errorf("line %d: empty message", e.Line)
				}
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.lines) && tc.lines != nil {
				t.Fatalf("error lines %v, want %v (%s)", lines, tc.lines, r.raw)
			}
		})
	}
	if n := se.count("users"); n != before {
		t.Fatalf("rejected imports changed the users: %d, want %d", n, before)
	}

	r := se.admin.upload("/api/users/import", "file", []byte(csv), "")
	var out ImportJSON
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil || r.status != 200 || out.Created != 3 || out.Updated != 0 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if len(out.Passwords) != 2 || out.Passwords["bob"] == "" || out.Passwords["carol"] == "" || out.Passwords["alice"] != "" {
		t.Fatalf("generated passwords = %v", out.Passwords)
	}
	bob, _ := se.st.UserByUsername(ctx, "bob")
	carol, _ := se.st.UserByUsername(ctx, "carol")
	if bob.Role != store.RoleSetter || bob.DisplayName != "bob" || carol.DisplayName != "Carol, C." || carol.Role != store.RoleStudent {
		t.Fatalf("bob = %+v, carol = %+v", bob, carol)
	}
	for name, pw := range map[string]string{"alice": "alice-pass-1", "bob": out.Passwords["bob"]} {
		if r := se.client().login(name, pw); r.status != 200 {
			t.Fatalf("login %s with the imported password: %d", name, r.status)
		}
	}

	// Again, as a text/csv body: alice renamed (password kept), dave new.
	again := "username,display_name\nalice,Alice B\ndave,Dave\n"
	r = se.admin.upload("/api/users/import", "", []byte(again), "text/csv")
	out = ImportJSON{}
	if err := json.Unmarshal([]byte(r.raw), &out); err != nil || r.status != 200 || out.Created != 1 || out.Updated != 1 || len(out.Passwords) != 1 {
		t.Fatalf("second import: %d %s", r.status, r.raw)
	}
	if a, _ := se.st.UserByUsername(ctx, "alice"); a.DisplayName != "Alice B" {
		t.Fatalf("alice not updated: %+v", a)
	}
	if r := se.client().login("alice", "alice-pass-1"); r.status != 200 {
		t.Fatal("an update without a password changed it")
	}
}
