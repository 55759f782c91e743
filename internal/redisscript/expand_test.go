package redisscript_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/verdict-oj/verdict/internal/redisscript"
)

func TestExpand(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		vars  map[string]any
		want  string
		panic string // substring of the panic, "" for none
	}{
		{"string quoted", `redis.call('HGET', KEYS[1], $field)`, map[string]any{"field": "attempt"},
			`redis.call('HGET', KEYS[1], 'attempt')`, ""},
		{"integers bare", `if n > $max then return $big end`, map[string]any{"max": 20, "big": int64(1) << 50},
			`if n > 20 then return 1125899906842624 end`, ""},
		{"repeated and adjacent", `$a .. $a .. $b_2`, map[string]any{"a": "x", "b_2": "c:"},
			`'x' .. 'x' .. 'c:'`, ""},
		{"longest name wins", `$ab $a`, map[string]any{"a": "1", "ab": "2"}, `'2' '1'`, ""},
		{"no placeholders", `return 1`, nil, `return 1`, ""},
		{"unknown name", `return $nope`, map[string]any{}, "", "$nope, which is not given"},
		{"more vars than named", `return $a`, map[string]any{"a": "x", "extra": "y"}, `return 'x'`, ""},
		{"quote in value", `return $v`, map[string]any{"v": "a'b"}, "", "no quotes"},
		{"backslash in value", `return $v`, map[string]any{"v": `a\b`}, "", "no quotes"},
		{"newline in value", `return $v`, map[string]any{"v": "a\nb"}, "", "control"},
		{"other type", `return $v`, map[string]any{"v": 1.5}, "", "float64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, msg := expand(tc.src, tc.vars)
			if tc.panic != "" {
				if !strings.Contains(msg, tc.panic) {
					t.Fatalf("Expand = %q, panic %q; want a panic containing %q", got, msg, tc.panic)
				}
				return
			}
			if msg != "" || got != tc.want {
				t.Fatalf("Expand = %q (panic %q), want %q", got, msg, tc.want)
			}
		})
	}
}

func expand(src string, vars map[string]any) (out, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return redisscript.Expand(src, vars), ""
}
