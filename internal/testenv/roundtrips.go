package testenv

import (
	"context"
	"database/sql"
	"net"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
)

// RoundTrips counts the times a pool's connections send MySQL a request
// and wait for its answer: what a query costs in latency, and under CPU
// saturation in waits for a core, whatever the statement. A prepared
// statement's PREPARE and EXECUTE are two; its CLOSE, which has no answer,
// goes out with the next request and is not one of its own.
type RoundTrips struct{ n atomic.Int64 }

// Take returns the round trips counted since the last Take (or the pool's
// opening, its connection handshakes included) and starts again from 0.
func (r *RoundTrips) Take() int64 { return r.n.Swap(0) }

// CountedDB opens a pool of one connection on dsn (a go-sql-driver DSN,
// used as given) whose round trips rt counts, and closes it at cleanup.
// One connection: what a call counts is that call's, and a statement the
// code under test keeps prepared stays prepared on it.
func CountedDB(t testing.TB, dsn string) (db *sqlx.DB, rt *RoundTrips) {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("testenv: parse dsn: %v", err)
	}
	rt = &RoundTrips{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countedConn{Conn: c, rt: rt}, nil
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatalf("testenv: mysql connector: %v", err)
	}
	db = sqlx.NewDb(sql.OpenDB(conn), "mysql")
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db, rt
}

// countedConn counts a round trip at each read that follows a write: the
// driver writes a request, then waits for and reads its answer (a
// connection's first read, the server's greeting, is one too). A write
// nothing answers is not. It is used by one goroutine at a time
// (database/sql's).
type countedConn struct {
	net.Conn
	rt      *RoundTrips
	reading bool // the last call was a Read
}

func (c *countedConn) Write(b []byte) (int, error) {
	c.reading = false
	return c.Conn.Write(b)
}

func (c *countedConn) Read(b []byte) (int, error) {
	if !c.reading {
		c.reading = true
		c.rt.n.Add(1)
	}
	return c.Conn.Read(b)
}
