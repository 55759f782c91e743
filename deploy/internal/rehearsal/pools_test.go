package rehearsal

import (
	"strings"
	"testing"
)

func TestMetricValues(t *testing.T) {
	text := `# HELP verdict_redis_pool_waits_total Commands that waited.
# TYPE verdict_redis_pool_waits_total counter
verdict_redis_pool_waits_total 1234
verdict_redis_pool_wait_seconds_total 56.5
go_sql_wait_count_total{db_name="verdict"} 7
go_sql_wait_count_total{db_name="verdict_results"} 9
go_sql_wait_duration_seconds_total{db_name="verdict"} 1.5e-01
verdict_redis_pool_size 128
broken line
no_value 
`
	v := metricValues(strings.NewReader(text))
	want := map[string]float64{
		"verdict_redis_pool_waits_total":                        1234,
		"verdict_redis_pool_wait_seconds_total":                 56.5,
		`go_sql_wait_count_total{db_name="verdict"}`:            7,
		`go_sql_wait_count_total{db_name="verdict_results"}`:    9,
		`go_sql_wait_duration_seconds_total{db_name="verdict"}`: 0.15,
		"verdict_redis_pool_size":                               128,
	}
	if len(v) != len(want) {
		t.Fatalf("got %v, want %v", v, want)
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}

	var b strings.Builder
	writePools(&b, &Report{Pools: []Pool{{Process: "web-1", RedisSize: 128, RedisWaits: 4, RedisWaitSec: 2, SQLWaits: 3, SQLWaitSec: 1},
		{Process: "hub", RedisSize: 64, BrowserWaits: 200, BrowserWaitSec: 3}, {Process: "hub-2", Err: "down"}}})
	for _, s := range []string{"| web-1 | 128 | 4 | 2.0 | 500.0 | 3 | 1.0 |", "| hub-2 | down |",
		"The hub's browsers' Redis reads (session reads, subscription snapshots) waited 200 times, 3.0 s in all (mean 15.0 ms)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, b.String())
		}
	}
}
