package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/feedback"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/account"
	"github.com/verdict-oj/verdict/webapp/internal/blob"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type countingCache struct{ n int }

func (c *countingCache) InvalidateProblems(context.Context) error { c.n++; return nil }

func setup(t *testing.T) (Config, *store.Store) {
	t.Helper()
	env := testenv.MySQL(t)
	db, err := store.Open(context.Background(), env.DSN, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.Migrate(context.Background(), env.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	blobs, err := blob.NewDir(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(db)
	return Config{Store: st, Blobs: blobs, LoginsFile: filepath.Join(dir, "demo-logins.txt"),
		JudgeTokenDir: dir, Judges: 2, PasswordCost: 4}, st
}

func counts(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, tbl := range []string{"users", "problems", "testdata_versions", "contests", "contest_problems", "contest_participants", "judges"} {
		var n int
		if err := st.DB.Get(&n, "SELECT COUNT(*) FROM "+tbl); err != nil {
			t.Fatal(err)
		}
		out[tbl] = n
	}
	return out
}

func TestLoadIdempotent(t *testing.T) {
	cfg, st := setup(t)
	ctx := context.Background()
	cache := &countingCache{}
	cfg.Cache = cache
	first, err := Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if cache.n != 1 {
		t.Errorf("cache invalidated %d times on first load, want 1", cache.n)
	}
	want := map[string]int{"users": 2, "problems": 3, "testdata_versions": 3, "contests": 1,
		"contest_problems": 2, "contest_participants": 1, "judges": 2}
	if got := counts(t, st); !equal(got, want) {
		t.Fatalf("after first load: %v, want %v", got, want)
	}
	logins1, err := os.ReadFile(cfg.LoginsFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(cfg.LoginsFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("logins file mode %v", fi.Mode().Perm())
	}
	for _, l := range first.Logins {
		u, err := st.UserByUsername(ctx, l.Username)
		if err != nil || !account.CheckPassword(u.PasswordHash, l.Password) {
			t.Fatalf("login %s does not work: %v", l.Username, err)
		}
		if !strings.Contains(string(logins1), l.Username+" ") || !strings.Contains(string(logins1), l.Password) {
			t.Errorf("logins file lacks %s:\n%s", l.Username, logins1)
		}
	}
	admin, _ := st.UserByUsername(ctx, "admin")
	if admin.Role != store.RoleAdmin {
		t.Errorf("admin role %q", admin.Role)
	}
	tokens1 := judgeTokens(t, cfg)

	second, err := Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(t, st); !equal(got, want) {
		t.Fatalf("after second load: %v, want %v", got, want)
	}
	logins2, _ := os.ReadFile(cfg.LoginsFile)
	if !bytes.Equal(logins1, logins2) || first.Logins[0] != second.Logins[0] || first.Logins[1] != second.Logins[1] {
		t.Fatalf("logins changed on the second load:\n%s\n%s", logins1, logins2)
	}
	if cache.n != 1 {
		t.Errorf("second load invalidated the cache though nothing changed")
	}
	if tokens2 := judgeTokens(t, cfg); !equal(tokens1, tokens2) {
		t.Fatalf("judge tokens changed: %v -> %v", tokens1, tokens2)
	}
}

func judgeTokens(t *testing.T, cfg Config) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"judge-1", "judge-2"} {
		path := filepath.Join(cfg.JudgeTokenDir, name, "token")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", path, fi.Mode().Perm())
		}
		tok := strings.TrimSpace(string(b))
		j, err := cfg.Store.JudgeByName(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(j.TokenHash, tokens.Hash(tok)) {
			t.Fatalf("%s: stored hash is not the hash of the token file", name)
		}
		if bytes.Contains(j.TokenHash, []byte(tok)) {
			t.Fatalf("%s: token stored in clear", name)
		}
		out[name] = tok
	}
	return out
}

func equal[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestLoadRecovers(t *testing.T) {
	cfg, st := setup(t)
	ctx := context.Background()
	first, err := Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tokens := judgeTokens(t, cfg)

	// Logins file gone: the users exist, so their passwords are reset and
	// the file rewritten; the old passwords stop working.
	if err := os.Remove(cfg.LoginsFile); err != nil {
		t.Fatal(err)
	}
	// A judge token file tampered with: a new token is issued.
	if err := os.WriteFile(filepath.Join(cfg.JudgeTokenDir, "judge-1", "token"), []byte(strings.Repeat("a", 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The contest ended long ago: it is restarted.
	c, _ := st.ContestBySlug(ctx, ContestSlug)
	if err := st.SetContestWindow(ctx, c.ID, c.StartAt.Add(-48*time.Hour), c.StartAt.Add(-43*time.Hour)); err != nil {
		t.Fatal(err)
	}

	second, err := Load(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range second.Logins {
		if l.Password == first.Logins[i].Password {
			t.Errorf("%s kept its password though the logins file was gone", l.Username)
		}
		u, _ := st.UserByUsername(ctx, l.Username)
		if !account.CheckPassword(u.PasswordHash, l.Password) || account.CheckPassword(u.PasswordHash, first.Logins[i].Password) {
			t.Errorf("%s: new password not in effect", l.Username)
		}
	}
	if b, err := os.ReadFile(cfg.LoginsFile); err != nil || !strings.Contains(string(b), second.Logins[0].Password) {
		t.Fatalf("logins file not rewritten: %v", err)
	}
	now := judgeTokens(t, cfg)
	if now["judge-1"] == tokens["judge-1"] || now["judge-1"] == strings.Repeat("a", 64) {
		t.Errorf("judge-1 token not reissued")
	}
	if now["judge-2"] != tokens["judge-2"] {
		t.Errorf("judge-2 token changed")
	}
	c, _ = st.ContestBySlug(ctx, ContestSlug)
	if c.Phase(time.Now()) != "running" {
		t.Errorf("demo contest is %s after reload, want running", c.Phase(time.Now()))
	}
}

func TestDemoData(t *testing.T) {
	cfg, st := setup(t)
	ctx := context.Background()
	if _, err := Load(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		slug, checker, mode string
		cases, subtasks     int
	}{
		{"a-plus-b", store.CheckerDefault, store.ModeICPC, 10, 0},
		{"circle-area", store.CheckerFloat, store.ModeICPC, 8, 0},
		{"max-subarray", store.CheckerDefault, store.ModeIOI, 6, 2},
	} {
		p, err := st.ProblemBySlug(ctx, tc.slug)
		if err != nil {
			t.Fatal(err)
		}
		if p.Checker != tc.checker || p.Mode != tc.mode || p.Visibility != store.VisibilityPublic || !p.TestdataHash.Valid {
			t.Errorf("%s: %+v", tc.slug, p)
		}
		if tc.checker == store.CheckerFloat && p.FloatTolerance != 1e-6 {
			t.Errorf("%s: tolerance %g", tc.slug, p.FloatTolerance)
		}
		f, err := cfg.Blobs.Open(ctx, p.TestdataHash.String)
		if err != nil {
			t.Fatalf("%s: test data blob: %v", tc.slug, err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(f)
		f.Close()
		if blob.HashBytes(buf.Bytes()) != p.TestdataHash.String {
			t.Fatalf("%s: blob content does not match its hash", tc.slug)
		}
		m, err := testpkg.Read(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: package invalid: %v", tc.slug, err)
		}
		if len(m.Cases) != tc.cases || len(m.Subtasks) != tc.subtasks {
			t.Errorf("%s: %d cases %d subtasks", tc.slug, len(m.Cases), len(m.Subtasks))
		}
		// Case 1 (the statement's example) is a sample, the others hidden:
		// under full its checker message reaches the author, a hidden
		// case's never.
		for i, c := range m.Cases {
			if c.Sample != (i == 0) {
				t.Errorf("%s: case %d sample %v", tc.slug, c.Index, c.Sample)
			}
		}
		rule, err := st.TestdataRuleOf(ctx, p.ID, p.TestdataHash.String)
		if err != nil || !slices.Equal(rule.Samples, []int{1}) || len(rule.Subtasks) != tc.subtasks || rule.Mode != tc.mode {
			t.Errorf("%s: stored rule %+v %v", tc.slug, rule, err)
		}
		fb := protocol.Feedback{Policy: protocol.FeedbackFull, Samples: rule.Samples}
		sh := feedback.View(fb, feedback.Owner, feedback.Ended, feedback.Result{Status: protocol.VerdictWA, Cases: []protocol.CaseResult{
			{Case: 1, Verdict: protocol.VerdictWA, Message: "wrong answer on the example"},
			{Case: 2, Verdict: protocol.VerdictWA, Message: "hidden"}}})
		if sh.Cases[0].Message != "wrong answer on the example" || sh.Cases[1].Message != "" {
			t.Errorf("%s: under full the author sees %+v", tc.slug, sh.Cases)
		}
	}
	c, err := st.ContestBySlug(ctx, ContestSlug)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rule != store.ModeICPC || c.Phase(time.Now()) != "running" || c.EndAt.Sub(c.StartAt) != ContestLength {
		t.Errorf("contest %+v", c)
	}
	cps, _ := st.ContestProblems(ctx, c.ID)
	if len(cps) != 2 || cps[0].Label != "A" || cps[0].Slug != "a-plus-b" || cps[1].Label != "B" || cps[1].Slug != "circle-area" {
		t.Errorf("contest problems %+v", cps)
	}
	student, _ := st.UserByUsername(ctx, "student")
	if ok, _ := st.IsParticipant(ctx, c.ID, student.ID); !ok {
		t.Error("student not registered in the demo contest")
	}
}

func TestSamplesDeterministic(t *testing.T) {
	a, b := samples(), samples()
	for i := range a {
		pa, _, err := a[i].pkg().Build()
		if err != nil {
			t.Fatal(err)
		}
		pb, _, _ := b[i].pkg().Build()
		if !bytes.Equal(pa, pb) {
			t.Errorf("%s: test data differs between runs", a[i].problem.Slug)
		}
	}
	// Spot-check answers.
	ab := aPlusB()
	if string(ab.cases[0].In) != "1 2\n" || string(ab.cases[0].Ans) != "3\n" {
		t.Errorf("a-plus-b case 1: %q %q", ab.cases[0].In, ab.cases[0].Ans)
	}
	ms := maxSubarray()
	if string(ms.cases[0].Ans) != "6\n" || string(ms.cases[1].Ans) != "-7\n" {
		t.Errorf("max-subarray answers %q %q", ms.cases[0].Ans, ms.cases[1].Ans)
	}
}
