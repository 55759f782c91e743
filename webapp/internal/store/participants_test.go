package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParticipants: adds in batches across the multi-row INSERT's limit,
// count what was new, list by username, and removal reports a user who
// was not registered.
func TestParticipants(t *testing.T) {
	s := migrated(t)
	ctx := context.Background()
	const n = 2*participantBatch + 17
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf("('u%05d', 'x')", i))
	}
	s.DB.MustExec("INSERT INTO users (username, password_hash) VALUES " + strings.Join(vals, ","))
	var ids []int64
	if err := s.DB.Select(&ids, "SELECT id FROM users ORDER BY id"); err != nil || len(ids) != n {
		t.Fatalf("%d users, %v", len(ids), err)
	}
	now := time.Now()
	cid, err := s.CreateContest(ctx, Contest{Slug: "c", Title: "C", Rule: ModeICPC, StartAt: now, EndAt: now.Add(time.Hour),
		Registration: RegistrationList, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddParticipant(ctx, cid, ids[5]); err != nil {
		t.Fatal(err)
	}
	added, err := s.AddParticipants(ctx, cid, ids)
	if err != nil || added != n-1 {
		t.Fatalf("AddParticipants = %d, %v; want %d", added, err, n-1)
	}
	if added, err := s.AddParticipants(ctx, cid, ids[:10]); err != nil || added != 0 {
		t.Fatalf("again = %d, %v", added, err)
	}
	list, err := s.ContestParticipants(ctx, cid)
	if err != nil || len(list) != n || list[0].Username != "u00000" || list[n-1].Username != fmt.Sprintf("u%05d", n-1) ||
		list[0].UserID != ids[0] || list[0].RegisteredAt.IsZero() {
		t.Fatalf("ContestParticipants: %d, %+v, %v", len(list), list[0], err)
	}
	set, err := s.ParticipantIDs(ctx, cid)
	if err != nil || len(set) != n || !set[ids[n-1]] {
		t.Fatalf("ParticipantIDs: %d, %v", len(set), err)
	}
	if err := s.RemoveParticipant(ctx, cid, ids[3]); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveParticipant(ctx, cid, ids[3]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second removal: %v", err)
	}
	if ok, _ := s.IsParticipant(ctx, cid, ids[3]); ok {
		t.Fatal("still a participant")
	}
	// An unknown user id violates the foreign key: the whole add fails.
	before := len(set) - 1
	if _, err := s.AddParticipants(ctx, cid, []int64{ids[3], 1 << 40}); err == nil {
		t.Fatal("adding an unknown user id succeeded")
	}
	if set, _ := s.ParticipantIDs(ctx, cid); len(set) != before {
		t.Fatalf("a failed add left %d participants, want %d", len(set), before)
	}
}
