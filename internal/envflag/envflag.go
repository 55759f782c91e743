package envflag

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// ErrBadValue is wrapped by Apply when a variable does not parse.
var ErrBadValue = errors.New("bad environment value")

// Name returns the variable of flag name under prefix: Name("VERDICT_HUB",
// "redis-db") is "VERDICT_HUB_REDIS_DB".
func Name(prefix, flagName string) string {
	return prefix + "_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Apply sets every flag of fs that was not given on the command line from
// its variable, or else from the variable aliases[flag name]. Call it after
// fs.Parse. It reports every bad value, not just the first.
func Apply(fs *flag.FlagSet, prefix string, getenv func(string) string, aliases map[string]string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		name := Name(prefix, f.Name)
		v := getenv(name)
		if v == "" && aliases[f.Name] != "" {
			name = aliases[f.Name]
			v = getenv(name)
		}
		if v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s=%q: %w", ErrBadValue, name, v, err))
		}
	})
	return errors.Join(errs...)
}

// Usage returns the text to append to a flag's usage: " [VARIABLE]".
func Usage(prefix, flagName string) string { return " [" + Name(prefix, flagName) + "]" }
