package scoreboard

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/verdict-oj/verdict/internal/testenv"
)

// BenchmarkViews reads a board of 3,000 contestants × 6 problems (every
// cell tried) whole, as each scoreboard publish does: "again" with the
// fields decoded at the last read kept (a publish under results, where a
// few cells changed), "fresh" with none (the first read of a node).
// Compare the two per op.
func BenchmarkViews(b *testing.B) {
	rd := testenv.Redis(b)
	ctx := context.Background()
	const users, problems = 3000, 6
	key := rd.Names.Scoreboard(1)
	fields := make([]any, 0, 2*users*(problems+1))
	for u := int64(1); u <= users; u++ {
		uj, _ := json.Marshal(User{ID: u, Username: "u" + itoa(u), DisplayName: "Contestant " + itoa(u)})
		fields = append(fields, fieldUser+itoa(u), string(uj))
		for p := int64(1); p <= problems; p++ {
			v := View{Live: CellState{Solved: (u+p)%3 == 0, Attempts: int(1 + u%4), TimeMin: int(u % 300), Penalty: int(u%300 + 20)}}
			v.Public = v.Live
			vj, _ := json.Marshal(v)
			fields = append(fields, fieldViews+cellName(CellKey{UserID: u, ProblemID: p}), string(vj))
		}
	}
	if err := rd.Client.HSet(ctx, key, fields...).Err(); err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, board *Board) {
		views, us, err := board.Views(ctx, 1)
		if err != nil || len(views) != users*problems || len(us) != users {
			b.Fatalf("%d views, %d users, %v", len(views), len(us), err)
		}
	}
	b.Run("again", func(b *testing.B) {
		board := New(rd.Client, rd.Names)
		read(b, board)
		for b.Loop() {
			read(b, board)
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			read(b, New(rd.Client, rd.Names))
		}
	})
}
