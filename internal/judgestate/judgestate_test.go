package judgestate

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

var seen = time.UnixMilli(1_700_000_000_123).UTC()

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]string
		want State
		err  error
	}{
		{"empty", map[string]string{}, State{}, ErrNoState},
		{"no seen", map[string]string{"hub": "h", "cores": "4"}, State{}, ErrNoState},
		{"bad seen", map[string]string{"seen_ms": "soon"}, State{}, ErrNoState},
		{"seen only", map[string]string{"seen_ms": "1700000000123"}, State{SeenAt: seen}, nil},
		{"full", map[string]string{"hub": "h1", "cores": "8", "running": "2", "queued": "1", "max_parallel": "4",
			"load1": "1.5", "mem_used_ratio": "0.25", "agent_version": "v1", "seen_ms": "1700000000123",
			"languages": `[{"id":"c17","version":"gcc 12"}]`},
			State{Hub: "h1", Cores: 8, Running: 2, Queued: 1, MaxParallel: 4, Load1: 1.5, MemUsedRatio: 0.25, AgentVersion: "v1",
				Languages: []protocol.Language{{ID: "c17", Version: "gcc 12"}}, LanguagesKnown: true, SeenAt: seen}, nil},
		{"no languages recorded", map[string]string{"seen_ms": "1700000000123", "languages": "[]"},
			State{Languages: []protocol.Language{}, LanguagesKnown: true, SeenAt: seen}, nil},
		{"bad languages", map[string]string{"seen_ms": "1700000000123", "cores": "2", "languages": "{"},
			State{Cores: 2, SeenAt: seen}, ErrMalformed},
		{"bad number", map[string]string{"seen_ms": "1700000000123", "cores": "many", "load1": "0.5"},
			State{Load1: 0.5, SeenAt: seen}, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.m)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Decode = %+v, %v; want %+v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// What the hub writes with Fields, the web nodes read back with Decode.
func TestRoundTrip(t *testing.T) {
	env := testenv.Redis(t)
	ctx := context.Background()
	for _, s := range []State{
		{Hub: "hub-1", Cores: 4, Running: 3, Queued: 2, MaxParallel: 4, Load1: 2.75, MemUsedRatio: 0.5, AgentVersion: "1.2.3",
			Languages: []protocol.Language{{ID: "cpp17", Version: "g++ 12.2.0"}, {ID: "py3", Version: "3.11"}}, LanguagesKnown: true, SeenAt: seen,
			Capabilities: []string{protocol.CapabilityInputValidation, "other"}},
		{Hub: "hub-2", SeenAt: seen, LanguagesKnown: true, Languages: []protocol.Language{}},
		{Hub: "hub-3", SeenAt: seen}, // languages not recorded
	} {
		k := env.Names.Judge("judge-1")
		env.Client.Del(ctx, k)
		if err := env.Client.HSet(ctx, k, s.Fields()...).Err(); err != nil {
			t.Fatal(err)
		}
		m, err := env.Client.HGetAll(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(m)
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("read back %+v, %v; want %+v", got, err, s)
		}
	}
	// Nil languages, known, are written as an empty list.
	s := State{SeenAt: seen, LanguagesKnown: true}
	if err := env.Client.HSet(ctx, env.Names.Judge("j2"), s.Fields()...).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(env.Client.HGetAll(ctx, env.Names.Judge("j2")).Val())
	if err != nil || !got.LanguagesKnown || len(got.Languages) != 0 {
		t.Fatalf("nil languages read back as %+v, %v", got, err)
	}
}
