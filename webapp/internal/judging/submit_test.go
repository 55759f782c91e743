package judging

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/judgestate"
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/internal/testpkg"
	"github.com/verdict-oj/verdict/internal/tokens"
	"github.com/verdict-oj/verdict/webapp/internal/readcache"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// submitEnv is a web node's judging on a counted pool of one connection
// with a read cache, as a web node's, a live judge offering c11, and a
// student, a problem with test data, a running contest with the problem
// and one without it.
type submitEnv struct {
	s       *Service
	st      *store.Store
	rt      *testenv.RoundTrips
	rdb     *redis.Client
	rd      *testenv.RedisEnv
	user    store.User
	problem string
}

func newSubmitEnv(t *testing.T) *submitEnv {
	t.Helper()
	ctx := context.Background()
	my := testenv.MySQL(t)
	if _, err := store.Migrate(ctx, my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	dsn, err := store.FixDSN(my.DSN)
	if err != nil {
		t.Fatal(err)
	}
	db, rt := testenv.CountedDB(t, dsn)
	st := store.New(db)
	st.UseReadCache(readcache.New(readcache.Config{TTL: time.Hour}))
	rd := testenv.Redis(t)
	rdb := redis.NewClient(rd.Options())
	t.Cleanup(func() { rdb.Close() })
	if err := tokens.Replace(ctx, rdb, rd.Names, []tokens.Entry{{Name: "j1", Hash: tokens.Hash("tok")}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	js := judgestate.State{Hub: "hub-a", Cores: 2, MaxParallel: 2, Languages: []protocol.Language{{ID: "c11"}},
		LanguagesKnown: true, SeenAt: time.Now().Add(time.Hour)} // live all test long
	if err := rdb.HSet(ctx, rd.Names.Judge("j1"), js.Fields()...).Err(); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: st, Redis: rdb, Names: rd.Names, ContestCacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	e := &submitEnv{s: s, st: st, rt: rt, rdb: rdb, rd: rd, problem: "sum"}
	if e.user, err = st.CreateUser(ctx, store.User{Username: "alice", DisplayName: "Alice", Role: store.RoleStudent,
		PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	pid, err := st.CreateProblem(ctx, store.Problem{Slug: e.problem, Title: "Sum", Statement: "…", TimeLimitMs: 1000,
		MemoryLimitKB: 65536, Checker: store.CheckerDefault, Mode: store.ModeICPC, Visibility: store.VisibilityPublic,
		Languages: store.Languages{}})
	if err != nil {
		t.Fatal(err)
	}
	zip, m, err := testpkg.Build([]testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zip)
	mj, _ := json.Marshal(m)
	if err := st.AddTestdataVersion(ctx, store.TestdataVersion{ProblemID: pid, Hash: hex.EncodeToString(sum[:]),
		SizeBytes: int64(len(zip)), CaseCount: 1, Manifest: mj}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, slug := range []string{"with", "without"} {
		cid, err := st.CreateContest(ctx, store.Contest{Slug: slug, Title: slug, Rule: "icpc", StartAt: now.Add(-time.Hour),
			EndAt: now.Add(time.Hour), Registration: store.RegistrationOpen, Visible: true})
		if err != nil {
			t.Fatal(err)
		}
		if slug == "with" {
			if err := st.AddContestProblem(ctx, cid, pid, "A", 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	return e
}

// submit submits the problem in contest ("": practice) with key and
// counts the calls of Admit.
func (e *submitEnv) submit(contest, key string) (Submitted, int, error) {
	admits := 0
	res, err := e.s.Submit(context.Background(), &e.user, SubmitRequest{Problem: e.problem, Contest: contest,
		Language: "c11", Source: "int main(){}", Key: key,
		Admit: func(context.Context) error { admits++; return nil }})
	return res, admits, err
}

func TestSubmitRules(t *testing.T) {
	e := newSubmitEnv(t)
	ctx := context.Background()
	first, _, err := e.submit("with", "k-first")
	if err != nil || !first.Created {
		t.Fatalf("first submit: %+v %v", first, err)
	}
	tests := []struct {
		name    string
		contest string
		key     string
		before  func(t *testing.T)
		created bool
		same    bool // the first submission returned
		admits  int
		refusal Reason
		queued  bool // its task is in the queue after
	}{
		{name: "a new submission in the contest", contest: "with", key: "k-new", created: true, admits: 1, queued: true},
		{name: "practice", key: "k-practice", created: true, admits: 1, queued: true},
		{name: "a retry returns the first, admitted once", contest: "with", key: "k-first", same: true, queued: true},
		{name: "a retry under another contest returns the first all the same", contest: "without", key: "k-first",
			same: true, queued: true},
		{name: "a retry whose task was lost enqueues it", contest: "with", key: "k-first", same: true, queued: true,
			before: func(t *testing.T) {
				if err := e.rdb.Del(ctx, e.rd.Names.Task(first.Submission.ID)).Err(); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a problem not in the contest", contest: "without", key: "k-without", admits: 1, refusal: RefusedInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before(t)
			}
			res, admits, err := e.submit(tc.contest, tc.key)
			var ref *Refusal
			switch {
			case tc.refusal != 0:
				if !errors.As(err, &ref) || ref.Reason != tc.refusal || ref.Field != "problem" {
					t.Fatalf("got %v, want a refusal %d of the problem", err, tc.refusal)
				}
			case err != nil:
				t.Fatal(err)
			case res.Created != tc.created:
				t.Fatalf("created %v, want %v", res.Created, tc.created)
			case tc.same && res.Submission.ID != first.Submission.ID:
				t.Fatalf("submission %d, want the first, %d", res.Submission.ID, first.Submission.ID)
			}
			if admits != tc.admits {
				t.Errorf("admitted %d times, want %d", admits, tc.admits)
			}
			if err != nil {
				return
			}
			if want, err := e.st.SubmissionByID(ctx, res.Submission.ID); err != nil || !reflect.DeepEqual(want, res.Submission) {
				t.Errorf("returned\n  %+v\nthe row is\n  %+v (%v)", res.Submission, want, err)
			}
			if a, held, err := e.s.q.Attempt(ctx, res.Submission.ID); err != nil || held != tc.queued || (held && a != 1) {
				t.Errorf("task attempt %d held %v (%v), want held %v", a, held, err, tc.queued)
			}
		})
	}
}

// TestSubmitRoundTrips counts what a contestant's submit sends MySQL, once
// the node's caches hold the contest, the problem and the registration.
func TestSubmitRoundTrips(t *testing.T) {
	e := newSubmitEnv(t)
	for i := range 2 { // registers, then reads the registration once
		if res, _, err := e.submit("with", fmt.Sprint("warm", i)); err != nil || !res.Created {
			t.Fatalf("warm-up submit: %+v %v", res, err)
		}
	}
	measure := func(name, key string, created bool, max int64) {
		t.Helper()
		e.rt.Take()
		res, _, err := e.submit("with", key)
		n := e.rt.Take()
		if err != nil || res.Created != created {
			t.Fatalf("%s: %+v %v", name, res, err)
		}
		t.Logf("%s: %d round trips", name, n)
		if n > max {
			t.Errorf("%s: %d round trips, want at most %d", name, n, max)
		}
	}
	measure("a submit", "k1", true, 6)
	measure("its retry", "k1", false, 1)
}

// Languages is answered from what the node read within LanguagesTTL while
// a judge is live (every submit asks); a language no kept judge offers is
// read again before a submit is refused, and "no judge" is never kept.
func TestLanguagesKept(t *testing.T) {
	e := newSubmitEnv(t)
	ctx := context.Background()
	setJudge := func(langs ...string) {
		t.Helper()
		var ls []protocol.Language
		for _, l := range langs {
			ls = append(ls, protocol.Language{ID: l})
		}
		js := judgestate.State{Hub: "hub-a", Cores: 2, MaxParallel: 2, Languages: ls, LanguagesKnown: true, SeenAt: time.Now().Add(time.Hour)}
		if err := e.rdb.HSet(ctx, e.rd.Names.Judge("j1"), js.Fields()...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		t.Helper()
		langs, _, err := e.s.Languages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range langs {
			out = append(out, l.ID)
		}
		return out
	}
	if got := ids(); !slices.Equal(got, []string{"c11"}) {
		t.Fatalf("languages %v, want [c11]", got)
	}
	setJudge("c11", "py3")
	if got := ids(); !slices.Equal(got, []string{"c11"}) {
		t.Fatalf("languages %v within the TTL, want the kept [c11] (read Redis on every call?)", got)
	}
	// A submit in py3 finds it although the kept list lacks it.
	res, err := e.s.Submit(ctx, &e.user, SubmitRequest{Problem: e.problem, Language: "py3", Source: "print(1)", Key: "py"})
	if err != nil || !res.Created {
		t.Fatalf("py3 submit: %+v %v (refused on the kept list?)", res, err)
	}
	if got := ids(); !slices.Equal(got, []string{"c11", "py3"}) {
		t.Fatalf("languages %v after the fresh read, want [c11 py3]", got)
	}
	// No judge: not kept, so the judge that comes back is seen at once.
	if err := e.rdb.Del(ctx, e.rd.Names.Judge("j1")).Err(); err != nil {
		t.Fatal(err)
	}
	if _, live, err := e.s.languages(ctx, true); err != nil || live != 0 {
		t.Fatalf("live %d %v, want 0", live, err)
	}
	setJudge("c11")
	if _, live, err := e.s.Languages(ctx); err != nil || live != 1 {
		t.Fatalf("live %d %v after the judge came back, want 1 at once", live, err)
	}
}
