package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// putHashes records the x-amz-content-sha256 of every PUT, by path.
type putHashes struct {
	mu sync.Mutex
	m  map[string]string
}

func (p *putHashes) get(path string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[path]
}

// fakeS3 serves the S3 wire protocol on loopback (gofakes3 with its
// in-memory backend) with one bucket, and returns a config for it.
func fakeS3(t *testing.T, bucket string) (S3Config, *s3mem.Backend) {
	cfg, backend, _ := fakeS3Recorded(t, bucket)
	return cfg, backend
}

func fakeS3Recorded(t *testing.T, bucket string) (S3Config, *s3mem.Backend, *putHashes) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	h := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	puts := &putHashes{m: map[string]string{}}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			puts.mu.Lock()
			puts.m[r.URL.Path] = r.Header.Get("X-Amz-Content-Sha256")
			puts.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // gofakes3 writes some headers twice
	ts.Start()
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	return S3Config{Endpoint: u.Host, Bucket: bucket, Prefix: "verdict/", Insecure: true, PathStyle: true,
		AccessKey: "test-access", SecretKey: "test-secret", TempDir: t.TempDir()}, backend, puts
}

func newS3(t *testing.T) (*S3, *s3mem.Backend) {
	t.Helper()
	cfg, backend := fakeS3(t, "testdata")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := NewS3(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, backend
}

// TestContract runs the same checks against every Store.
func TestContract(t *testing.T) {
	stores := map[string]func(t *testing.T) Store{
		"dir": func(t *testing.T) Store {
			d, err := NewDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		"s3": func(t *testing.T) Store { s, _ := newS3(t); return s },
	}
	for name, mk := range stores {
		t.Run(name, func(t *testing.T) { contract(t, mk(t)) })
	}
}

func contract(t *testing.T, s Store) {
	ctx := context.Background()
	read := func(h string) (*Object, []byte) {
		t.Helper()
		o, err := s.Open(ctx, h)
		if err != nil {
			t.Fatalf("Open(%s): %v", h, err)
		}
		defer o.Close()
		b, err := io.ReadAll(o)
		if err != nil {
			t.Fatal(err)
		}
		return o, b
	}

	t.Run("put and open", func(t *testing.T) {
		data := []byte("hello, judge\n")
		h, size, err := s.Put(ctx, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if h != HashBytes(data) || size != int64(len(data)) {
			t.Fatalf("Put = %s %d, want %s %d", h, size, HashBytes(data), len(data))
		}
		o, got := read(h)
		if !bytes.Equal(got, data) || o.Size != int64(len(data)) || o.ModTime.IsZero() {
			t.Fatalf("read %q, size %d, mod time %v", got, o.Size, o.ModTime)
		}
		if ok, err := s.Has(ctx, h); !ok || err != nil {
			t.Fatalf("Has = %v %v", ok, err)
		}
	})

	t.Run("idempotent and concurrent", func(t *testing.T) {
		data := []byte("the same bytes, many times")
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if h, err := s.PutBytes(ctx, data); err != nil || h != HashBytes(data) {
					t.Errorf("PutBytes = %s, %v", h, err)
				}
			})
		}
		wg.Wait()
		if _, got := read(HashBytes(data)); !bytes.Equal(got, data) {
			t.Fatalf("read %q", got)
		}
	})

	t.Run("empty blob", func(t *testing.T) {
		h, size, err := s.Put(ctx, strings.NewReader(""))
		if err != nil || size != 0 || h != HashBytes(nil) {
			t.Fatalf("Put(empty) = %s %d %v", h, size, err)
		}
		if o, got := read(h); len(got) != 0 || o.Size != 0 {
			t.Fatalf("empty blob read %d bytes, size %d", len(got), o.Size)
		}
	})

	t.Run("large blob, seek and ranges", func(t *testing.T) {
		data := make([]byte, 3<<20+17)
		_, _ = rand.Read(data)
		h, err := s.PutBytes(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := read(h); !bytes.Equal(got, data) {
			t.Fatalf("large blob differs (%d bytes read)", len(got))
		}
		o, err := s.Open(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if n, err := o.Seek(1<<20, io.SeekStart); err != nil || n != 1<<20 {
			t.Fatalf("Seek = %d, %v", n, err)
		}
		part := make([]byte, 100)
		if _, err := io.ReadFull(o, part); err != nil || !bytes.Equal(part, data[1<<20:1<<20+100]) {
			t.Fatalf("read after Seek: %v", err)
		}
		// What the judge download endpoint does: http.ServeContent with a
		// Range header.
		req := httptest.NewRequest("GET", "/x", nil)
		req.Header.Set("Range", "bytes=5-9")
		rec := httptest.NewRecorder()
		if _, err := o.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		http.ServeContent(rec, req, "x.zip", o.ModTime, o)
		if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), data[5:10]) {
			t.Fatalf("range served %d %x", rec.Code, rec.Body.Bytes())
		}
	})

	t.Run("missing and malformed", func(t *testing.T) {
		missing := HashBytes([]byte("never stored"))
		if ok, err := s.Has(ctx, missing); ok || err != nil {
			t.Fatalf("Has(missing) = %v %v", ok, err)
		}
		if _, err := s.Open(ctx, missing); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Open(missing) = %v", err)
		}
		for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("a", 63), strings.Repeat("g", 64)} {
			if _, err := s.Open(ctx, bad); !errors.Is(err, ErrBadHash) {
				t.Errorf("Open(%q) = %v, want ErrBadHash", bad, err)
			}
			if _, err := s.Has(ctx, bad); !errors.Is(err, ErrBadHash) {
				t.Errorf("Has(%q) = %v, want ErrBadHash", bad, err)
			}
		}
	})

	t.Run("cancelled put stores nothing", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		data := []byte("cancelled")
		if _, _, err := s.Put(cctx, bytes.NewReader(data)); !errors.Is(err, context.Canceled) {
			t.Fatalf("Put with a cancelled context = %v", err)
		}
		if ok, err := s.Has(ctx, HashBytes(data)); ok || err != nil {
			t.Fatalf("a cancelled put left a blob: %v %v", ok, err)
		}
	})

	t.Run("failing reader stores nothing", func(t *testing.T) {
		boom := errors.New("disk on fire")
		r := io.MultiReader(strings.NewReader("partial"), errReader{boom})
		if _, _, err := s.Put(ctx, r); !errors.Is(err, boom) {
			t.Fatalf("Put = %v", err)
		}
		if ok, _ := s.Has(ctx, HashBytes([]byte("partial"))); ok {
			t.Fatal("a failed put left a partial blob")
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestS3Layout: objects are <prefix>sha256/<hash> in the bucket, PUT in
// one request signed with the blob's SHA-256 (the store checks it), and a
// blob deleted behind the store's back is not found.
func TestS3Layout(t *testing.T) {
	cfg, backend, puts := fakeS3Recorded(t, "testdata")
	ctx := context.Background()
	s, err := NewS3(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("layout")
	h, err := s.PutBytes(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := backend.GetObject("testdata", "verdict/sha256/"+h, nil)
	if err != nil {
		t.Fatalf("object not at verdict/sha256/<hash>: %v", err)
	}
	got, _ := io.ReadAll(obj.Contents)
	obj.Contents.Close()
	if !bytes.Equal(got, data) || s.Key(h) != "verdict/sha256/"+h || s.Bucket() != "testdata" {
		t.Fatalf("object holds %q, key %s", got, s.Key(h))
	}
	if got := puts.get("/testdata/verdict/sha256/" + h); got != h {
		t.Fatalf("PUT signed with x-amz-content-sha256 %q, want the blob's hash", got)
	}
	// Storing it again does not upload it again.
	puts.mu.Lock()
	clear(puts.m)
	puts.mu.Unlock()
	if _, err := s.PutBytes(ctx, data); err != nil || puts.get("/testdata/verdict/sha256/"+h) != "" {
		t.Fatalf("second put: %v, uploaded again: %v", err, puts.get("/testdata/verdict/sha256/"+h) != "")
	}
	if _, err := backend.DeleteObject("testdata", s.Key(h)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, h); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open after the object was deleted: %v", err)
	}
}

func TestNewS3Fails(t *testing.T) {
	cfg, _ := fakeS3(t, "present")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	missing := cfg
	missing.Bucket = "absent"
	if _, err := NewS3(ctx, missing); !errors.Is(err, ErrS3Config) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
	// Nothing listens there: a prompt error, not a hang.
	ln := httptest.NewServer(http.NotFoundHandler())
	addr := ln.Listener.Addr().String()
	ln.Close()
	down := cfg
	down.Endpoint = addr
	short, cancel2 := context.WithTimeout(ctx, 3*time.Second)
	defer cancel2()
	if _, err := NewS3(short, down); err == nil {
		t.Fatal("NewS3 against a closed port succeeded")
	}
	bad := cfg
	bad.Bucket = "UPPER"
	if _, err := NewS3(ctx, bad); !errors.Is(err, ErrS3Config) {
		t.Fatalf("bad bucket: %v", err)
	}
}

func TestParseS3URL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want S3Config
		err  string
	}{
		{in: "s3://my-bucket", want: S3Config{Endpoint: DefaultS3Endpoint, Bucket: "my-bucket"}},
		{in: "s3://my-bucket/verdict/testdata/?region=eu-west-1",
			want: S3Config{Endpoint: DefaultS3Endpoint, Bucket: "my-bucket", Prefix: "verdict/testdata/", Region: "eu-west-1"}},
		{in: "s3://ojb/blobs?endpoint=127.0.0.1:9000&insecure=true&path-style=1",
			want: S3Config{Endpoint: "127.0.0.1:9000", Bucket: "ojb", Prefix: "blobs/", Insecure: true, PathStyle: true}},
		{in: "https://my-bucket/x", err: "want s3://"},
		{in: "s3://key:secret@my-bucket", err: "credentials"},
		{in: "s3://B", err: "bucket"},
		{in: "s3:///prefix", err: "bucket"},
		{in: "s3://ojb?endpoint=http://host:9000", err: "endpoint"},
		{in: "s3://ojb?insecure=maybe", err: "insecure"},
		{in: "s3://ojb?secure=false", err: "unknown parameter"},
		{in: "s3://ojb?region=a&region=b", err: "2 times"},
		{in: "s3://ojb/a//b", err: "prefix"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseS3URL(tc.in)
			if tc.err != "" {
				if !errors.Is(err, ErrS3Config) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrS3Config with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
