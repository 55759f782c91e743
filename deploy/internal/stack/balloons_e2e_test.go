package stack

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserBalloons (issue 19): the demo contest, made a team contest
// with the demo student on one team, gets a balloon colour for problem
// A; an admin opens the balloon page, empty; the student's accepted
// solution then appears on it live as the team's balloon (the balloon
// channel, no reload), in the problem's colour and flagged the first
// solve of the contest and of the problem; the admin marks it delivered,
// and a reload still shows it delivered.
func TestBrowserBalloons(t *testing.T) {
	env := startBrowserStack(t, 1)
	base := env.base
	admin := apiLogin(t, base, "admin", env.logins["admin"])
	// A team contest: the demo student is on team "balloonists".
	if st := admin.call("PUT", "/api/contests/demo/team-mode", "application/json", `{"enabled":true}`, nil); st != 200 {
		t.Fatalf("make the demo a team contest: %d", st)
	}
	teams := `[{"id":"balloonists","name":"The Balloonists","members":["student"]}]`
	if st := admin.call("POST", "/api/contests/demo/teams/import?format=teams.json", "application/json", teams, nil); st != 200 {
		t.Fatalf("import the team: %d", st)
	}
	colors := `{"problems":[{"label":"A","color":"Gold","rgb":"#ffd700"}]}`
	if st := admin.call("PUT", "/api/contests/demo/problem-colors", "application/json", colors, nil); st != 200 {
		t.Fatalf("set the colours: %d", st)
	}

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start Chromium on ctx, not on a step's
		t.Fatalf("start chromium: %v", err)
	}
	step(t, ctx, "log in as admin", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), env.logins["admin"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)
	step(t, ctx, "open the empty balloon page", 30*time.Second,
		chromedp.Navigate(base+"/contests/demo/balloons"),
		chromedp.WaitVisible(chromedp.ID("balloons-empty")),
	)
	time.Sleep(2 * time.Second) // the page's subscription reaches the hub

	// The student's accepted solution, over the API (another browser's
	// submission is the same request).
	student := apiLogin(t, base, "student", env.logins["student"])
	body, _ := json.Marshal(map[string]string{"problem": "a-plus-b", "contest": "demo", "language": "cpp17", "source": slowAccepted})
	var sub struct {
		ID int64 `json:"id"`
	}
	if st := student.call("POST", "/api/submissions", "application/json", string(body), &sub, "Idempotency-Key", "balloon-1"); st != 201 {
		t.Fatalf("submit: %d", st)
	}
	step(t, ctx, "the first solve appears live", 120*time.Second,
		until(`(() => {
			const rows = document.querySelectorAll('table.balloons tbody tr');
			if (rows.length !== 1 || rows[0].dataset.label !== 'A' || rows[0].dataset.team !== 'balloonists') return false;
			const r = rows[0];
			return !!r.querySelector('.badge.first-contest') && !!r.querySelector('.badge.first-problem') &&
				r.innerText.includes('Gold') && r.innerText.includes('The Balloonists') && r.querySelector('.swatch')?.style.background !== '';
		})()`),
	)
	screenshot(t, ctx, "balloons-live")
	step(t, ctx, "mark it delivered", 30*time.Second,
		chromedp.Click(chromedp.CSS(`table.balloons tbody tr input[type=checkbox]`)),
		until(`document.querySelector('table.balloons tbody tr')?.classList.contains('delivered') === true`),
	)
	step(t, ctx, "delivered after a reload", 30*time.Second,
		chromedp.Navigate(base+"/contests/demo/balloons"),
		until(`document.querySelector('table.balloons tbody tr input[type=checkbox]')?.checked === true`),
	)
	var list struct {
		Items []struct {
			SubmissionID int64 `json:"submission_id"`
			Delivered    bool  `json:"delivered"`
		} `json:"items"`
	}
	if st := admin.call("GET", "/api/contests/demo/balloons", "application/json", "", &list); st != 200 ||
		len(list.Items) != 1 || list.Items[0].SubmissionID != sub.ID || !list.Items[0].Delivered {
		t.Fatalf("the balloon list: %d %s", st, strings.TrimSpace(fmt.Sprint(list)))
	}
}
