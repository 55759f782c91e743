package stack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build builds every component of the checkout at root that has a main
// package (webapp, hub, edge, judge) into bin, as `make build` does. The
// tests, the drills and the benchmarks use it to run a stack of the code
// they belong to.
func Build(root, bin string) error {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return fmt.Errorf("stack: build: %w", err)
	}
	for _, c := range []string{"webapp", "hub", "edge", "judge"} {
		if _, err := os.Stat(filepath.Join(root, c, "main.go")); err != nil {
			continue
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, c), "./"+c)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("stack: go build ./%s: %w\n%s", c, err, out)
		}
	}
	return nil
}
