package scoreboard

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/verdict-oj/verdict/internal/redisscript"
	"github.com/verdict-oj/verdict/internal/testenv"
)

const benchUsers, benchProblems = 3000, 6

// benchBoard writes a board of benchUsers × benchProblems cells, every one
// tried, into the views hash key and, with among, each cell's entries and
// version into it too (the layout before the views had a hash of their
// own).
func benchBoard(b *testing.B, rdb *redis.Client, key string, among bool) {
	ctx := context.Background()
	fields := make([]any, 0, 8*benchUsers*(benchProblems+1))
	for u := int64(1); u <= benchUsers; u++ {
		uj, _ := json.Marshal(User{ID: u, Username: "u" + itoa(u), DisplayName: "Contestant " + itoa(u)})
		fields = append(fields, fieldUser+itoa(u), string(uj))
		for p := int64(1); p <= benchProblems; p++ {
			v := View{Live: CellState{Solved: (u+p)%3 == 0, Attempts: int(1 + u%4), TimeMin: int(u % 300), Penalty: int(u%300 + 20)}}
			v.Public = v.Live
			vj, _ := json.Marshal(v)
			cell := cellName(CellKey{UserID: u, ProblemID: p})
			fields = append(fields, fieldViews+cell, string(vj))
			if among {
				fields = append(fields, fieldEntries+cell, `[{"s":"`+itoa(u*10+p)+`","a":"1","t":"1764990000000","v":"WA","p":"0"},{"s":"`+itoa(u*10+p+1)+`","a":"1","t":"1764990060000","v":"AC","p":"100"}]`,
					fieldVersion+cell, "3")
			}
		}
	}
	if err := rdb.HSet(ctx, key, fields...).Err(); err != nil {
		b.Fatal(err)
	}
}

// redisUsec is the time Redis spent in command cmd since it started
// (INFO commandstats), in µs.
func redisUsec(b *testing.B, rdb *redis.Client, cmd string) float64 {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":"); ok {
			for f := range strings.SplitSeq(rest, ",") {
				if v, ok := strings.CutPrefix(f, "usec="); ok {
					n, _ := strconv.ParseFloat(v, 64)
					return n
				}
			}
		}
	}
	return 0
}

// BenchmarkViews reads a board of 3,000 contestants × 6 problems (every
// cell tried) as each scoreboard publish does: "changes" by the fields
// changed since the last read, 10 views rewritten between reads (a
// publish under results); "whole" the whole hash with the fields decoded
// at the last read kept (the read before 2026-12-06 evening, and every
// fullReadEvery now); "fresh" with none (the first read of a node).
// redis-µs/op is Redis's own time in the read's HSCANs and scripts (the
// 10 rewrites' own script runs included in "changes").
func BenchmarkViews(b *testing.B) {
	rd := testenv.Redis(b)
	ctx := context.Background()
	benchBoard(b, rd.Client, rd.Names.ScoreboardViews(1), false)
	read := func(b *testing.B, board *Board) {
		views, us, err := board.Views(ctx, 1)
		if err != nil || len(views) != benchUsers*benchProblems || len(us) != benchUsers {
			b.Fatalf("%d views, %d users, %v", len(views), len(us), err)
		}
	}
	keys := []string{rd.Names.Scoreboard(1), rd.Names.ScoreboardViews(1), rd.Names.ScoreboardChanges(1)}
	rewrite := redis.NewScript(redisscript.Expand(luaChanged+`
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], next_change(), ARGV[1])
return 1
`, luaNames))
	redisTime := func(b *testing.B) float64 {
		return redisUsec(b, rd.Client, "hscan") + redisUsec(b, rd.Client, "evalsha")
	}
	for _, kind := range []string{"changes", "whole", "fresh"} {
		b.Run(kind, func(b *testing.B) {
			board := New(rd.Client, rd.Names)
			if kind == "whole" {
				board.fullReadEvery = time.Nanosecond
			}
			read(b, board)
			before := redisTime(b)
			i := 0
			for b.Loop() {
				switch kind {
				case "fresh":
					board = New(rd.Client, rd.Names)
				case "changes":
					for range 10 {
						i++
						k := CellKey{UserID: int64(1 + i%benchUsers), ProblemID: int64(1 + i%benchProblems)}
						v := View{Live: CellState{Solved: i%2 == 0, Attempts: 1 + i%5}}
						vj, _ := json.Marshal(v)
						if err := rewrite.Run(ctx, rd.Client, keys, fieldViews+cellName(k), string(vj)).Err(); err != nil {
							b.Fatal(err)
						}
					}
				}
				read(b, board)
			}
			b.ReportMetric((redisTime(b)-before)/float64(b.N), "redis-µs/op")
		})
	}
}

// BenchmarkBoardScan is Redis's side of reading the same board's views
// and users: "apart", the views' hash scanned whole (now); "among", the
// views and users picked by pattern from among the cells' entries and
// versions in one hash (before 2026-12-06). redis-µs/op is what Redis
// spent; ns/op includes the client's decoding of the replies.
func BenchmarkBoardScan(b *testing.B) {
	rd := testenv.Redis(b)
	ctx := context.Background()
	for _, among := range []bool{false, true} {
		name := map[bool]string{false: "apart", true: "among"}[among]
		b.Run(name, func(b *testing.B) {
			key := rd.Names.ScoreboardViews(map[bool]int64{false: 100, true: 101}[among])
			benchBoard(b, rd.Client, key, among)
			match := ""
			if among {
				match = viewsAndUsers
			}
			before := redisUsec(b, rd.Client, "hscan")
			for b.Loop() {
				n := 0
				var cursor uint64
				for {
					kv, next, err := rd.Client.HScan(ctx, key, cursor, match, 1000).Result()
					if err != nil {
						b.Fatal(err)
					}
					n += len(kv) / 2
					if cursor = next; cursor == 0 {
						break
					}
				}
				if n < benchUsers*(benchProblems+1) {
					b.Fatalf("%d fields", n)
				}
			}
			b.ReportMetric((redisUsec(b, rd.Client, "hscan")-before)/float64(b.N), "redis-µs/op")
		})
	}
}
