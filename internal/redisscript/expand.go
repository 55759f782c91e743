package redisscript

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var placeholder = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

// Expand returns src with every $name replaced by vars[name] written as a
// Lua literal: a string single-quoted, an integer in decimal. Scripts
// name their hash and stream fields this way, so the values come from the
// Go constants their readers use and a rename on one side reaches the
// other. It panics — scripts are built at package init, so at the start
// of every test — when src names a variable vars lacks, or when a value
// is of another type or holds a quote, a backslash or a control
// character. vars may hold more than src names (one map for a package's
// scripts).
func Expand(src string, vars map[string]any) string {
	return placeholder.ReplaceAllStringFunc(src, func(tok string) string {
		name := tok[1:]
		v, ok := vars[name]
		if !ok {
			panic(fmt.Sprintf("redisscript: script names $%s, which is not given", name))
		}
		return literal(name, v)
	})
}

func literal(name string, v any) string {
	switch v := v.(type) {
	case string:
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\'' || r == '\\' }) {
			panic(fmt.Sprintf("redisscript: $%s = %q: no quotes, backslashes or control characters", name, v))
		}
		return "'" + v + "'"
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		panic(fmt.Sprintf("redisscript: $%s is a %T, want a string or an integer", name, v))
	}
}
