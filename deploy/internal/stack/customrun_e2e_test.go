package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestCustomRunBrowser (issue 17): on a problem's page the demo student
// runs an accepted solution on their own input ("Run on my input"); the
// output, time and memory appear live (the user channel's custom_run
// events, not REST polling), and nothing became a submission. On the same
// stack, the problem types beyond stdin/stdout, each submitted through
// the real UI with its verdict watched live: an interactive problem, a
// file-I/O problem (input.txt/output.txt) and an output-only one.
func TestCustomRunBrowser(t *testing.T) {
	env := startBrowserStack(t, 1)
	logins, base := env.logins, env.base
	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	step(t, ctx, "log in", 30*time.Second,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "student"),
		chromedp.SendKeys(chromedp.ID("password"), logins["student"]),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitNotPresent(chromedp.ID("password")),
	)
	src := filepath.Join(t.TempDir(), "main.py")
	if err := os.WriteFile(src, []byte("a, b = map(int, input().split())\nprint(a + b)\nimport sys\nprint('note', file=sys.stderr)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "open the problem", 30*time.Second,
		chromedp.Navigate(base+"/problems/a-plus-b"),
		chromedp.WaitReady(chromedp.CSS(`#language option[value="py3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.cm-content`)),
		chromedp.WaitVisible(chromedp.ID("run-input")),
	)
	step(t, ctx, "choose Python and load the source", 15*time.Second,
		chromedp.SetValue(chromedp.CSS(`#language`), "py3"),
		js(`document.querySelector('#language').dispatchEvent(new Event('change', {bubbles: true}))`),
		chromedp.SetUploadFiles(chromedp.CSS(`.submit-panel input[type=file]`), []string{src}),
		js(`document.querySelector('.submit-panel input[type=file]').dispatchEvent(new Event('change', {bubbles: true}))`),
		until(`!!document.querySelector('.cm-content')?.innerText.includes('print(a + b)')`),
	)
	// Watch the result's states as they come (the page does not reload).
	step(t, ctx, "run on my input", 60*time.Second,
		chromedp.SendKeys(chromedp.ID("run-input"), "40 2\n"),
		js(`(() => {
			window.__runStates = [];
			new MutationObserver(() => {
				const s = document.querySelector('[data-testid="run-result"]')?.getAttribute('data-status');
				if (s && window.__runStates.at(-1) !== s) window.__runStates.push(s);
			}).observe(document.querySelector('[data-testid="custom-run"]'), {subtree: true, childList: true, attributes: true});
			return true;
		})()`),
		chromedp.Click(chromedp.CSS(`[data-testid="run-button"]`)),
		until(`document.querySelector('[data-testid="run-result"]')?.getAttribute('data-status') === 'AC'`),
		until(`document.querySelector('[data-testid="run-output-0"] .run-stdout')?.textContent === '42\n'`),
		until(`(document.querySelector('[data-testid="run-output-0"] .run-stderr')?.textContent ?? '') === 'note\n'`),
		until(`(document.querySelector('[data-testid="run-output-0"]')?.textContent ?? '').includes('ms')`),
	)
	screenshot(t, ctx, "custom-run-1-output")
	states, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__runStates.join(' → ')`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("custom run states seen: %s", states)
	// Live, not polled: the page read no custom run over REST (the poll is
	// a fallback for a socket that is down), and made no submission.
	gets, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => /\/api\/custom-runs\/\d+/.test(e.name)).length`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(states, "queued") || !strings.HasSuffix(states, "AC") {
		t.Errorf("custom run states %q: want queued first, AC last", states)
	}
	if gets > 1 {
		t.Errorf("the page read the custom run %d times over REST: it polls instead of listening", gets)
	}
	subs, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/submissions') && e.initiatorType === 'fetch').length`))
	if err != nil {
		t.Fatal(err)
	}
	if subs != 0 {
		t.Errorf("a custom run made %d submission requests", subs)
	}

	// An interactive problem (issue 17): the admin creates it with a
	// Kattis-convention interactor, the student submits a binary search
	// and watches every case turn accepted live.
	admin := adminAPI(t, base, logins["admin"])
	body, _ := json.Marshal(map[string]any{"slug": "e2e-guess", "title": "Guess the number", "statement": "Find the number with at most 20 questions.",
		"time_limit_ms": 2000, "memory_limit_kb": 262144, "mode": "icpc", "visibility": "public"})
	if st, raw := admin(http.MethodPost, "/api/problems", "application/json", body); st != http.StatusCreated {
		t.Fatalf("create the interactive problem: %d %s", st, raw)
	}
	pkg, _, err := testpkg.Package{
		Cases: []testpkg.Case{
			{In: []byte("1 100\n"), Ans: []byte("37\n")},
			{In: []byte("1 1000000\n"), Ans: []byte("999999\n")},
			{In: []byte("5 5\n"), Ans: []byte("5\n")},
		},
		Interactor: &testpkg.Interactor{Name: testpkg.InteractorC, Convention: testpkg.ConventionKattis, Source: []byte(kattisGuessE2E)},
	}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if st, raw := admin(http.MethodPost, "/api/problems/e2e-guess/testdata", "application/zip", pkg); st != http.StatusCreated {
		t.Fatalf("upload the interactive package: %d %s", st, raw)
	}
	submit(t, ctx, base+"/problems/e2e-guess", binarySearchE2E)
	allAC := func(s string) bool {
		f := strings.Fields(s)
		for _, c := range f {
			if !strings.HasSuffix(c, ":AC") {
				return false
			}
		}
		return len(f) == 3
	}
	watchCases(t, ctx, allAC, 120*time.Second)
	screenshot(t, ctx, "interactive-accepted")
	gets, err = chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => /\/api\/submissions\/\d+/.test(e.name)).length`))
	if err != nil {
		t.Fatal(err)
	}
	if gets > 2 {
		t.Errorf("the page read the interactive submission %d times over REST: it polls instead of listening", gets)
	}

	// A file-I/O problem: the statement says where the program reads
	// and writes; a program using input.txt and output.txt is accepted,
	// one answering on stdout never wrote its output file (WA).
	aplusb := []testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}, {In: []byte("20 22\n"), Ans: []byte("42\n")}}
	createWithData(t, admin, map[string]any{"slug": "e2e-files", "title": "Sum from a file", "statement": "Read input.txt, write output.txt.",
		"time_limit_ms": 2000, "memory_limit_kb": 262144, "mode": "icpc", "visibility": "public",
		"input_file": "input.txt", "output_file": "output.txt"}, testpkg.Package{Cases: aplusb, Samples: []int{1}})
	submit(t, ctx, base+"/problems/e2e-files", fileIOE2E)
	step(t, ctx, "the statement names the files", 15*time.Second,
		until(`(() => { const s = document.querySelector('[data-testid="problem-io"]')?.textContent ?? '';
			return s.includes('input.txt') && s.includes('output.txt'); })()`),
	)
	watchCases(t, ctx, func(s string) bool { return s == "1:AC 2:AC" }, 120*time.Second)
	screenshot(t, ctx, "file-io-accepted")
	notPolled(t, ctx, "the file-I/O submission")
	submit(t, ctx, base+"/problems/e2e-files", strings.ReplaceAll(fileIOE2E, `std::fopen("output.txt", "w")`, "stdout"))
	watchCases(t, ctx, func(s string) bool { return strings.HasPrefix(s, "1:WA") }, 120*time.Second)
	step(t, ctx, "the verdict says why", 15*time.Second,
		until(`(document.querySelector('tr[data-case="1"]')?.textContent ?? '').includes('no output file')`),
	)

	// An output-only problem: no editor, the student uploads one output
	// per case; a right one is accepted, a wrong one rejected, live.
	createWithData(t, admin, map[string]any{"slug": "e2e-outputs", "title": "Sums to upload", "statement": "Upload the sum of each input.",
		"time_limit_ms": 1000, "memory_limit_kb": 262144, "mode": "icpc", "visibility": "public", "output_only": true},
		testpkg.Package{Cases: aplusb})
	dir := t.TempDir()
	outs := []string{filepath.Join(dir, "1.out"), filepath.Join(dir, "2.out")}
	for i, body := range []string{"3\n", "41\n"} {
		if err := os.WriteFile(outs[i], []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step(t, ctx, "open the output-only problem", 30*time.Second,
		chromedp.Navigate(base+"/problems/e2e-outputs"),
		chromedp.WaitVisible(chromedp.ID("outputs-files")),
		until(`!document.querySelector('.cm-content') && (document.querySelector('[data-testid="problem-io"]')?.textContent ?? '') !== ''`),
	)
	step(t, ctx, "upload the outputs", 30*time.Second,
		chromedp.SetUploadFiles(chromedp.ID("outputs-files"), outs),
		js(`document.querySelector('#outputs-files').dispatchEvent(new Event('change', {bubbles: true}))`),
		until(`!document.querySelector('.submit-panel button[type=submit]').disabled`),
		chromedp.Click(chromedp.CSS(`.submit-panel button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-case]`)),
	)
	watchCases(t, ctx, func(s string) bool { return s == "1:AC 2:WA" }, 120*time.Second)
	screenshot(t, ctx, "output-only-judged")
	notPolled(t, ctx, "the output-only submission")
}

// notPolled fails the test when the page read its submission over REST
// more than twice (the first load, and a refresh at the end): the
// verdicts came over the live channel.
func notPolled(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	gets, err := chromedp.Run(ctx, chromedp.Evaluate[int](
		`performance.getEntriesByType('resource').filter(e => /\/api\/submissions\/\d+/.test(e.name)).length`))
	if err != nil {
		t.Fatal(err)
	}
	if gets > 2 {
		t.Errorf("the page read %s %d times over REST: it polls instead of listening", what, gets)
	}
}

// createWithData creates a problem through the API (as the admin) and
// uploads its test data package.
func createWithData(t *testing.T, admin func(method, path, contentType string, body []byte) (int, []byte), problem map[string]any, pkg testpkg.Package) {
	t.Helper()
	body, _ := json.Marshal(problem)
	if st, raw := admin(http.MethodPost, "/api/problems", "application/json", body); st != http.StatusCreated {
		t.Fatalf("create %v: %d %s", problem["slug"], st, raw)
	}
	zip, _, err := pkg.Build()
	if err != nil {
		t.Fatal(err)
	}
	if st, raw := admin(http.MethodPost, fmt.Sprintf("/api/problems/%s/testdata", problem["slug"]), "application/zip", zip); st != http.StatusCreated {
		t.Fatalf("upload the test data of %v: %d %s", problem["slug"], st, raw)
	}
}

// fileIOE2E reads input.txt and writes output.txt.
const fileIOE2E = `#include <cstdio>
int main() {
	std::FILE *in = std::fopen("input.txt", "r"), *out = std::fopen("output.txt", "w");
	int a, b; if (!in || !out || std::fscanf(in, "%d %d", &a, &b) != 2) return 1;
	std::fprintf(out, "%d\n", a + b);
}
`

// The guessing game in the Kattis convention (C, no testlib): the input is
// "lo hi", the secret is the answer file; 42 accepted, 43 wrong.
const kattisGuessE2E = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static FILE *msg;
static void verdict(int code, const char *text, int n) { fprintf(msg, text, n); fclose(msg); exit(code); }
int main(int argc, char **argv) {
	if (argc < 4) return 1;
	char path[4096]; snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
	msg = fopen(path, "w"); if (!msg) return 1;
	FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r");
	int lo, hi, secret;
	if (!in || !ans || fscanf(in, "%d %d", &lo, &hi) != 2 || fscanf(ans, "%d", &secret) != 1) return 1;
	printf("%d %d\n", lo, hi); fflush(stdout);
	for (int q = 0;;) {
		char kind[8]; int x;
		if (scanf("%7s %d", kind, &x) != 2) verdict(43, "the solution ended after %d questions", q);
		if (!strcmp(kind, "!")) { if (x != secret) verdict(43, "wrong guess %d", x); verdict(42, "correct: %d", x); }
		if (++q > 20) verdict(43, "too many questions: %d", q);
		printf("%s\n", secret < x ? "<" : secret > x ? ">" : "="); fflush(stdout);
	}
}
`

const binarySearchE2E = `#include <cstdio>
int main() {
	int lo, hi; if (std::scanf("%d %d", &lo, &hi) != 2) return 1;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2; std::printf("? %d\n", mid); std::fflush(stdout);
		char r[4]; if (std::scanf("%3s", r) != 1) return 1;
		if (r[0] == '=') { lo = hi = mid; break; }
		if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
	}
	std::printf("! %d\n", lo); std::fflush(stdout);
}
`
