package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/verdict-oj/verdict/internal/localsvc"
	"github.com/verdict-oj/verdict/internal/testenv"
)

// WithServices starts one throwaway MariaDB and one Redis (in a temporary
// directory, on free loopback ports (localsvc.OnFreePort), tuned for speed over durability), runs
// argv with internal/testenv's variables pointing at them, stops them and
// returns argv's exit code. `make test` runs `go test` this way so that every
// test binary of the run shares the same two servers.
func WithServices(ctx context.Context, argv []string, out io.Writer) (int, error) {
	if len(argv) == 0 {
		return 2, errors.New("with-services: no command given")
	}
	sc, err := localsvc.NewScratch("verdict-test-services-")
	if err != nil {
		return 1, fmt.Errorf("with-services: %w", err)
	}
	defer sc.Release()
	dir := sc.Dir

	var db *localsvc.MariaDB
	mport, err := localsvc.OnFreePort(nil, func(port int) (err error) {
		db, err = localsvc.StartMariaDB(ctx, localsvc.MariaDBConfig{
			Dir: filepath.Join(dir, "mariadb"), Port: port, Fast: true, BufferPool: 256 << 20,
		})
		return err
	})
	if err != nil {
		return 1, fmt.Errorf("with-services: %w", err)
	}
	defer db.Stop()
	var rd *localsvc.Redis
	_, err = localsvc.OnFreePort(nil, func(port int) (err error) {
		rd, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{
			Dir: filepath.Join(dir, "redis"), Port: port, Databases: 1024, Nice: RedisNice,
		})
		return err
	})
	if err != nil {
		return 1, fmt.Errorf("with-services: %w", err)
	}
	defer rd.Stop()
	fmt.Fprintf(out, "with-services: MariaDB on 127.0.0.1:%d, Redis on %s (in %s)\n", mport, rd.Addr(), dir)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, out
	cmd.Env = append(os.Environ(),
		testenv.EnvMySQL+"="+db.RootDSN(""),
		testenv.EnvRedis+"="+rd.Addr(),
	)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("with-services: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGINT)
		err = <-done
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	default:
		return 1, fmt.Errorf("with-services: %w", err)
	}
}
