package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// MySQLEnv is one test's own database.
type MySQLEnv struct {
	// DB is connected to the test's database.
	DB *sqlx.DB
	// DSN connects to the test's database (parseTime and multi-statements
	// on), for code under test that opens its own pool.
	DSN string
	// Name is the database name, t_<random>.
	Name string
}

// MySQL creates a fresh database for this test and drops it at cleanup.
func MySQL(t testing.TB) *MySQLEnv {
	t.Helper()
	env, err := newMySQL(t)
	if err != nil {
		t.Fatalf("testenv: this test needs MySQL and cannot have it: %v", err)
	}
	return env
}

func newMySQL(t testing.TB) (*MySQLEnv, error) {
	root, err := sharedMySQL()
	if err != nil {
		return nil, err
	}
	admin, err := openDSN(root, "")
	if err != nil {
		return nil, err
	}
	name := RandomName("t_")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		admin.Close()
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	dsn, err := withDB(root, name)
	if err != nil {
		admin.Close()
		return nil, err
	}
	db, err := sqlx.Open("mysql", dsn)
	if err != nil {
		admin.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	db.SetMaxOpenConns(20)
	t.Cleanup(func() {
		db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("testenv: drop database %s: %v", name, err)
		}
		admin.Close()
	})
	return &MySQLEnv{DB: db, DSN: dsn, Name: name}, nil
}

// MySQLRootDSN returns the DSN of the run's MySQL administrative user,
// without a database, for tests that manage databases themselves.
func MySQLRootDSN(t testing.TB) string {
	t.Helper()
	dsn, err := sharedMySQL()
	if err != nil {
		t.Fatalf("testenv: this test needs MySQL and cannot have it: %v", err)
	}
	return dsn
}

func withDB(dsn, db string) (string, error) {
	c, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("parse dsn: %w", err)
	}
	c.DBName = db
	c.ParseTime = true
	c.MultiStatements = true
	return c.FormatDSN(), nil
}

func openDSN(dsn, db string) (*sqlx.DB, error) {
	d, err := withDB(dsn, db)
	if err != nil {
		return nil, err
	}
	conn, err := sqlx.Open("mysql", d)
	if err != nil {
		return nil, fmt.Errorf("open mysql: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.PingContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("mysql at %s does not answer: %w", d, err)
	}
	return conn, nil
}
