package redisconn

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/obs"
	"github.com/verdict-oj/verdict/internal/redisscript"
)

// CommandBuckets are the bounds (s) of the commands' time histogram: a
// command answered over loopback takes well under a millisecond, so the
// buckets above 10 ms count waits (for a pooled connection, for a core,
// for a blocking read).
var CommandBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// Instrument registers c's pool metrics (PoolCollector) and the time of
// each of its commands (obs.RedisCommandSeconds, by command) on reg, and
// hooks c to time them. A command's time runs from the call to its reply
// read: its wait for a pooled connection, for a core and for Redis are all
// in it, which is what a caller waits. The label is the command's name,
// "script:NAME" for a script named by redisscript.Named (EVALSHA's hash
// says nothing), and for a pipeline "pipeline:" or "multi:" with its
// commands' distinct labels. Labels come from the code's call sites, not
// from data: their number is bounded. A read sent with BLOCK counts its
// block, and its label ends in BlockSuffix.
func Instrument(c redis.UniversalClient, reg prometheus.Registerer) error {
	if err := reg.Register(PoolCollector(c)); err != nil {
		return fmt.Errorf("redisconn: register the pool's metrics: %w", err)
	}
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    obs.RedisCommandSeconds,
		Help:    "Time of this process's Redis commands from the call to the reply read (the waits for a pooled connection and for a core included), by command (script:NAME for a named script; pipeline: or multi: with the commands in it).",
		Buckets: CommandBuckets,
	}, []string{"command"})
	if err := reg.Register(h); err != nil {
		return fmt.Errorf("redisconn: register the commands' times: %w", err)
	}
	c.AddHook(commandTimer{h})
	return nil
}

// commandTimer is the go-redis hook that times commands and pipelines.
type commandTimer struct{ h *prometheus.HistogramVec }

func (commandTimer) DialHook(next redis.DialHook) redis.DialHook { return next }

func (t commandTimer) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		t.h.WithLabelValues(CommandLabel(cmd)).Observe(time.Since(start).Seconds())
		return err
	}
}

func (t commandTimer) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		t.h.WithLabelValues(PipelineLabel(cmds)).Observe(time.Since(start).Seconds())
		return err
	}
}

// CommandLabel is cmd's label in the commands' histogram: its name in
// lower case, "script:NAME" for EVAL or EVALSHA of a script
// redisscript.Named named, or "xreadgroup:block" (BlockSuffix) for an
// XREAD or XREADGROUP sent with BLOCK.
func CommandLabel(cmd redis.Cmder) string {
	name := cmd.Name()
	switch name {
	case "evalsha", "evalsha_ro", "eval", "eval_ro":
		args := cmd.Args()
		if len(args) < 2 {
			return name
		}
		s, ok := args[1].(string)
		if !ok {
			return name
		}
		if name == "eval" || name == "eval_ro" {
			sum := sha1.Sum([]byte(s))
			s = hex.EncodeToString(sum[:])
		}
		if n := redisscript.NameOf(s); n != "" {
			return "script:" + n
		}
	case "xread", "xreadgroup":
		// Its time is mostly its block, not a wait: said in the label
		// (BlockSuffix), so that it is not read as one. The options come
		// before STREAMS; the streams' names and IDs after it.
		for _, a := range cmd.Args()[1:] {
			s, _ := a.(string)
			if strings.EqualFold(s, "streams") {
				break
			}
			if strings.EqualFold(s, "block") {
				return name + BlockSuffix
			}
		}
	}
	return name
}

// BlockSuffix ends the label of a read sent with BLOCK ("xreadgroup:block"):
// its time counts the block, the server's wait for data to arrive.
const BlockSuffix = ":block"

// maxPipelineLabels is how many distinct commands a pipeline's label names.
const maxPipelineLabels = 3

// PipelineLabel is the label of a pipeline: "multi:" for a transaction
// (MULTI … EXEC, which it leaves out), "pipeline:" otherwise, then the
// distinct labels of its commands, sorted and joined by "+", the first
// maxPipelineLabels of them and "+..." for more.
func PipelineLabel(cmds []redis.Cmder) string {
	kind := "pipeline:"
	var names []string
	for _, c := range cmds {
		l := CommandLabel(c)
		if l == "multi" || l == "exec" {
			kind = "multi:"
			continue
		}
		if !slices.Contains(names, l) {
			names = append(names, l)
		}
	}
	slices.Sort(names)
	more := ""
	if len(names) > maxPipelineLabels {
		names, more = names[:maxPipelineLabels], "+..."
	}
	return kind + strings.Join(names, "+") + more
}
