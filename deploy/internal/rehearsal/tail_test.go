package rehearsal

import (
	"reflect"
	"testing"
	"time"
)

func TestOverheadTail(t *testing.T) {
	start := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	sample := func(due float64, parts ...int) overheadSample {
		s := overheadSample{due: at(due)}
		for i, p := range parts {
			s.parts[i] = ms(p)
			s.total += ms(p)
		}
		s.hasParts = len(parts) == 4
		return s
	}
	untimed := sample(12, 300) // over p99, parts not timed
	untimed.hasParts = false
	samples := []overheadSample{
		sample(-3, 100, 100, 100, 100), // before the start: its own window
		sample(1, 10, 10, 10, 10),      // at or under p99: not in the tail
		sample(2, 50, 50, 50, 50),
		sample(11, 20, 180, 10, 40),
		sample(15, 40, 100, 10, 110),
		untimed,
		sample(29.9, 1, 1, 1, 300),
	}
	cases := []struct {
		name  string
		n     int
		want  []TailWindow
		total int
	}{
		{"every window of the tail, most first", 10, []TailWindow{
			{At: at(10), N: 3, Of: 3, PartsN: 2, Parts: [4]time.Duration{ms(30), ms(140), ms(10), ms(75)}},
			{At: at(-10), N: 1, Of: 1, PartsN: 1, Parts: [4]time.Duration{ms(100), ms(100), ms(100), ms(100)}},
			{At: at(20), N: 1, Of: 1, PartsN: 1, Parts: [4]time.Duration{ms(1), ms(1), ms(1), ms(300)}},
		}, 5},
		{"the first n", 1, []TailWindow{
			{At: at(10), N: 3, Of: 3, PartsN: 2, Parts: [4]time.Duration{ms(30), ms(140), ms(10), ms(75)}},
		}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, total := overheadTail(samples, ms(200), start, tc.n)
			if total != tc.total || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("overheadTail = %+v, %d\nwant %+v, %d", got, total, tc.want, tc.total)
			}
		})
	}
	if got, total := overheadTail(nil, ms(200), start, 8); len(got) != 0 || total != 0 {
		t.Errorf("no samples: %+v, %d", got, total)
	}
}
