package blob

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestPutOpen(t *testing.T) {
	ctx := context.Background()
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("hello, judge\n")
	h, size, err := d.Put(ctx, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h != HashBytes(data) || size != int64(len(data)) {
		t.Fatalf("Put = %s %d, want %s %d", h, size, HashBytes(data), len(data))
	}
	// Idempotent, also concurrently.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if h2, err := d.PutBytes(ctx, data); err != nil || h2 != h {
				t.Errorf("PutBytes again = %s, %v", h2, err)
			}
		})
	}
	wg.Wait()
	f, err := d.Open(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(got, data) {
		t.Fatalf("read %q", got)
	}
	if ok, err := d.Has(ctx, h); !ok || err != nil {
		t.Fatalf("Has = %v %v", ok, err)
	}
	missing := HashBytes([]byte("other"))
	if ok, err := d.Has(ctx, missing); ok || err != nil {
		t.Fatalf("Has(missing) = %v %v", ok, err)
	}
	if _, err := d.Open(ctx, missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open(missing) = %v", err)
	}
	for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("a", 63)} {
		if _, err := d.Open(ctx, bad); !errors.Is(err, ErrBadHash) {
			t.Errorf("Open(%q) = %v, want ErrBadHash", bad, err)
		}
	}
	// No temp files left behind.
	entries, _ := os.ReadDir(d.root)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".put-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestPutCancelled(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := d.Put(ctx, strings.NewReader("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a cancelled context = %v", err)
	}
}
