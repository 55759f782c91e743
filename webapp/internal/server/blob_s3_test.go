package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/verdict-oj/verdict/webapp/internal/blob"
)

// TestTestdataOnS3: with the S3 store (a real S3 HTTP server on loopback,
// gofakes3 in memory), a test data upload lands in the bucket and the
// judge endpoint streams it back, ranges included; a blob missing from
// the bucket is 404 and an unreachable store 503.
func TestTestdataOnS3(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("oj-testdata"); err != nil {
		t.Fatal(err)
	}
	s3srv := httptest.NewUnstartedServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	s3srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s3srv.Start()
	t.Cleanup(s3srv.Close)
	u, _ := url.Parse(s3srv.URL)
	cfg, err := blob.ParseS3URL("s3://oj-testdata/verdict?insecure=true&path-style=true&region=us-east-1&endpoint=" + u.Host)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AccessKey, cfg.SecretKey, cfg.TempDir = "test-access", "test-secret", t.TempDir()
	ctx := context.Background()
	store, err := blob.NewS3(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	se := newStaffEnv(t, func(c *Config) { c.Blobs = store })
	if r := se.setter.call("POST", "/api/problems", map[string]any{"slug": "echo", "title": "Echo"}); r.status != 201 {
		t.Fatal(r.raw)
	}
	pkg := buildPkg(t, 3, false)
	r := se.setter.upload("/api/problems/echo/testdata", "file", pkg, "")
	sum := sha256.Sum256(pkg)
	hash := hex.EncodeToString(sum[:])
	if r.status != 201 || r.body["hash"] != hash {
		t.Fatalf("upload: %d %s", r.status, r.raw)
	}
	obj, err := backend.GetObject("oj-testdata", "verdict/sha256/"+hash, nil)
	if err != nil {
		t.Fatalf("the package is not in the bucket: %v", err)
	}
	inBucket, _ := io.ReadAll(obj.Contents)
	obj.Contents.Close()
	if !bytes.Equal(inBucket, pkg) {
		t.Fatal("the bucket holds other bytes")
	}

	tok := se.admin.call("POST", "/api/judges", map[string]string{"name": "judge-1"}).body["token"].(string)
	url := se.ts.URL + "/api/judge/testdata/" + hash
	auth := "Bearer " + tok
	if g := rawGet(t, url); g.status != 401 {
		t.Fatalf("no token: %d", g.status)
	}
	g := rawGet(t, url, "Authorization", auth)
	if g.status != 200 || g.body != string(pkg) || g.header.Get("ETag") != `"`+hash+`"` ||
		g.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("download: %d, %d bytes, %v", g.status, len(g.body), g.header)
	}
	if g := rawGet(t, url, "Authorization", auth, "Range", "bytes=10-19"); g.status != 206 || g.body != string(pkg[10:20]) {
		t.Fatalf("range: %d %q", g.status, g.body)
	}
	if g := rawGet(t, url, "Authorization", auth, "If-None-Match", `"`+hash+`"`); g.status != http.StatusNotModified {
		t.Fatalf("conditional download: %d", g.status)
	}
	// The version is known but its object was deleted behind our back.
	if _, err := backend.DeleteObject("oj-testdata", "verdict/sha256/"+hash); err != nil {
		t.Fatal(err)
	}
	if g := rawGet(t, url, "Authorization", auth); g.status != 404 {
		t.Fatalf("download of a lost object: %d %s", g.status, g.body)
	}
	// The store stops answering: 503, promptly.
	s3srv.Close()
	start := time.Now()
	if g := rawGet(t, url, "Authorization", auth); g.status != 503 {
		t.Fatalf("download with the store down: %d %s", g.status, g.body)
	}
	t.Logf("failing download took %v", time.Since(start))
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the failing download took %v", d)
	}
}
