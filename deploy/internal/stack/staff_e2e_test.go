package stack

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// staffTools is the staff's part of TestAdminBrowser (issue 15): the
// status page filtered by problem, a source opened from it, the selection
// rejudged and seen re-judged live (no reload) with the job's progress,
// and the export zip. subID
// is the student's accepted submission of adminProblem in adminContest.
func staffTools(t *testing.T, ctx context.Context, base string, subID int) {
	t.Helper()
	sid := strconv.Itoa(subID)
	row := `tr[data-id="` + sid + `"]`
	step(t, ctx, "the status page, filtered by problem", 30*time.Second,
		chromedp.Navigate(base+"/status"),
		chromedp.WaitVisible(chromedp.CSS(row)),
		setValue("#st-problem", adminProblem),
		chromedp.Click(chromedp.CSS(`form:has(#st-problem) button[type=submit]`)),
		until(`location.search === '?problem=`+adminProblem+`'`),
		until(`document.querySelectorAll('table.status tbody tr').length > 0 && Array.from(document.querySelectorAll('table.status tbody tr')).every((r) =>
			r.querySelector('a[href^="/problems/"]').getAttribute('href') === '/problems/`+adminProblem+`')`),
		chromedp.WaitVisible(chromedp.CSS(row+` td.verdict .verdict`)),
	)
	screenshot(t, ctx, "staff-1-status")
	step(t, ctx, "open a source from the status page", 30*time.Second,
		chromedp.Click(chromedp.CSS(row+` a[href="/submissions/`+sid+`"]`)),
		until(`location.pathname === '/submissions/`+sid+`'`),
		until(`document.querySelectorAll('tr[data-case][data-verdict="AC"]').length === 3`),
		until(`(document.querySelector('details.source code')?.textContent ?? '').includes('scanf')`),
		chromedp.WaitVisible(chromedp.ID("jury-rejudge")),
		chromedp.WaitVisible(chromedp.ID("ov-reason")),
	)
	screenshot(t, ctx, "staff-2-source")
	// Back on the filtered page: watch the row's verdict while the whole
	// selection is rejudged. The page must not reload (the marker stays)
	// and must show the row leave AC and come back to it.
	step(t, ctx, "rejudge the selection and watch it live", 90*time.Second,
		chromedp.Navigate(base+"/status?problem="+adminProblem),
		chromedp.WaitVisible(chromedp.CSS(row+` td.verdict .verdict`)),
		until(`document.querySelector('`+row+` td.verdict').textContent === 'AC'`),
		js(`(() => {
			window.__staffMarker = 1;
			window.__verdicts = [];
			const cell = () => document.querySelector('`+row+` td.verdict');
			new MutationObserver(() => { const v = cell()?.textContent; if (v && window.__verdicts.at(-1) !== v) window.__verdicts.push(v); })
				.observe(document.querySelector('table.status tbody'), {subtree: true, childList: true, characterData: true});
			return true;
		})()`),
		chromedp.Click(chromedp.ID("st-rejudge")),
		textIncludes("queued for rejudging."),
		until(`window.__staffMarker === 1 && window.__verdicts.some((v) => v !== 'AC') && window.__verdicts.at(-1) === 'AC'`),
		// The background job's progress (GET /api/rejudge/{job}, asked
		// again until it ends) says it went through the selection.
		until(`/Rejudge done: (\d+) of \1 /.test(document.querySelector('.rejudge-progress')?.textContent ?? '')`),
	)
	verdicts, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__verdicts.join(' → ')`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("live on the status page: %s", verdicts)
	screenshot(t, ctx, "staff-3-rejudged-live")

	// The export: the contest's row in the admin list links the zip.
	step(t, ctx, "the contest in the admin list", 30*time.Second,
		chromedp.Navigate(base+"/admin/contests"),
		chromedp.WaitVisible(chromedp.ID("cl-q")),
		chromedp.SendKeys(chromedp.ID("cl-q"), adminContest),
		chromedp.KeyEvent("\r"),
		until(`document.querySelectorAll('.admin-list tr[data-slug]').length === 1 && !!document.querySelector('.admin-list tr[data-slug="`+adminContest+`"] a.export')`),
	)
	type download struct {
		Status      int    `json:"status"`
		Type        string `json:"type"`
		Disposition string `json:"disposition"`
		Body        string `json:"body"` // base64
	}
	dl, err := chromedp.Run(ctx, chromedp.Evaluate[download](`fetch(document.querySelector('.admin-list tr[data-slug="`+adminContest+`"] a.export').href).then(async (r) => {
		const b = new Uint8Array(await r.arrayBuffer());
		let s = '';
		for (const x of b) s += String.fromCharCode(x);
		return {status: r.status, type: r.headers.get('content-type') ?? '', disposition: r.headers.get('content-disposition') ?? '', body: btoa(s)};
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("download the export: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(dl.Body)
	if err != nil || dl.Status != 200 || dl.Type != "application/zip" || !strings.HasPrefix(dl.Disposition, "attachment;") {
		t.Fatalf("export: status %d type %q disposition %q (%v)", dl.Status, dl.Type, dl.Disposition, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("the export is not a zip: %v", err)
	}
	want := fmt.Sprintf("%s/%d-%s-AC-cpp17.cpp", e2eStudent, subID, adminProblem)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name != want {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != aPlusBSource {
			t.Errorf("%s in the export: %q, want the submitted source", want, b)
		}
	}
	if len(names) != 1 || names[0] != want {
		t.Errorf("export entries %v, want [%s]", names, want)
	}
}
