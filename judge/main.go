// Command judge is Verdict's judge. For now it offers the sandbox's
// command line (`judge sandbox run|info|bench`); the agent that dials the
// hub is added to the same binary.
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
