package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/verdict-oj/verdict/internal/localsvc"
)

// Environment variables through which a runner shares services with every
// test binary of a `go test` run.
const (
	// EnvMySQL is a go-sql-driver DSN of a user allowed to create and drop
	// databases, without a database name, e.g. root@unix(/x/mysqld.sock)/.
	EnvMySQL = "VERDICT_TEST_MYSQL_DSN"
	// EnvRedis is host:port of a Redis server with many databases
	// (redis-server --databases 1024).
	EnvRedis = "VERDICT_TEST_REDIS_ADDR"
)

// ErrNoMain is reported when a test asks for a service in a package whose
// TestMain does not call Main.
var ErrNoMain = errors.New("testenv: the package's TestMain must call testenv.Main(m)")

var (
	mainCalled bool

	mu             sync.Mutex
	privateScratch *localsvc.Scratch // dir of privately started services, if any
	mysqlDSN       string
	mysqlErr       error
	mysqlOK        bool
	mariadb        *localsvc.MariaDB
	redisAdr       string
	redisErr       error
	redisOK        bool
	redisSrv       *localsvc.Redis
)

// Main runs the package's tests and then stops any service this test binary
// started. Call it from TestMain. When the tests passed, each check runs
// after that (e.g. leakcheck.Goroutines: the services are gone by then)
// and a check's error fails the binary.
func Main(m *testing.M, checks ...func() error) {
	mainCalled = true
	code := m.Run()
	stopPrivate()
	for _, check := range checks {
		if code != 0 {
			break
		}
		if err := check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func stopPrivate() {
	mu.Lock()
	defer mu.Unlock()
	if mariadb != nil {
		_ = mariadb.Stop()
	}
	if redisSrv != nil {
		_ = redisSrv.Stop()
	}
	if privateScratch != nil {
		privateScratch.Release()
	}
}

func privateDir() (string, error) {
	if privateScratch != nil {
		return privateScratch.Dir, nil
	}
	// On tmpfs (tests are I/O bound otherwise); directories that killed
	// runs left behind are removed on the way.
	sc, err := localsvc.NewScratch("verdict-testenv-")
	if err != nil {
		return "", fmt.Errorf("testenv: %w", err)
	}
	privateScratch = sc
	return sc.Dir, nil
}

// RandomName returns prefix followed by 12 random hex digits.
func RandomName(prefix string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return prefix + hex.EncodeToString(b[:])
}

// sharedMySQL returns the root DSN of the run's MySQL, starting a private
// server on first use when the runner gave none.
func sharedMySQL() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if mysqlOK || mysqlErr != nil {
		return mysqlDSN, mysqlErr
	}
	if dsn := os.Getenv(EnvMySQL); dsn != "" {
		mysqlDSN, mysqlErr = dsn, nil
		if _, err := mysql.ParseDSN(dsn); err != nil {
			mysqlErr = fmt.Errorf("testenv: %s=%q: %w", EnvMySQL, dsn, err)
		}
		mysqlOK = mysqlErr == nil
		return mysqlDSN, mysqlErr
	}
	if !mainCalled {
		return "", ErrNoMain
	}
	dir, err := privateDir()
	if err != nil {
		mysqlErr = err
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	_, mysqlErr = localsvc.OnFreePort(nil, func(port int) (err error) {
		mariadb, err = localsvc.StartMariaDB(ctx, localsvc.MariaDBConfig{
			Dir: filepath.Join(dir, "mariadb"), Port: port, Fast: true, BufferPool: 64 << 20,
		})
		return err
	})
	if mysqlErr != nil {
		mysqlErr = fmt.Errorf("testenv: starting a private MariaDB: %w", mysqlErr)
		return "", mysqlErr
	}
	mysqlDSN, mysqlOK = mariadb.RootDSN(""), true
	return mysqlDSN, nil
}

func sharedRedis() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if redisOK || redisErr != nil {
		return redisAdr, redisErr
	}
	if addr := os.Getenv(EnvRedis); addr != "" {
		redisAdr, redisOK = addr, true
		return addr, nil
	}
	if !mainCalled {
		return "", ErrNoMain
	}
	dir, err := privateDir()
	if err != nil {
		redisErr = err
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, redisErr = localsvc.OnFreePort(nil, func(port int) (err error) {
		redisSrv, err = localsvc.StartRedis(ctx, localsvc.RedisConfig{
			Dir: filepath.Join(dir, "redis"), Port: port, Databases: 1024,
		})
		return err
	})
	if redisErr != nil {
		redisErr = fmt.Errorf("testenv: starting a private Redis: %w", redisErr)
		return "", redisErr
	}
	redisAdr, redisOK = redisSrv.Addr(), true
	return redisAdr, nil
}
