package simjudge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// Test data errors.
var (
	// ErrDownload: the download failed (network, HTTP status). Transient:
	// the task is given back with RejectData.
	ErrDownload = errors.New("simjudge: download failed")
	// ErrHashMismatch: the downloaded bytes do not hash to the task's
	// hash. The task's result is a system error, as on the real judge.
	ErrHashMismatch = errors.New("simjudge: downloaded data does not match its hash")
	// ErrInvalidData: the package is not a valid test data package (or is
	// larger than Config.MaxDataBytes). A system error.
	ErrInvalidData = errors.New("simjudge: invalid test data")
)

// dataCache keeps the manifests of the packages a judge downloaded, by
// content hash, in memory. Concurrent requests for one hash download once;
// a failed download is not kept.
type dataCache struct {
	j *Judge

	mu      sync.Mutex
	entries map[string]*dataEntry
}

type dataEntry struct {
	problemID int64
	done      chan struct{} // closed when the download ended
	manifest  testpkg.Manifest
	err       error
}

// get returns the manifest of package hash, downloading it from url
// (Config.TestDataBase+hash when empty) if it is not cached.
func (c *dataCache) get(ctx context.Context, problemID int64, hash, url string) (testpkg.Manifest, error) {
	for {
		c.mu.Lock()
		e, ok := c.entries[hash]
		if !ok {
			e = &dataEntry{problemID: problemID, done: make(chan struct{})}
			c.entries[hash] = e
			c.mu.Unlock()
			e.manifest, e.err = c.j.download(ctx, hash, url)
			if e.err != nil {
				c.mu.Lock()
				if c.entries[hash] == e {
					delete(c.entries, hash)
				}
				c.mu.Unlock()
			}
			close(e.done)
			if e.err == nil && c.j.cfg.OnEvent != nil {
				c.j.cfg.OnEvent(Event{Kind: EventDataReady, JudgeID: c.j.cfg.ID, At: time.Now(),
					Task: TaskRecord{ProblemID: problemID, DataHash: hash}})
			}
			return e.manifest, e.err
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return testpkg.Manifest{}, ctx.Err()
		case <-e.done:
		}
		if e.err == nil {
			return e.manifest, nil
		}
		if !errors.Is(e.err, context.Canceled) && !errors.Is(e.err, context.DeadlineExceeded) {
			return testpkg.Manifest{}, e.err
		}
		// The downloader was cancelled, not us: try ourselves.
	}
}

// hashes lists the packages held, sorted.
func (c *dataCache) hashes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []string{}
	for h, e := range c.entries {
		select {
		case <-e.done:
			if e.err == nil {
				out = append(out, h)
			}
		default:
		}
	}
	slices.Sort(out)
	return out
}

// evict drops the package hash, or every package of problemID when hash
// is empty, and returns how many it dropped.
func (c *dataCache) evict(problemID int64, hash string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for h, e := range c.entries {
		if (hash != "" && h == hash) || (hash == "" && problemID > 0 && e.problemID == problemID) {
			delete(c.entries, h)
			n++
		}
	}
	return n
}

// download fetches package hash like the real agent: GET url with
// "Authorization: Bearer <token>", SHA-256 of the bytes checked against
// hash, then the package read (testpkg.Read, the web nodes' and judges'
// own reader) for its cases.
func (j *Judge) download(ctx context.Context, hash, url string) (testpkg.Manifest, error) {
	if url == "" {
		url = j.cfg.TestDataBase + hash
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	req.Header.Set("Authorization", "Bearer "+j.cfg.Token)
	j.count(func(c *counters) { c.downloads++ })
	resp, err := j.cfg.HTTPClient.Do(req)
	if err != nil {
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: GET %s: %s: %s", ErrDownload, hash, url, resp.Status, strings.TrimSpace(string(body)))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, j.cfg.MaxDataBytes+1))
	j.count(func(c *counters) { c.bytes += int64(len(b)) })
	if err != nil {
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: %w", ErrDownload, hash, err)
	}
	if int64(len(b)) > j.cfg.MaxDataBytes {
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: more than %d bytes", ErrInvalidData, hash, j.cfg.MaxDataBytes)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, hash) {
		j.count(func(c *counters) { c.mismatches++ })
		return testpkg.Manifest{}, fmt.Errorf("%w: asked for %s, got %s (%d bytes)", ErrHashMismatch, hash, got, len(b))
	}
	m, err := testpkg.Read(b)
	if err != nil {
		return testpkg.Manifest{}, fmt.Errorf("%w: %s: %w", ErrInvalidData, hash, err)
	}
	j.log.Debug("test data downloaded", "hash", hash, "bytes", len(b), "cases", len(m.Cases))
	return m, nil
}
