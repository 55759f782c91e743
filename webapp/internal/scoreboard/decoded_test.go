package scoreboard

import (
	"context"
	"reflect"
	"testing"

	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestDecodedBoard(t *testing.T) {
	var d decodedBoards
	b := d.board(1)
	defer b.mu.Unlock()
	steps := []struct {
		name, field, raw string
		view             View
		user             User
		bad              bool
		decodes          int // after the step
	}{
		{name: "first read decodes", field: "v:1:1", raw: `{"l":{"s":true,"a":1},"p":{"q":1}}`,
			view: View{Live: CellState{Solved: true, Attempts: 1}, Public: CellState{Pending: 1}}, decodes: 1},
		{name: "the same bytes are not decoded again", field: "v:1:1", raw: `{"l":{"s":true,"a":1},"p":{"q":1}}`,
			view: View{Live: CellState{Solved: true, Attempts: 1}, Public: CellState{Pending: 1}}, decodes: 1},
		{name: "changed bytes are", field: "v:1:1", raw: `{"l":{"a":2},"p":{"a":2}}`,
			view: View{Live: CellState{Attempts: 2}, Public: CellState{Attempts: 2}}, decodes: 2},
		{name: "another cell", field: "v:2:1", raw: `{"l":{"a":2},"p":{"a":2}}`,
			view: View{Live: CellState{Attempts: 2}, Public: CellState{Attempts: 2}}, decodes: 3},
		{name: "bad bytes are an error", field: "v:1:1", raw: `{"l":`, bad: true, decodes: 4},
		{name: "and are not kept", field: "v:1:1", raw: `{"l":`, bad: true, decodes: 5},
		{name: "a user", field: "u:7", raw: `{"id":7,"n":"ann","d":"Ann"}`, user: User{ID: 7, Username: "ann", DisplayName: "Ann"}, decodes: 6},
		{name: "the same user", field: "u:7", raw: `{"id":7,"n":"ann","d":"Ann"}`, user: User{ID: 7, Username: "ann", DisplayName: "Ann"}, decodes: 6},
		{name: "renamed", field: "u:7", raw: `{"id":7,"n":"ann","d":"Anne"}`, user: User{ID: 7, Username: "ann", DisplayName: "Anne"}, decodes: 7},
		{name: "a bad user", field: "u:8", raw: `[]`, bad: true, decodes: 8},
	}
	for _, s := range steps {
		var err error
		var v View
		var u User
		if s.field[0] == 'u' {
			u, err = b.user(s.field, s.raw)
		} else {
			v, err = b.view(s.field, s.raw)
		}
		if (err != nil) != s.bad || v != s.view || u != s.user || b.decodes != s.decodes {
			t.Errorf("%s: view %+v user %+v err %v, %d decodes; want view %+v user %+v bad %v, %d decodes",
				s.name, v, u, err, b.decodes, s.view, s.user, s.bad, s.decodes)
		}
	}
}

// At most maxDecodedBoards contests are kept, the least recently read
// dropped first.
func TestDecodedBoardsBound(t *testing.T) {
	var d decodedBoards
	read := func(id int64) *decodedBoard {
		b := d.board(id)
		b.mu.Unlock()
		return b
	}
	first := read(1)
	for id := int64(2); id <= maxDecodedBoards; id++ {
		read(id)
	}
	if again := read(1); again != first { // read again: now the most recent
		t.Fatal("contest 1 was not kept")
	}
	read(maxDecodedBoards + 1) // drops contest 2, the least recently read
	if len(d.boards) != maxDecodedBoards {
		t.Fatalf("%d boards kept, want %d", len(d.boards), maxDecodedBoards)
	}
	if _, ok := d.boards[2]; ok {
		t.Error("contest 2 (least recently read) kept")
	}
	if d.boards[1] != first {
		t.Error("contest 1 (read again) dropped")
	}
}

// A board read again after results changed some cells (and a user's
// name) reads what a board that never read it does: nothing it decoded
// before is served once its bytes changed.
func TestViewsDecodedAgainAfterChanges(t *testing.T) {
	rd := testenv.Redis(t)
	ctx := context.Background()
	b := New(rd.Client, rd.Names)
	c := Contest{ID: 3, Params: Params{Rule: RuleICPC, Start: t0, FreezeAt: at(240)}}
	user := func(id int64, name string) User { return User{ID: id, Username: "u" + itoa(id), DisplayName: name} }
	apply := func(u User, problem, sub int64, attempt int, min int, verdict string) {
		t.Helper()
		if _, err := b.Apply(ctx, c, u, problem, Entry{SubmissionID: sub, Attempt: attempt, At: at(min), Verdict: verdict}); err != nil {
			t.Fatal(err)
		}
	}
	for id := int64(1); id <= 40; id++ {
		apply(user(id, "User"), 1+id%3, id, 1, int(id), "WA")
	}
	check := func(when string, decodes int) {
		t.Helper()
		got, gotUsers, err := b.Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, wantUsers, err := New(rd.Client, rd.Names).Views(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotUsers, wantUsers) {
			t.Fatalf("%s: the board read again differs from a fresh read:\n%v %v\n%v %v", when, got, gotUsers, want, wantUsers)
		}
		if n := b.decoded.boards[c.ID].decodes; n != decodes {
			t.Errorf("%s: %d fields decoded in all, want %d", when, n, decodes)
		}
	}
	check("first read", 80) // 40 cells, 40 users
	check("unchanged", 80)
	apply(user(5, "User"), 1+5%3, 5, 2, 5, "AC")     // rejudged: accepted
	apply(user(6, "User"), 1+6%3, 100, 1, 250, "AC") // frozen
	apply(user(7, "Renamed"), 1+7%3, 101, 1, 7, "")  // pending, a new name
	check("three cells and a user changed", 84)
	if got, _, _ := b.Views(ctx, c.ID); !got[CellKey{UserID: 5, ProblemID: 3}].Live.Solved {
		t.Error("user 5's rejudged AC is not on the board read again")
	}
}
