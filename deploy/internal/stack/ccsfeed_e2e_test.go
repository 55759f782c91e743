package stack

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// feedReader is an open Contest API event feed through nginx.
type feedReader struct {
	t      *testing.T
	lines  chan string
	cancel context.CancelFunc
	done   chan struct{}
	token  string
}

func openCCSFeed(t *testing.T, base, query, token string) *feedReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	rq, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/ccs/contests/demo/event-feed"+query, nil)
	rq.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(rq)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		res.Body.Close()
		cancel()
		t.Fatalf("event feed: %d", res.StatusCode)
	}
	f := &feedReader{t: t, lines: make(chan string, 10000), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
		close(f.lines)
	}()
	t.Cleanup(f.close)
	return f
}

func (f *feedReader) close() {
	f.cancel()
	<-f.done
}

// until reads events until stop says so (within d).
func (f *feedReader) until(d time.Duration, what string, stop func(ev map[string]any) bool) []map[string]any {
	f.t.Helper()
	var got []map[string]any
	deadline := time.After(d)
	for {
		select {
		case line, ok := <-f.lines:
			if !ok {
				f.t.Fatalf("%s: the feed ended after %d events", what, len(got))
			}
			if line == "" {
				continue
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				f.t.Fatalf("%s: not JSON: %q", what, line)
			}
			if tok, _ := ev["token"].(string); tok != "" {
				f.token = tok
			}
			got = append(got, ev)
			if stop(ev) {
				return got
			}
		case <-deadline:
			f.t.Fatalf("%s: timed out after %d events", what, len(got))
		}
	}
}

// TestCCSFeedSurvivesWebAndHubKill (issue 19): the whole stack with a
// real judge; a CDS-like client follows the demo contest's event feed
// through nginx with a staff token. While a submission is being judged,
// web-1 and the hub are killed (kill -9); a second submission is made
// while the hub is down; both come back. The client resumes from the
// last token it read: it then holds exactly what the REST endpoints list
// (nothing lost, nothing twice).
func TestCCSFeedSurvivesWebAndHubKill(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the judge's sandbox needs root")
	}
	bin := buildComponents(t)
	out := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			lines := strings.Split(out.String(), "\n")
			t.Logf("last lines of the stack's output:\n%s", strings.Join(lines[max(0, len(lines)-120):], "\n"))
		}
	})
	cfg := Config{Dir: t.TempDir(), BinDir: bin, StaticDir: t.TempDir(), Demo: true, Restart: false, Judges: 1, Out: out, FreePorts: true}
	s, stop := startStack(t, cfg)
	t.Cleanup(stop)
	logins := map[string]string{}
	for _, l := range strings.Split(s.demoLogins, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.HasPrefix(l, "#") {
			logins[f[0]] = f[1]
		}
	}
	base := strings.TrimSuffix(s.URL(), "/")
	admin := apiLogin(t, base, "admin", logins["admin"])
	var tok struct {
		Token string `json:"token"`
	}
	if st := admin.call("POST", "/api/me/tokens", "application/json", `{"name":"cds","scope":"staff"}`, &tok); st != 201 {
		t.Fatalf("staff token: %d", st)
	}
	student := apiLogin(t, base, "student", logins["student"])
	submit := func(key string) string {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"problem": "a-plus-b", "contest": "demo", "language": "cpp17", "source": slowAccepted + "// " + key + "\n"})
		var sub struct {
			ID int64 `json:"id"`
		}
		for try := 0; ; try++ { // through nginx, which may still route to a node being killed
			st := student.call("POST", "/api/submissions", "application/json", string(body), &sub, "Idempotency-Key", key)
			if st == 201 {
				return fmt.Sprint(sub.ID)
			}
			if try == 10 {
				t.Fatalf("submit %s: %d", key, st)
			}
			time.Sleep(time.Second)
		}
	}

	feed := openCCSFeed(t, base, "", tok.Token)
	seen := feed.until(60*time.Second, "the snapshot", func(ev map[string]any) bool { return ev["token"] != nil })
	s1 := submit("ccs-kill-1")
	seen = append(seen, feed.until(30*time.Second, "s1 pending", func(ev map[string]any) bool {
		return ev["type"] == "judgements" && ev["id"] == s1+"-1"
	})...)
	last := feed.token
	feed.close()
	time.Sleep(500 * time.Millisecond) // the judge is at work on s1
	if err := s.Kill("web-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill("hub"); err != nil {
		t.Fatal(err)
	}
	s2 := submit("ccs-kill-2") // web-2 takes it; no hub to dispatch it
	time.Sleep(3 * time.Second)
	ctx := context.Background()
	if err := s.Start(ctx, "hub"); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(ctx, "web-1"); err != nil {
		t.Fatal(err)
	}

	// The REST endpoints once both are judged.
	rest := func(typ string) []map[string]any {
		t.Helper()
		rq, _ := http.NewRequest("GET", base+"/api/ccs/contests/demo/"+typ, nil)
		rq.Header.Set("Authorization", "Bearer "+tok.Token)
		res, err := http.DefaultClient.Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var list []map[string]any
		if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		return list
	}
	final := map[string]string{} // submission → its judgement id, once judged
	deadline := time.Now().Add(3 * time.Minute)
	for len(final) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not judged in time: %v", rest("judgements"))
		}
		time.Sleep(time.Second)
		clear(final)
		for _, j := range rest("judgements") {
			if sub := j["submission_id"]; (sub == s1 || sub == s2) && j["judgement_type_id"] != nil {
				final[sub.(string)] = j["id"].(string)
			}
		}
	}
	resumed := openCCSFeed(t, base, "?since_token="+last, tok.Token)
	got := map[string]bool{}
	evs := resumed.until(60*time.Second, "the judgements after the resume", func(ev map[string]any) bool {
		d, _ := ev["data"].(map[string]any)
		if ev["type"] == "judgements" && d != nil && d["judgement_type_id"] != nil {
			got[ev["id"].(string)] = true
		}
		return got[final[s1]] && got[final[s2]]
	})
	// Nothing twice; what the client holds is what the API lists.
	held := map[string]map[string]string{}
	for _, ev := range append(seen, evs...) {
		typ, _ := ev["type"].(string)
		id, _ := ev["id"].(string)
		b, _ := json.Marshal(ev["data"])
		if held[typ] == nil {
			held[typ] = map[string]string{}
		}
		if prev, ok := held[typ][id]; ok && prev == string(b) && typ != "contests" && typ != "state" && typ != "awards" {
			t.Errorf("sent twice: %s %s %s", typ, id, b)
		}
		held[typ][id] = string(b)
		if ev["data"] == nil {
			delete(held[typ], id)
		}
	}
	for _, typ := range []string{"submissions", "judgements", "runs"} {
		var want, have []string
		for _, o := range rest(typ) {
			want = append(want, fmt.Sprintf("%v %v", o["id"], o["judgement_type_id"]))
		}
		for id, data := range held[typ] {
			var o map[string]any
			_ = json.Unmarshal([]byte(data), &o)
			have = append(have, fmt.Sprintf("%v %v", id, o["judgement_type_id"]))
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(have, want) {
			t.Errorf("%s: the client holds %v, the API lists %v", typ, have, want)
		}
	}
	t.Logf("s1 judged as %s, s2 as %s", final[s1], final[s2])
}
