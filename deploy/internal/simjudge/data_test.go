package simjudge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// TestDownload runs the test data download against an HTTP server that
// answers like the web nodes' /api/judge/testdata/{hash}: bearer token
// required, 404 for an unknown hash.
func TestDownload(t *testing.T) {
	pkg, _, err := testpkg.Build([]testpkg.Case{{In: []byte("1 2\n"), Ans: []byte("3\n")}, {In: []byte("2 2\n"), Ans: []byte("4\n")}, {In: []byte("0 0\n"), Ans: []byte("0\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pkg)
	hash := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("ab", 32)
	gsum := sha256.Sum256([]byte("not a zip"))
	garbage := hex.EncodeToString(gsum[:])
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		switch strings.TrimPrefix(r.URL.Path, "/api/judge/testdata/") {
		case hash, wrong: // wrong: the bytes of another hash
			_, _ = w.Write(pkg)
		case garbage:
			_, _ = w.Write([]byte("not a zip"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	newJudge := func(t *testing.T, token string) *Judge {
		j, err := New(Config{HubURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/judge", ID: "j", Token: token})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	ctx := context.Background()

	t.Run("cases read, cached by hash, evicted", func(t *testing.T) {
		j := newJudge(t, "tok")
		gets.Store(0)
		m, err := j.data.get(ctx, 1, hash, "") // default URL from the hub's host
		if err != nil || len(m.Cases) != 3 {
			t.Fatalf("get = %d cases, %v; want 3", len(m.Cases), err)
		}
		if _, err := j.data.get(ctx, 1, hash, srv.URL+"/elsewhere"); err != nil || gets.Load() != 1 {
			t.Fatalf("second get: %v, %d downloads; want the cached one", err, gets.Load())
		}
		st := j.Stats()
		if st.Downloads != 1 || st.BytesDownloaded != int64(len(pkg)) || st.DataHashMismatches != 0 || len(st.Cached) != 1 || st.Cached[0] != hash {
			t.Fatalf("stats %+v", st)
		}
		if h := j.hello().CachedData; len(h) != 1 || h[0] != hash {
			t.Fatalf("hello lists %v, want [%s]", h, hash)
		}
		if n := j.data.evict(1, ""); n != 1 {
			t.Fatalf("evict by problem dropped %d", n)
		}
		if _, err := j.data.get(ctx, 1, hash, srv.URL+"/api/judge/testdata/"+hash); err != nil || gets.Load() != 2 {
			t.Fatalf("after evict: %v, %d downloads; want a new download", err, gets.Load())
		}
	})

	t.Run("concurrent gets download once", func(t *testing.T) {
		j := newJudge(t, "tok")
		gets.Store(0)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, err := j.data.get(ctx, 1, hash, ""); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if gets.Load() != 1 {
			t.Fatalf("%d downloads, want 1", gets.Load())
		}
	})

	tests := []struct {
		name, token, hash string
		want              error
		mismatches        int64
	}{
		{"hash mismatch", "tok", wrong, ErrHashMismatch, 1},
		{"bad token", "other", hash, ErrDownload, 0},
		{"unknown hash", "tok", strings.Repeat("cd", 32), ErrDownload, 0},
		{"not a package", "tok", garbage, ErrInvalidData, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJudge(t, tt.token)
			_, err := j.data.get(ctx, 1, tt.hash, "")
			if !errors.Is(err, tt.want) {
				t.Fatalf("get = %v, want %v", err, tt.want)
			}
			st := j.Stats()
			if st.DataHashMismatches != tt.mismatches || len(st.Cached) != 0 {
				t.Fatalf("stats: %d mismatches, cached %v; want %d, none", st.DataHashMismatches, st.Cached, tt.mismatches)
			}
		})
	}
}
