package partition

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verdict-oj/verdict/internal/obs"
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("partition: invalid config")

// Table is a table partitioned BY RANGE (Column).
type Table struct {
	Name   string
	Column string
}

// DefaultTables are the schema's partitioned tables (migrations/0001).
var DefaultTables = []Table{{Name: "submissions", Column: "id"}, {Name: "submission_cases", Column: "submission_id"}}

// Defaults of Config.
const (
	// DefaultInterval: a node checks every ten minutes (the check is two
	// index lookups and a read of INFORMATION_SCHEMA).
	DefaultInterval = 10 * time.Minute
	// DefaultSize matches the schema's partitions: a million ids each.
	DefaultSize = 1_000_000
	// DefaultHeadroom keeps at least one empty partition's worth of ids
	// ahead of the highest id in use.
	DefaultHeadroom = 1_000_000
	// DefaultMaxAdd bounds the partitions one run adds to a table (a
	// misconfigured Size cannot create thousands at once).
	DefaultMaxAdd = 16
	// DefaultDDLLockTimeout bounds the ALTER's wait for the table's
	// metadata lock (lock_wait_timeout); inserts queue behind a waiting
	// ALTER, so it must be short. A run that times out retries next round.
	DefaultDDLLockTimeout = 5 * time.Second
)

// Config configures New. Zero values take the documented defaults.
type Config struct {
	DB *sql.DB // required
	// Tables to keep ahead. Default DefaultTables. All of them are
	// extended up to the highest id found in any of them, so tables
	// partitioned by the same id keep the same bounds.
	Tables []Table
	// Interval between two runs of Run. Default DefaultInterval.
	Interval time.Duration
	// Size is the number of ids per new partition. Default DefaultSize.
	Size int64
	// Headroom: when the highest id in use comes within Headroom ids of
	// the last bounded partition's bound, the next partitions are added.
	// Default DefaultHeadroom.
	Headroom int64
	// MaxAdd caps the partitions one run adds to one table. Default
	// DefaultMaxAdd.
	MaxAdd int
	// DDLLockTimeout bounds the ALTER's wait for its metadata lock.
	// Default DefaultDDLLockTimeout.
	DDLLockTimeout time.Duration
	Logger         *slog.Logger // default: discard
	// Metrics registers the job's metrics when set.
	Metrics prometheus.Registerer
}

// Job adds partitions before ids reach the catch-all.
type Job struct {
	cfg Config
	log *slog.Logger

	runs     *prometheus.CounterVec
	added    *prometheus.CounterVec
	headroom *prometheus.GaugeVec
}

// New checks cfg and registers the metrics. It does not touch MySQL.
func New(cfg Config) (*Job, error) {
	if cfg.DB == nil {
		return nil, fmt.Errorf("%w: DB is required", ErrConfig)
	}
	if cfg.Tables == nil {
		cfg.Tables = DefaultTables
	}
	for _, t := range cfg.Tables {
		if !validIdent(t.Name) || !validIdent(t.Column) {
			return nil, fmt.Errorf("%w: table %q column %q", ErrConfig, t.Name, t.Column)
		}
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Size <= 0 {
		cfg.Size = DefaultSize
	}
	if cfg.Headroom <= 0 {
		cfg.Headroom = DefaultHeadroom
	}
	if cfg.MaxAdd <= 0 {
		cfg.MaxAdd = DefaultMaxAdd
	}
	if cfg.DDLLockTimeout <= 0 {
		cfg.DDLLockTimeout = DefaultDDLLockTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	j := &Job{
		cfg: cfg,
		log: cfg.Logger.With(obs.Component("partitions")),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_webapp_partition_runs_total",
			Help: "Runs of the partition job by outcome: unchanged, added, busy (another node held the lock), error.",
		}, []string{"outcome"}),
		added: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_webapp_partitions_added_total",
			Help: "Partitions the partition job added, by table.",
		}, []string{"table"}),
		headroom: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "verdict_webapp_partition_headroom_ids",
			Help: "Ids left below the last bounded partition's bound after the last run, by table (alert when it nears 0: new rows would land in the catch-all partition).",
		}, []string{"table"}),
	}
	if cfg.Metrics != nil {
		for _, c := range []prometheus.Collector{j.runs, j.added, j.headroom} {
			if err := cfg.Metrics.Register(c); err != nil {
				return nil, fmt.Errorf("partition: register metrics: %w", err)
			}
		}
	}
	return j, nil
}

// Report says what one run did.
type Report struct {
	// Busy: another node held the lock; this run checked nothing.
	Busy bool
	// MaxID is the highest id found in the tables (0 when empty).
	MaxID int64
	// Added are the partitions added, by table (empty: nothing to do).
	Added map[string][]Partition
}

