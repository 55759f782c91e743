package main

import (
	"os"

	"github.com/verdict-oj/verdict/webapp/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Getenv, os.Stderr))
}
