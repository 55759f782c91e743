package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/verdict-oj/verdict/internal/protocol"
)

// outbox keeps finished results on disk until they are written to the hub,
// so neither a dropped link nor an agent restart loses one. Results are
// files <submission>-<attempt>.json holding the Result payload.
type outbox struct {
	dir string

	mu      sync.Mutex
	pending map[protocol.TaskRef]protocol.Result
}

func openOutbox(dir string) (*outbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	o := &outbox{dir: dir, pending: map[protocol.TaskRef]protocol.Result{}}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			_ = os.Remove(p) // an interrupted write
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
		var r protocol.Result
		if err := json.Unmarshal(b, &r); err != nil || r.Validate() != nil {
			_ = os.Rename(p, p+".bad") // keep it for a human, do not resend garbage
			continue
		}
		o.pending[r.TaskRef] = r
	}
	return o, nil
}

func (o *outbox) path(ref protocol.TaskRef) string {
	return filepath.Join(o.dir, strconv.FormatInt(ref.SubmissionID, 10)+"-"+strconv.Itoa(ref.Attempt)+".json")
}

// put stores r durably (write, fsync, rename).
func (o *outbox) put(r protocol.Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("outbox put: %w", err)
	}
	p := o.path(r.TaskRef)
	tmp := p + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("outbox put: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("outbox put: %w", err)
	}
	o.mu.Lock()
	o.pending[r.TaskRef] = r
	o.mu.Unlock()
	return nil
}

// done forgets a delivered result.
func (o *outbox) done(ref protocol.TaskRef) {
	o.mu.Lock()
	delete(o.pending, ref)
	o.mu.Unlock()
	_ = os.Remove(o.path(ref))
}

func (o *outbox) get(ref protocol.TaskRef) (protocol.Result, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.pending[ref]
	return r, ok
}

// list returns the pending results, oldest submission first.
func (o *outbox) list() []protocol.Result {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]protocol.Result, 0, len(o.pending))
	for _, r := range o.pending {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b protocol.Result) int {
		if a.SubmissionID != b.SubmissionID {
			return int(a.SubmissionID - b.SubmissionID)
		}
		return a.Attempt - b.Attempt
	})
	return out
}

func (o *outbox) refs() []protocol.TaskRef {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]protocol.TaskRef, 0, len(o.pending))
	for ref := range o.pending {
		out = append(out, ref)
	}
	return out
}

func (o *outbox) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending)
}
