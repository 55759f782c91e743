package warmplan

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
)

var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

func samplePlan() Plan {
	return Plan{GeneratedAt: t0, Contests: []Contest{{
		ID: 3, Slug: "spring", Start: t0.Add(time.Hour), End: t0.Add(4 * time.Hour),
		Problems: []Problem{
			{ID: 7, TestData: protocol.TestData{Hash: "aa", URL: "https://oj.example/api/judge/testdata/aa"}},
			{ID: 8, TestData: protocol.TestData{Hash: "bb"}},
		},
	}}}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
	}{
		{"contest with problems", samplePlan()},
		{"empty", Plan{GeneratedAt: t0, Contests: []Contest{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode(%s): %v", b, err)
			}
			if !reflect.DeepEqual(got, tc.plan) {
				t.Errorf("round trip\n got %+v\nwant %+v", got, tc.plan)
			}
		})
	}
	// The wire names are the contract with the other side.
	b, _ := Encode(samplePlan())
	for _, f := range []string{`"generated_at"`, `"contests"`, `"slug":"spring"`, `"start"`, `"end"`, `"problems"`, `"test_data":{"hash":"aa","url":"https://`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("plan JSON %s lacks %s", b, f)
		}
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*Plan)
	}{
		{"no slug", func(p *Plan) { p.Contests[0].Slug = "" }},
		{"end before start", func(p *Plan) { p.Contests[0].End = p.Contests[0].Start }},
		{"problem without hash", func(p *Plan) { p.Contests[0].Problems[1].TestData.Hash = "" }},
		{"problem without id", func(p *Plan) { p.Contests[0].Problems[0].ID = 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := samplePlan()
			tc.mut(&p)
			if _, err := Encode(p); !errors.Is(err, ErrInvalid) {
				t.Errorf("Encode: %v, want ErrInvalid", err)
			}
		})
	}
	for _, b := range []string{`{`, `{"contests":[{"id":1,"slug":"x","start":"2025-01-01T00:00:00Z","end":"2024-01-01T00:00:00Z"}]}`} {
		if _, err := Decode([]byte(b)); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%s): %v, want ErrInvalid", b, err)
		}
	}
}

func TestWarming(t *testing.T) {
	c := samplePlan().Contests[0] // starts t0+1h, ends t0+4h
	tests := []struct {
		now  time.Time
		want bool
	}{
		{t0, false},
		{t0.Add(49 * time.Minute), false},
		{t0.Add(50 * time.Minute), true},
		{t0.Add(2 * time.Hour), true},
		{t0.Add(4 * time.Hour), false},
	}
	for _, tc := range tests {
		if got := c.Warming(tc.now, 10*time.Minute); got != tc.want {
			t.Errorf("Warming(%v) = %v, want %v", tc.now.Sub(t0), got, tc.want)
		}
	}
}

func TestStatusRoundTripAndMerge(t *testing.T) {
	a := ContestStatus{ID: 3, Slug: "spring", Start: t0.Add(time.Hour), End: t0.Add(4 * time.Hour), Warming: true, Warm: 2, Judges: 3}
	b := ContestStatus{ID: 4, Slug: "later", Start: t0.Add(30 * time.Minute), End: t0.Add(2 * time.Hour), Warm: 0, Judges: 3}
	ended := ContestStatus{ID: 5, Slug: "old", Start: t0.Add(-3 * time.Hour), End: t0.Add(-time.Hour), Warm: 1, Judges: 1}
	h1 := HubStatus{Hub: "h1", ExpiresAt: t0.Add(10 * time.Second), Contests: []ContestStatus{a, b, ended}}
	enc, err := EncodeStatus(h1)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeStatus(enc)
	if err != nil || !reflect.DeepEqual(back, h1) {
		t.Fatalf("status round trip: %+v, %v", back, err)
	}
	if _, err := DecodeStatus([]byte(`{"hub":"x","contests":[{"id":1,"warm":3,"judges":2}]}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("warm > judges decoded: %v", err)
	}
	a2 := a
	a2.Warm, a2.Judges, a2.Warming = 1, 1, false
	h2 := HubStatus{Hub: "h2", ExpiresAt: t0.Add(5 * time.Second), Contests: []ContestStatus{a2}}
	dead := HubStatus{Hub: "h3", ExpiresAt: t0.Add(-time.Second), Contests: []ContestStatus{a, b}}

	tests := []struct {
		name string
		hubs []HubStatus
		want []ContestStatus
	}{
		{"none", nil, []ContestStatus{}},
		{"one hub: by start, ended dropped", []HubStatus{h1}, []ContestStatus{b, a}},
		{"two hubs add up, expired ignored", []HubStatus{dead, h2, h1}, []ContestStatus{b, {ID: 3, Slug: "spring", Start: a.Start, End: a.End, Warming: true, Warm: 3, Judges: 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge(t0, tc.hubs)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
