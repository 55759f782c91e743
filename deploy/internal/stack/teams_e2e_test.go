package stack

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserTeamContest (issue 19): the demo contest made a team
// contest with one team of two members (imported as teams.json); each
// member logs in in a browser of their own and submits for the team —
// one a wrong answer, the other an accepted solution — and the public
// scoreboard shows one row, the team's, with A solved on the second try.
// (The balloon page's part of the team contest goes with it: see the
// balloon test.)
func TestBrowserTeamContest(t *testing.T) {
	env := startBrowserStack(t, 2)
	base := env.base
	admin := apiLogin(t, base, "admin", env.logins["admin"])
	csv := "username,display_name,password\nann,Ann Member,ann-password-1234\nben,Ben Member,ben-password-1234\n"
	if st := admin.call("POST", "/api/users/import", "text/csv", csv, nil); st != 200 {
		t.Fatalf("import the members: %d", st)
	}
	if st := admin.call("PUT", "/api/contests/demo/team-mode", "application/json", `{"enabled":true}`, nil); st != 200 {
		t.Fatalf("make the demo a team contest: %d", st)
	}
	teams := `[{"id":"rocket","name":"Team Rocket","members":["ann","ben"]}]`
	if st := admin.call("POST", "/api/contests/demo/teams/import?format=teams.json", "application/json", teams, nil); st != 200 {
		t.Fatalf("import the team: %d", st)
	}

	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	login := func(ctx context.Context, user, pw string) {
		step(t, ctx, "log in as "+user, 30*time.Second,
			chromedp.Navigate(base+"/login"),
			chromedp.WaitVisible(chromedp.ID("username")),
			chromedp.SendKeys(chromedp.ID("username"), user),
			chromedp.SendKeys(chromedp.ID("password"), pw),
			chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
			chromedp.WaitNotPresent(chromedp.ID("password")),
		)
	}
	login(ctx, "ann", "ann-password-1234")
	benCtx, cancelBen := newBrowserContext(t, ctx)
	defer cancelBen()
	login(benCtx, "ben", "ben-password-1234")

	// Ann: wrong on case 2. Ben, her teammate: accepted.
	submit(t, ctx, base+"/contests/demo/problems/a-plus-b", alwaysThree)
	watchCases(t, ctx, func(s string) bool { return strings.Contains(s, ":WA") }, 90*time.Second)
	submit(t, benCtx, base+"/contests/demo/problems/a-plus-b", slowAccepted)
	watchCases(t, benCtx, func(s string) bool {
		f := strings.Fields(s)
		for _, c := range f {
			if !strings.HasSuffix(c, ":AC") {
				return false
			}
		}
		return len(f) > 0
	}, 90*time.Second)

	// The public board (of the demo student, on no team; logged in, so it
	// is live): one row, the team's, A solved with one wrong try ("+1").
	sbCtx, cancelSB := newBrowserContext(t, ctx)
	defer cancelSB()
	login(sbCtx, "student", env.logins["student"])
	step(t, sbCtx, "the board shows the team once", 30*time.Second,
		chromedp.Navigate(base+"/contests/demo?tab=scoreboard"),
		chromedp.WaitVisible(chromedp.CSS(`section[aria-labelledby="sb-h"]`)),
		until(`(() => {
			const rows = document.querySelectorAll('section[aria-labelledby="sb-h"] tbody tr[data-user]');
			if (rows.length !== 1 || rows[0].dataset.user !== 'rocket') return false;
			const a = rows[0].querySelector('td[data-label="A"]');
			return rows[0].innerText.includes('Team Rocket') && !!a && /cell-(solved|first)/.test(a.className) && a.innerText.includes('+1');
		})()`),
	)
	screenshot(t, sbCtx, "team-board")
}
