package server

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestUploadsOutliveTheConnTimeout: an import whose password hashing takes
// longer than the connection's read/write timeout still gets its answer
// (uploads get UploadTimeout); an ordinary request keeps the short one.
func TestUploadsOutliveTheConnTimeout(t *testing.T) {
	const connTimeout = 300 * time.Millisecond
	e := newEnv(t, func(c *Config) { c.ConnTimeout = connTimeout; c.PasswordCost = 10; c.DrainDelay = time.Millisecond })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	e.ts.URL = "http://" + ln.Addr().String() // the clients below talk to Serve's own http.Server
	e.user("root", store.RoleAdmin, "root-password")
	admin := e.client()
	if r := admin.login("root", "root-password"); r.status != 200 {
		t.Fatalf("login: %d %s", r.status, r.raw)
	}
	var csv strings.Builder
	csv.WriteString("username,password\n")
	for i := range 24 { // 24 bcrypt hashes at cost 10: well over 300 ms on any core count here
		fmt.Fprintf(&csv, "slow-%02d,password-%02d\n", i, i)
	}
	start := time.Now()
	r := admin.upload("/api/users/import", "file", []byte(csv.String()), "")
	if r.status != 200 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	if took := time.Since(start); took <= connTimeout {
		t.Fatalf("the import took %v, not longer than the connection timeout %v: the test proves nothing", took, connTimeout)
	}
	if n := e.count("users"); n != 25 {
		t.Fatalf("%d users after the import, want 25", n)
	}
}
