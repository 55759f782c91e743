// Command buildinfo prints obs.Build(); TestLdflags links it with -X flags.
package main

import (
	"fmt"

	"github.com/verdict-oj/verdict/internal/obs"
)

func main() {
	b := obs.Build()
	fmt.Println(b.Version, b.Commit, b.BuildDate, b.GoVersion)
}
