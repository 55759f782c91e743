package redisconn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisconn"
	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/testenv"
)

var labelScript = redisscript.Named("redisconn_test.label", redis.NewScript(`return 1`))

func TestCommandLabels(t *testing.T) {
	ctx := context.Background()
	unnamed := redis.NewScript(`return 2`)
	cmd := func(args ...any) redis.Cmder { return redis.NewCmd(ctx, args...) }
	for _, tc := range []struct {
		name string
		cmd  redis.Cmder
		want string
	}{
		{"a command in lower case", cmd("HGETALL", "k"), "hgetall"},
		{"a named script by hash", cmd("evalsha", labelScript.Hash(), 0), "script:redisconn_test.label"},
		{"a named script by source", cmd("EVAL", `return 1`, 0), "script:redisconn_test.label"},
		{"a read-only run of a named script", cmd("evalsha_ro", labelScript.Hash(), 0), "script:redisconn_test.label"},
		{"an unnamed script", cmd("evalsha", unnamed.Hash(), 0), "evalsha"},
		{"an evalsha without its hash", cmd("evalsha"), "evalsha"},
		{"an evalsha whose hash is not a string", cmd("evalsha", 42, 0), "evalsha"},
		{"a read that blocks", cmd("xreadgroup", "group", "g", "c", "count", 10, "block", 0, "streams", "s", ">"), "xreadgroup:block"},
		{"an XREAD that blocks, BLOCK in capitals", cmd("XREAD", "BLOCK", 100, "STREAMS", "s", "$"), "xread:block"},
		{"a read that does not block", cmd("xreadgroup", "group", "g", "c", "count", 10, "streams", "s", ">"), "xreadgroup"},
		{"a read of a stream named block", cmd("xread", "streams", "block", "0"), "xread"},
		{"no arguments", cmd(), ""},
	} {
		if got := redisconn.CommandLabel(tc.cmd); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		cmds []redis.Cmder
		want string
	}{
		{"a pipeline of one kind", []redis.Cmder{cmd("hgetall", "a"), cmd("hgetall", "b")}, "pipeline:hgetall"},
		{"sorted, distinct", []redis.Cmder{cmd("set", "a", 1), cmd("get", "a"), cmd("set", "b", 1)}, "pipeline:get+set"},
		{"a transaction", []redis.Cmder{cmd("multi"), cmd("incr", "a"), cmd("evalsha", labelScript.Hash(), 0), cmd("exec")}, "multi:incr+script:redisconn_test.label"},
		{"more than three", []redis.Cmder{cmd("a"), cmd("b"), cmd("c"), cmd("d"), cmd("e")}, "pipeline:a+b+c+..."},
		{"empty", nil, "pipeline:"},
	} {
		if got := redisconn.PipelineLabel(tc.cmds); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Instrument times a real client's commands, scripts, pipelines and
// transactions by label, its pool's wait included.
func TestInstrumentTimesCommands(t *testing.T) {
	env := testenv.Redis(t)
	o := redisconn.Options{Addrs: []string{env.Addr}, DB: env.DB, PoolSize: 1}
	c, err := o.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := prometheus.NewRegistry()
	if err := redisconn.Instrument(c, reg); err != nil {
		t.Fatal(err)
	}
	if err := redisconn.Instrument(c, reg); err == nil {
		t.Fatal("instrumented twice on one registry: no error")
	}
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := labelScript.Run(ctx, c, nil).Err(); err != nil { // NOSCRIPT, then EVAL
		t.Fatal(err)
	}
	if err := labelScript.Run(ctx, c, nil).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "k")
		p.Get(ctx, "k")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "n")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The one connection is held 300 ms by a blocking pop: the GET beside
	// it waits for it, and its time says so.
	held := make(chan error, 1)
	go func() { held <- c.BLPop(ctx, 300*time.Millisecond, "no-such-list").Err() }()
	time.Sleep(100 * time.Millisecond)
	if err := c.Get(ctx, "k").Err(); err != nil {
		t.Fatal(err)
	}
	<-held
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	hs, err := obs.ReadHistograms(rec.Body, obs.RedisCommandSeconds, "command")
	if err != nil {
		t.Fatal(err)
	}
	for label, want := range map[string]float64{
		"set": 1, "get": 1, "script:redisconn_test.label": 3, // EVALSHA, NOSCRIPT; EVAL; EVALSHA
		"pipeline:get": 1, "multi:incr": 1, "blpop": 1,
	} {
		if got := hs[label].Count; got != want {
			t.Errorf("%s: %v timed, want %v (all: %v)", label, got, want, hs)
		}
	}
	if s := hs["get"].Sum; s < 0.1 || s > 5 {
		t.Errorf("the GET behind the held connection took %v s, want about 0.2", s)
	}
}
