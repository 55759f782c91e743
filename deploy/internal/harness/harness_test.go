package harness

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

func TestLiveURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"http://127.0.0.1:8080", "ws://127.0.0.1:8080/ws"},
		{"http://127.0.0.1:8080/", "ws://127.0.0.1:8080/ws"},
		{"https://judge.example.org", "wss://judge.example.org/ws"},
	}
	for _, tt := range tests {
		if got := LiveURL(tt.base); got != tt.want {
			t.Errorf("LiveURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		status int
		want   bool
	}{
		{0, true}, {http.StatusTooManyRequests, true}, {http.StatusBadGateway, true},
		{http.StatusServiceUnavailable, true}, {http.StatusGatewayTimeout, true},
		{http.StatusBadRequest, false}, {http.StatusConflict, false}, {http.StatusInternalServerError, false},
	}
	for _, tt := range tests {
		if got := Retryable(Attempt{Status: tt.status}); got != tt.want {
			t.Errorf("Retryable(%d) = %v, want %v", tt.status, got, tt.want)
		}
	}
}

func TestReadLogins(t *testing.T) {
	p := t.TempDir() + "/logins"
	if err := writeFile(p, "# Verdict demo logins\nadmin    pa55   (administrator)\nstudent  s7u    (student)\n"); err != nil {
		t.Fatal(err)
	}
	m, err := readLogins(p)
	if err != nil || m["admin"] != "pa55" || m["student"] != "s7u" || len(m) != 2 {
		t.Fatalf("readLogins = %v, %v", m, err)
	}
	if err := writeFile(p, "admin pa55\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := readLogins(p); err == nil {
		t.Fatal("no error without a student")
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o600) }

// SubscribeUnread tells the hub's answer by its head: the head it looks for
// is the one the hub's encoders write, for a compact board and any other.
func TestSnapshotHead(t *testing.T) {
	ch := protocol.Channel{Kind: protocol.ChannelContest, ID: 7}
	for _, state := range []string{`{"rule":"icpc","rows":[]}`, `{ "rule" : "icpc" }`} {
		b, err := protocol.MarshalSnapshot("s12", ch, 3, json.RawMessage(state))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, snapshotHead("s12")) {
			t.Fatalf("%s does not begin with %s", b, snapshotHead("s12"))
		}
	}
}
