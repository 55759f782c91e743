// Command hub is Verdict's scheduler and live channel: judges dial it at
// /judge, browsers at /ws. See docs/hub.md.
package main

import (
	"os"

	"github.com/verdict-oj/verdict/hub/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Getenv, os.Stderr))
}
