package testenv

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// TestIsolation runs two tests in parallel that create the same table, write
// the same Redis key, publish on the same channel name, wait for each other
// and then read: each must see only its own data.
func TestIsolation(t *testing.T) {
	var wrote sync.WaitGroup
	wrote.Add(2)
	names := make(chan string, 2)
	t.Run("group", func(t *testing.T) {
		for _, who := range []string{"alice", "bob"} {
			t.Run(who, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				my := MySQL(t)
				rd := Redis(t)
				names <- my.Name

				my.DB.MustExec("CREATE TABLE items (id INT AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(16) NOT NULL)")
				my.DB.MustExec("INSERT INTO items (owner) VALUES (?), (?)", who, who)
				if err := rd.Client.Set(ctx, "shared", who, 0).Err(); err != nil {
					t.Fatal(err)
				}
				if err := rd.Client.RPush(ctx, "list", who).Err(); err != nil {
					t.Fatal(err)
				}
				sub := rd.Client.Subscribe(ctx, rd.Names.Events("contest", 1))
				defer sub.Close()
				if _, err := sub.Receive(ctx); err != nil {
					t.Fatal(err)
				}

				// Both have written before either reads.
				wrote.Done()
				wrote.Wait()

				if err := rd.Client.Publish(ctx, rd.Names.Events("contest", 1), who).Err(); err != nil {
					t.Fatal(err)
				}
				var owners []string
				if err := my.DB.Select(&owners, "SELECT owner FROM items ORDER BY id"); err != nil {
					t.Fatal(err)
				}
				if len(owners) != 2 || owners[0] != who || owners[1] != who {
					t.Errorf("table items holds %v, want only %s's two rows", owners, who)
				}
				if v, err := rd.Client.Get(ctx, "shared").Result(); err != nil || v != who {
					t.Errorf("key shared = %q, %v; want %q", v, err, who)
				}
				if l, err := rd.Client.LRange(ctx, "list", 0, -1).Result(); err != nil || len(l) != 1 || l[0] != who {
					t.Errorf("list = %v, %v; want [%s]", l, err, who)
				}
				msgCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				msg, err := sub.ReceiveMessage(msgCtx)
				if err != nil {
					t.Fatalf("receive own event: %v", err)
				}
				if msg.Payload != who {
					t.Errorf("received event %q on my channel, want %q", msg.Payload, who)
				}
				// Nothing else arrives: the other test's event went to its own channel.
				quiet, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel2()
				if m, err := sub.ReceiveMessage(quiet); err == nil {
					t.Errorf("received a foreign event %q", m.Payload)
				}
			})
		}
	})
	// The subtests have finished and cleaned up: their databases are gone.
	close(names)
	root := MySQLRootDSN(t)
	admin, err := openDSN(root, "")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for n := range names {
		var count int
		if err := admin.Get(&count, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", n); err != nil {
			t.Fatal(err)
		}
		if count != 0 {
			t.Errorf("database %s still exists after its test ended", n)
		}
	}
}

func TestRedisDatabasesDiffer(t *testing.T) {
	a, b := Redis(t), Redis(t)
	if a.DB == b.DB {
		t.Fatalf("two environments share database %d", a.DB)
	}
	if a.DB == 0 || b.DB == 0 {
		t.Fatal("database 0 is reserved for the allocator")
	}
	if a.Names.Prefix() == b.Names.Prefix() {
		t.Fatal("two environments share a name prefix")
	}
}

func TestBadSharedDSNFails(t *testing.T) {
	_, err := openDSN("root@unix(/nonexistent/mysqld.sock)/", "")
	if err == nil {
		t.Fatal("connecting to a missing server succeeded")
	}
	if !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("error %q does not say the server does not answer", err)
	}
	if _, err := withDB("not a dsn", "x"); err == nil {
		t.Error("a malformed DSN was accepted")
	}
}
