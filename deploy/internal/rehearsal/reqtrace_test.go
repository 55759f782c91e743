package rehearsal

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestReqTraceParts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(30 * time.Millisecond)
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	hc := srv.Client()
	for i, wantReused := range []bool{false, true} {
		ctx, tr := traced(t.Context())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		conn, server, rest, reused, ok := tr.parts(time.Now())
		if !ok || reused != wantReused || server < 30*time.Millisecond || conn < 0 || rest < 0 {
			t.Errorf("request %d: conn %v server %v rest %v reused %v ok %v; want the 30 ms in server, reused %v",
				i, conn, server, rest, reused, ok, wantReused)
		}
	}
	// A request that never got a connection has no parts.
	_, tr := traced(t.Context())
	if _, _, _, _, ok := tr.parts(time.Now()); ok {
		t.Error("parts of a request that was not sent")
	}
}
