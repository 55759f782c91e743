package queue

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// DocGzipMin is the size from which PublishDoc stores a document
// compressed (gzip at its fastest level): a 3,000-contestant board is
// about 0.7 MB of JSON, written at every publish (up to twice a second
// under results, whatever the contest's pace) to Redis's memory, its
// append-only file and every reader's socket. In the 10× rehearsals of
// 2026-12-06 the file grew about 100 MiB a minute and Redis forked to
// rewrite it every five minutes (81 % of the file was the board);
// compressed, a 3,000 x 6 board is a sixth (868 kB to 145 kB).
// A user's submission list stays as it is.
const DocGzipMin = 8 << 10

// gzipMagic starts every gzip stream; no JSON document starts so.
const gzipMagic = "\x1f\x8b"

var docWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // a valid level: no error
	return w
}}

// packDoc is state as PublishDoc stores it.
func packDoc(state []byte) []byte {
	if len(state) < DocGzipMin {
		return state
	}
	var buf bytes.Buffer
	buf.Grow(len(state) / 4)
	w := docWriters.Get().(*gzip.Writer)
	w.Reset(&buf)
	_, _ = w.Write(state) // a bytes.Buffer takes everything
	_ = w.Close()
	docWriters.Put(w)
	return buf.Bytes()
}

// unpackDoc reads a stored document: the JSON, and the gzip stream it was
// stored as (nil when stored as it is: small, or by a version before
// DocGzipMin).
func unpackDoc(stored string) (json.RawMessage, []byte, error) {
	if !strings.HasPrefix(stored, gzipMagic) {
		return json.RawMessage(stored), nil, nil
	}
	gz := []byte(stored)
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, nil, fmt.Errorf("stored document: %w", err)
	}
	var out bytes.Buffer
	// A gzip stream ends with its input's size (modulo 2^32): grow once.
	if len(gz) >= 18 {
		if n := binary.LittleEndian.Uint32(gz[len(gz)-4:]); n <= 64<<20 {
			out.Grow(int(n))
		}
	}
	if _, err := out.ReadFrom(r); err != nil {
		return nil, nil, fmt.Errorf("stored document: %w", err)
	}
	if err := r.Close(); err != nil {
		return nil, nil, fmt.Errorf("stored document: %w", err)
	}
	return out.Bytes(), gz, nil
}

// StoredDoc is a published document as Redis holds it: JSON as it is, or
// the gzip stream PublishDoc stored (DocGzipMin). A reader that serves the
// stream to gzip clients need not decompress it: JSON does, once, when
// asked; Head reads only the first bytes.
type StoredDoc struct {
	raw  json.RawMessage // stored as it is
	gz   []byte          // stored compressed
	once sync.Once
	json json.RawMessage
	err  error
}

// Empty reports whether nothing was stored.
func (d *StoredDoc) Empty() bool { return d == nil || (len(d.raw) == 0 && len(d.gz) == 0) }

// Gzip is the stored gzip stream; nil when the document was stored as it
// is.
func (d *StoredDoc) Gzip() []byte { return d.gz }

// JSON is the document, decompressed on the first call.
func (d *StoredDoc) JSON() (json.RawMessage, error) {
	if d.gz == nil {
		return d.raw, nil
	}
	d.once.Do(func() { d.json, _, d.err = unpackDoc(string(d.gz)) })
	return d.json, d.err
}

// Head is the document's first n bytes (fewer if it is shorter),
// decompressing only those.
func (d *StoredDoc) Head(n int) ([]byte, error) {
	if d.gz == nil {
		return d.raw[:min(n, len(d.raw))], nil
	}
	r, err := gzip.NewReader(bytes.NewReader(d.gz))
	if err != nil {
		return nil, fmt.Errorf("stored document: %w", err)
	}
	head := make([]byte, n)
	k, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("stored document: %w", err)
	}
	return head[:k], nil
}

// storedDoc wraps a stored value.
func storedDoc(stored string) *StoredDoc {
	if strings.HasPrefix(stored, gzipMagic) {
		return &StoredDoc{gz: []byte(stored)}
	}
	return &StoredDoc{raw: json.RawMessage(stored)}
}
