// Command judge is Verdict's judge: `judge agent` dials the hub and judges
// submissions in the sandbox (docs/judge.md); `judge sandbox run|info|bench`
// is the sandbox's own command line (docs/sandbox.md).
package main

import (
	"os"

	"github.com/verdict-oj/verdict/judge/internal/cli"
	"github.com/verdict-oj/verdict/judge/internal/sandbox"
)

func main() {
	// A re-executed container init never gets past this line.
	sandbox.MaybeInit()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