// Run runs the job now and then every Interval until ctx ends. Failures
// are logged and retried next round; it returns nil when ctx ends.
func (j *Job) Run(ctx context.Context) error {
	t := time.NewTicker(j.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := j.Once(ctx); err != nil && ctx.Err() == nil {
			j.log.Warn("partition check failed; retrying next round", "interval", j.cfg.Interval, obs.Err(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// lockName is per database, like the migration lock.
const lockName = `CONCAT('verdict.partitions.', LEFT(SHA2(DATABASE(), 256), 40))`

// Once runs the job one time: under the lock (not waiting for it), it
// reads every table's partitions and the highest id, and adds the
// partitions Plan asks for.
func (j *Job) Once(ctx context.Context) (rep Report, err error) {
	defer func() {
		outcome := "unchanged"
		switch {
		case err != nil:
			outcome = "error"
		case rep.Busy:
			outcome = "busy"
		case len(rep.Added) > 0:
			outcome = "added"
		}
		j.runs.WithLabelValues(outcome).Inc()
	}()
	conn, err := j.cfg.DB.Conn(ctx)
	if err != nil {
		return rep, fmt.Errorf("partition: connect: %w", err)
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+lockName+", 0)").Scan(&got); err != nil {
		return rep, fmt.Errorf("partition: get lock: %w", err)
	}
	if !got.Valid || got.Int64 != 1 {
		rep.Busy = true
		j.log.Debug("another node is checking the partitions")
		return rep, nil
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, rerr := conn.ExecContext(rctx, "DO RELEASE_LOCK("+lockName+")"); rerr != nil && err == nil {
			err = fmt.Errorf("partition: release lock: %w", rerr)
		}
	}()

	for _, t := range j.cfg.Tables {
		var m sql.NullInt64
		q := "SELECT MAX(" + quoteIdent(t.Column) + ") FROM " + quoteIdent(t.Name)
		if err := conn.QueryRowContext(ctx, q).Scan(&m); err != nil {
			return rep, fmt.Errorf("partition: max id of %s: %w", t.Name, err)
		}
		rep.MaxID = max(rep.MaxID, m.Int64)
	}
	var errs []error
	for _, t := range j.cfg.Tables {
		added, err := j.extend(ctx, conn, t.Name, rep.MaxID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(added) > 0 {
			if rep.Added == nil {
				rep.Added = map[string][]Partition{}
			}
			rep.Added[t.Name] = added
		}
	}
	return rep, errors.Join(errs...)
}

// extend adds the partitions one table needs.
func (j *Job) extend(ctx context.Context, conn *sql.Conn, table string, maxID int64) ([]Partition, error) {
	parts, err := readPartitions(ctx, conn, table)
	if err != nil {
		return nil, err
	}
	l, err := Plan(parts, maxID, j.cfg.Size, j.cfg.Headroom, j.cfg.MaxAdd)
	if err != nil {
		return nil, fmt.Errorf("partition: %s: %w", table, err)
	}
	log := j.log.With("table", table, "max_id", maxID, "last_bound", l.Last)
	if len(l.Add) == 0 {
		j.headroom.WithLabelValues(table).Set(float64(l.Last - 1 - maxID))
		log.Debug("partitions are ahead of the ids", "headroom", l.Last-1-maxID)
		return nil, nil
	}
	if l.Truncated {
		log.Warn("ids are far beyond the partitions; adding the most one run may", "max_add", j.cfg.MaxAdd)
	}
	if maxID >= l.Last {
		log.Warn("rows are in the catch-all partition; splitting it moves them", "catch_all", l.CatchAll)
	}
	stmt := l.Statement(table)
	secs := max(int(j.cfg.DDLLockTimeout.Round(time.Second)/time.Second), 1)
	if _, err := conn.ExecContext(ctx, "SET SESSION lock_wait_timeout = "+strconv.Itoa(secs)); err != nil {
		return nil, fmt.Errorf("partition: %s: set lock_wait_timeout: %w", table, err)
	}
	start := time.Now()
	_, err = conn.ExecContext(ctx, stmt)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "SET SESSION lock_wait_timeout = DEFAULT"); rerr != nil {
		log.Warn("cannot reset lock_wait_timeout", obs.Err(rerr))
	}
	if err != nil {
		return nil, fmt.Errorf("partition: %s: %s: %w", table, stmt, err)
	}
	newLast := l.Add[len(l.Add)-1].Bound
	j.added.WithLabelValues(table).Add(float64(len(l.Add)))
	j.headroom.WithLabelValues(table).Set(float64(newLast - 1 - maxID))
	names := make([]string, len(l.Add))
	for i, p := range l.Add {
		names[i] = p.Name
	}
	log.Info("partitions added", "partitions", strings.Join(names, ","), "new_last_bound", newLast,
		"duration", time.Since(start))
	return l.Add, nil
}

// readPartitions returns a table's partitions in ordinal order from
// INFORMATION_SCHEMA.PARTITIONS.
func readPartitions(ctx context.Context, conn *sql.Conn, table string) ([]Partition, error) {
	rows, err := conn.QueryContext(ctx, `SELECT PARTITION_NAME, PARTITION_METHOD, PARTITION_DESCRIPTION
		FROM INFORMATION_SCHEMA.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?
		ORDER BY PARTITION_ORDINAL_POSITION`, table)
	if err != nil {
		return nil, fmt.Errorf("partition: read partitions of %s: %w", table, err)
	}
	defer rows.Close()
	var out []Partition
	for rows.Next() {
		var name, method, desc sql.NullString
		if err := rows.Scan(&name, &method, &desc); err != nil {
			return nil, fmt.Errorf("partition: read partitions of %s: %w", table, err)
		}
		if !name.Valid {
			return nil, fmt.Errorf("partition: %s: %w: the table is not partitioned", table, ErrLayout)
		}
		if method.String != "RANGE" {
			return nil, fmt.Errorf("partition: %s: %w: partitioned by %s, not RANGE", table, ErrLayout, method.String)
		}
		if !validIdent(name.String) {
			return nil, fmt.Errorf("partition: %s: %w: partition name %q", table, ErrLayout, name.String)
		}
		p := Partition{Name: name.String}
		if strings.EqualFold(desc.String, "MAXVALUE") {
			p.Max = true
		} else if p.Bound, err = strconv.ParseInt(desc.String, 10, 64); err != nil {
			return nil, fmt.Errorf("partition: %s: %w: partition %s bound %q", table, ErrLayout, name.String, desc.String)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("partition: read partitions of %s: %w", table, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("partition: %s: %w: no such table", table, ErrLayout)
	}
	return out, nil
}
