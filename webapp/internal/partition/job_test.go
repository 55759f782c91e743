package partition

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/verdict-oj/verdict/internal/testenv"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// migrated returns a pool on a fresh database with the webapp's schema.
func migrated(t *testing.T) *sql.DB {
	t.Helper()
	my := testenv.MySQL(t)
	db, err := store.Open(context.Background(), my.DSN, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := store.Migrate(context.Background(), my.DSN, store.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	return db.DB
}

// layout reads a table's partitions as "name<bound" (MAXVALUE as "max").
func layout(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ps, err := readPartitions(context.Background(), conn, table)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		if p.Max {
			out = append(out, p.Name+"<max")
		} else {
			out = append(out, fmt.Sprintf("%s<%d", p.Name, p.Bound))
		}
	}
	return strings.Join(out, " ")
}

// idsIn returns the ids a partition holds (exact: explicit partition
// selection, not the statistics).
func idsIn(t *testing.T, db *sql.DB, table, column, partition string) []int64 {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SELECT DISTINCT %s FROM %s PARTITION (%s) ORDER BY 1", column, table, partition))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func insertSubmission(t *testing.T, db *sql.DB, id int64) {
	t.Helper()
	if _, err := db.Exec("INSERT INTO submissions (id, user_id, problem_id, language, source) VALUES (?, 1, 1, 'c11', '')", id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO submission_cases (submission_id, case_index, verdict) VALUES (?, 1, 'AC'), (?, 2, 'AC')", id, id); err != nil {
		t.Fatal(err)
	}
}

// value reads one series of a counter or gauge vector.
func value(t *testing.T, c prometheus.Collector, label string) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 16)
	c.Collect(ch)
	close(ch)
	for m := range ch {
		var d dto.Metric
		if err := m.Write(&d); err != nil {
			t.Fatal(err)
		}
		if len(d.Label) == 1 && d.Label[0].GetValue() == label {
			if d.Counter != nil {
				return d.Counter.GetValue()
			}
			return d.Gauge.GetValue()
		}
	}
	return 0
}

const initial = "p0<1000000 p1<2000000 p2<3000000 p3<4000000 pmax<max"

