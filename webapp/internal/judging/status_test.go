package judging

import (
	"database/sql"
	"testing"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// TestCanSeeAndStatusChannel: who may list a submission, read its source,
// and which live channel a status page watches.
func TestCanSeeAndStatusChannel(t *testing.T) {
	admin := &store.User{ID: 1, Role: store.RoleAdmin}
	setter := &store.User{ID: 2, Role: store.RoleSetter}
	alice := &store.User{ID: 3, Role: store.RoleStudent}
	bob := &store.User{ID: 4, Role: store.RoleStudent}
	contest := func(vis string, visible bool) store.Submission {
		return store.Submission{UserID: 3, ContestID: sql.NullInt64{Int64: 9, Valid: true},
			ContestStatusVisibility: sql.NullString{String: vis, Valid: true}, ContestVisible: sql.NullBool{Bool: visible, Valid: true},
			ContestFeedback: sql.NullString{String: "full", Valid: true}, Visibility: store.VisibilityPublic}
	}
	practice := store.Submission{UserID: 3, Visibility: store.VisibilityPublic}
	private := store.Submission{UserID: 3, Visibility: store.VisibilityPrivate}
	own, all, hidden := contest(store.StatusOwn, true), contest(store.StatusAll, true), contest(store.StatusAll, false)
	for _, tc := range []struct {
		name string
		u    *store.User
		sub  store.Submission
		see  bool
		code bool
	}{
		{"admin own-contest", admin, own, true, true},
		{"setter private", setter, private, true, true},
		{"owner own-contest", alice, own, true, true},
		{"other own-contest", bob, own, false, false},
		{"other all-contest", bob, all, true, false},
		{"other hidden all-contest", bob, hidden, false, false},
		{"anonymous all-contest", nil, all, true, false},
		{"other practice", bob, practice, true, false},
		{"anonymous practice", nil, practice, true, false},
		{"other private practice", bob, private, false, false},
	} {
		if got := CanSee(tc.u, &tc.sub); got != tc.see {
			t.Errorf("%s: CanSee %v, want %v", tc.name, got, tc.see)
		}
		if got := CanReadCode(tc.u, &tc.sub); got != tc.code {
			t.Errorf("%s: CanReadCode %v, want %v", tc.name, got, tc.code)
		}
	}
	if !RuleOf(&all).StatusPublic || RuleOf(&own).StatusPublic || RuleOf(&hidden).StatusPublic || !RuleOf(&practice).StatusPublic ||
		RuleOf(&private).StatusPublic {
		t.Error("RuleOf: status_public only for a visible contest that lists everyone's verdicts and practice on a public problem")
	}

	c := &store.Contest{ID: 9, Visible: true, StatusVisibility: store.StatusAll}
	co := &store.Contest{ID: 8, Visible: true, StatusVisibility: store.StatusOwn}
	for _, tc := range []struct {
		u    *store.User
		c    *store.Contest
		want string
	}{
		{admin, nil, "status:0"}, {setter, co, "status:8"}, {bob, c, "status:9"}, {bob, co, "user:4"}, {bob, nil, "status:0"}, {nil, c, ""},
	} {
		ch, ok := StatusChannel(tc.u, tc.c)
		got := ""
		if ok {
			got = ch.String()
		}
		if got != tc.want {
			t.Errorf("StatusChannel(%v, %v) = %q, want %q", tc.u, tc.c, got, tc.want)
		}
	}
}

func TestExportName(t *testing.T) {
	sub := &store.Submission{ID: 12, Username: "../al ice", ProblemSlug: "sum", Verdict: string(protocol.VerdictWA), Language: "cpp17"}
	if got := ExportName(sub); got != "_al_ice/12-sum-WA-cpp17.cpp" {
		t.Errorf("ExportName %q", got)
	}
	for lang, ext := range map[string]string{"c17": ".c", "py3": ".py", "java17": ".java", "go": ".go", "rust": ".txt"} {
		if got := sourceExt(lang); got != ext {
			t.Errorf("sourceExt(%s) = %s, want %s", lang, got, ext)
		}
	}
}
