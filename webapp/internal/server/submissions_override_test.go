package server

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// TestOverrideVerdict: staff set a judged submission's verdict by hand
// with a reason; the change is audited (who, when, old → new, why) and
// shown to staff only; the scoreboard, the solved counts and the live
// state follow. Every failure names its field.
func TestOverrideVerdict(t *testing.T) {
	se := newJury(t)
	ctx := context.Background()
	sid := se.submit(se.alice, "all-cup", "x", protocol.VerdictWA)
	queued := se.submit(se.bob, "all-cup", "y", "")
	path := fmt.Sprintf("/api/submissions/%d/override", sid)
	ok := map[string]any{"verdict": "AC", "reason": "the checker rejected a correct trailing space"}

	wantErr(t, se.anon.do("POST", path, ok), 401, CodeUnauthorized, "")
	wantErr(t, se.alice.call("POST", path, ok), 403, CodeForbidden, "")
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"reason": "r"}, "verdict"},
		{map[string]any{"verdict": "queued", "reason": "r"}, "verdict"},
		{map[string]any{"verdict": "SK", "reason": "r"}, "verdict"},
		{map[string]any{"verdict": "AC"}, "reason"},
		{map[string]any{"verdict": "AC", "reason": "   "}, "reason"},
		{map[string]any{"verdict": "AC", "reason": strings.Repeat("x", 1001)}, "reason"},
		{map[string]any{"verdict": "AC", "reason": "r", "score": 150}, "score"},
		{map[string]any{"verdict": "AC", "reason": "r", "score": -1}, "score"},
		{map[string]any{"verdict": "AC", "reason": "r", "extra": 1}, "extra"},
	} {
		wantErr(t, se.admin.call("POST", path, tc.body), 400, CodeValidation, tc.field)
	}
	wantErr(t, se.admin.call("POST", "/api/submissions/999999/override", ok), 404, CodeNotFound, "")
	wantErr(t, se.admin.call("POST", fmt.Sprintf("/api/submissions/%d/override", queued), ok), 409, CodeConflict, "verdict")

	r := se.setter.call("POST", path, ok)
	if r.status != 200 || r.body["submission"].(map[string]any)["verdict"] != "AC" {
		t.Fatalf("override: %d %s", r.status, r.raw)
	}
	sub, err := se.st.SubmissionByID(ctx, sid)
	if err != nil || sub.Verdict != "AC" || sub.Score != 100 {
		t.Fatalf("row after the override: %s %v (%v)", sub.Verdict, sub.Score, err)
	}
	// The audit, to staff.
	d := se.admin.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
	ovs, _ := d.body["submission"].(map[string]any)["overrides"].([]any)
	if len(ovs) != 1 {
		t.Fatalf("staff view: %s", d.raw)
	}
	o := ovs[0].(map[string]any)
	if o["by"] != "setter" || o["old_verdict"] != "WA" || o["new_verdict"] != "AC" || o["new_score"] != float64(100) ||
		o["reason"] != ok["reason"] || o["at"] == "" {
		t.Fatalf("override record %v", o)
	}
	// The owner and others see the verdict, not the audit.
	for _, c := range []*client{se.alice, se.bob} {
		d := c.do("GET", fmt.Sprintf("/api/submissions/%d", sid), nil)
		if d.status != 200 || strings.Contains(d.raw, "overrides") || strings.Contains(d.raw, "trailing space") ||
			d.body["submission"].(map[string]any)["verdict"] != "AC" {
			t.Fatalf("student view: %d %s", d.status, d.raw)
		}
	}
	// The scoreboard follows.
	b := se.admin.do("GET", "/api/contests/all-cup/scoreboard?view=live", nil)
	if !strings.Contains(b.raw, `"solved":1`) && !strings.Contains(b.raw, `"s":true`) {
		t.Fatalf("scoreboard after the override: %s", b.raw)
	}
	if n, _ := se.st.UserSolvedCount(ctx, sub.UserID); n != 1 {
		t.Fatalf("alice solved %d, want 1", n)
	}
	// The live state.
	snap, err := se.q.Submission(ctx, sid)
	if err != nil || snap.State.Status != protocol.VerdictAC {
		t.Fatalf("live state %+v (%v)", snap.State, err)
	}
	// Back to WA with a partial score, audited as a second record.
	if r := se.admin.call("POST", path, map[string]any{"verdict": "WA", "score": 40, "reason": "undo"}); r.status != 200 {
		t.Fatalf("second override: %d %s", r.status, r.raw)
	}
	if n, _ := se.st.UserSolvedCount(ctx, sub.UserID); n != 0 {
		t.Fatalf("alice solved %d after the undo, want 0", n)
	}
	os, err := se.st.Overrides(ctx, sid)
	if err != nil || len(os) != 2 || os[1].OldVerdict != "AC" || os[1].NewScore != 40 || os[1].Username.String != "root" {
		t.Fatalf("overrides %+v (%v)", os, err)
	}
}

func unzip(t *testing.T, raw string) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader([]byte(raw)), int64(len(raw)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