// TestJobSplitsCatchAll: ids near the last bound make the job split pmax
// of both tables; rows stay in (or move to) the partition their id
// belongs to; a second run changes nothing; two concurrent runs add each
// partition once.
func TestJobSplitsCatchAll(t *testing.T) {
	db := migrated(t)
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	j, err := New(Config{DB: db, Size: 100, Headroom: 50, Metrics: reg, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	// Far from the end: nothing to do.
	insertSubmission(t, db, 3_999_900)
	rep, err := j.Once(ctx)
	if err != nil || rep.Busy || len(rep.Added) != 0 || rep.MaxID != 3_999_900 {
		t.Fatalf("far from the end: %+v, %v", rep, err)
	}
	for _, table := range []string{"submissions", "submission_cases"} {
		if got := layout(t, db, table); got != initial {
			t.Fatalf("%s changed: %s", table, got)
		}
	}

	// Within the headroom, and one row already past the bound (in pmax).
	insertSubmission(t, db, 3_999_960)
	insertSubmission(t, db, 4_000_020)
	if got := idsIn(t, db, "submissions", "id", "pmax"); fmt.Sprint(got) != "[4000020]" {
		t.Fatalf("pmax before the split holds %v", got)
	}
	rep, err = j.Once(ctx)
	if err != nil || rep.MaxID != 4_000_020 {
		t.Fatalf("split: %+v, %v", rep, err)
	}
	// 4_000_020 + 50 is below 4_000_100: one partition.
	want := "p0<1000000 p1<2000000 p2<3000000 p3<4000000 p40000<4000100 pmax<max"
	for table, column := range map[string]string{"submissions": "id", "submission_cases": "submission_id"} {
		if got := layout(t, db, table); got != want {
			t.Fatalf("%s after the split:\n got %s\nwant %s", table, got, want)
		}
		if len(rep.Added[table]) != 1 {
			t.Fatalf("report for %s: %+v", table, rep.Added)
		}
		for part, ids := range map[string]string{"p3": "[3999900 3999960]", "p40000": "[4000020]", "pmax": "[]"} {
			if got := fmt.Sprint(idsIn(t, db, table, column, part)); got != ids {
				t.Errorf("%s partition %s holds %s, want %s", table, part, got, ids)
			}
		}
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM submission_cases").Scan(&n); err != nil || n != 6 {
		t.Fatalf("cases after the split: %d, %v", n, err)
	}
	if got := value(t, j.added, "submissions"); got != 1 {
		t.Fatalf("partitions added metric = %v", got)
	}
	if got := value(t, j.headroom, "submissions"); got != 4_000_099-4_000_020 {
		t.Fatalf("headroom metric = %v", got)
	}

	// Again: nothing to do.
	rep, err = j.Once(ctx)
	if err != nil || len(rep.Added) != 0 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	if got := layout(t, db, "submissions"); got != want {
		t.Fatalf("second run changed the layout: %s", got)
	}

	// Two nodes at once (each its own Job, as on two web nodes): each
	// partition is added exactly once, and neither fails.
	insertSubmission(t, db, 4_000_120)
	other, err := New(Config{DB: db, Size: 100, Headroom: 50})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	reps := make([]Report, 2)
	errs := make([]error, 2)
	for i, job := range []*Job{j, other} {
		wg.Go(func() { reps[i], errs[i] = job.Once(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	added := len(reps[0].Added["submissions"]) + len(reps[1].Added["submissions"])
	if added != 1 {
		t.Fatalf("concurrent runs added %d partitions to submissions (%+v, %+v)", added, reps[0], reps[1])
	}
	want = strings.Replace(want, "pmax<max", "p40001<4000200 pmax<max", 1)
	for _, table := range []string{"submissions", "submission_cases"} {
		if got := layout(t, db, table); got != want {
			t.Fatalf("%s after concurrent runs: %s", table, got)
		}
	}
	if got := value(t, j.runs, "error"); got != 0 {
		t.Fatalf("error runs = %v", got)
	}
}

// TestJobBusy: while another session holds the lock, a run checks nothing.
func TestJobBusy(t *testing.T) {
	db := migrated(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "DO GET_LOCK("+lockName+", 5)"); err != nil {
		t.Fatal(err)
	}
	insertSubmission(t, db, 3_999_990)
	j, err := New(Config{DB: db, Size: 100, Headroom: 50})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := j.Once(ctx)
	if err != nil || !rep.Busy || len(rep.Added) != 0 {
		t.Fatalf("run under another's lock: %+v, %v", rep, err)
	}
	if got := layout(t, db, "submissions"); got != initial {
		t.Fatalf("a busy run changed the layout: %s", got)
	}
	if _, err := conn.ExecContext(ctx, "DO RELEASE_LOCK("+lockName+")"); err != nil {
		t.Fatal(err)
	}
	if rep, err := j.Once(ctx); err != nil || len(rep.Added["submissions"]) != 1 {
		t.Fatalf("run after the release: %+v, %v", rep, err)
	}
}

// TestJobAddsWithoutCatchAll: a table without a MAXVALUE partition gets
// ADD PARTITION, after which inserts beyond the old end succeed; tables
// that cannot be extended are reported while the others are handled.
func TestJobAddsWithoutCatchAll(t *testing.T) {
	db := migrated(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE ranged (id BIGINT NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100))",
		"CREATE TABLE plain (id BIGINT NOT NULL PRIMARY KEY)",
		"INSERT INTO ranged (id) VALUES (90)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("INSERT INTO ranged (id) VALUES (150)"); err == nil {
		t.Fatal("insert beyond the last partition succeeded before the job")
	}
	j, err := New(Config{DB: db, Tables: []Table{{Name: "plain", Column: "id"}, {Name: "ranged", Column: "id"}}, Size: 100, Headroom: 20})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := j.Once(ctx)
	if !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), "plain") {
		t.Fatalf("run with an unpartitioned table: %v", err)
	}
	if got := layout(t, db, "ranged"); got != "p0<100 p1<200" || len(rep.Added["ranged"]) != 1 {
		t.Fatalf("ranged after the run: %s (%+v)", got, rep)
	}
	if _, err := db.Exec("INSERT INTO ranged (id) VALUES (150)"); err != nil {
		t.Fatalf("insert into the new partition: %v", err)
	}
	if got := value(t, j.runs, "error"); got != 1 {
		t.Fatalf("error runs = %v", got)
	}
}

func TestNewRejects(t *testing.T) {
	if _, err := New(Config{}); !errors.Is(err, ErrConfig) {
		t.Fatalf("no DB: %v", err)
	}
	db := &sql.DB{}
	for _, tb := range []Table{{Name: "x; DROP TABLE users", Column: "id"}, {Name: "t", Column: "id`"}, {Name: "", Column: "id"}} {
		if _, err := New(Config{DB: db, Tables: []Table{tb}}); !errors.Is(err, ErrConfig) {
			t.Errorf("table %+v: %v", tb, err)
		}
	}
	j, err := New(Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(j.cfg.Tables, DefaultTables) || j.cfg.Size != DefaultSize || j.cfg.Headroom != DefaultHeadroom ||
		j.cfg.Interval != DefaultInterval || j.cfg.MaxAdd != DefaultMaxAdd || j.cfg.DDLLockTimeout != DefaultDDLLockTimeout {
		t.Fatalf("defaults: %+v", j.cfg)
	}
}
