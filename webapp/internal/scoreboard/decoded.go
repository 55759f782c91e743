package scoreboard

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxDecodedBoards bounds the contests whose fields Views keeps decoded;
// the least recently read is dropped beyond it.
const maxDecodedBoards = 8

// decodedBoards keeps, per contest, each views and user field's raw value
// as Views last read it and what it decoded to: a board is read whole at
// every publish (twice a second under results), and all but the few
// cells that changed since are the same bytes as last time. At 3,000
// contestants the decoding was most of a publish's CPU.
type decodedBoards struct {
	mu     sync.Mutex
	tick   uint64
	boards map[int64]*decodedBoard
}

// decodedBoard is one contest's fields. mu is held for a whole read, so
// two reads of one contest take turns (the map is written in place).
type decodedBoard struct {
	mu      sync.Mutex
	used    uint64
	fields  map[string]decodedField
	decodes int // fields decoded (not found the same): for the tests
	// viewMap and userMap are the board as read last (Views hands out
	// copies), as of change seq of generation gen; read once read whole,
	// last at fullAt.
	viewMap map[CellKey]View
	userMap map[int64]User
	gen     string
	seq     int64
	read    bool
	fullAt  time.Time
	// wholeReads and changeReads count the reads of each kind (tests).
	wholeReads, changeReads int
}

// decodedField is a field's raw value and its decoding (view for a views
// field, user for a user field).
type decodedField struct {
	raw  string
	view View
	user User
}

// board returns contest's fields, locked; the caller unlocks it.
func (d *decodedBoards) board(contestID int64) *decodedBoard {
	d.mu.Lock()
	d.tick++
	b := d.boards[contestID]
	if b == nil {
		if d.boards == nil {
			d.boards = map[int64]*decodedBoard{}
		}
		if len(d.boards) >= maxDecodedBoards {
			var oldest int64
			first := true
			for id, o := range d.boards {
				if first || o.used < d.boards[oldest].used {
					oldest, first = id, false
				}
			}
			delete(d.boards, oldest)
		}
		b = &decodedBoard{fields: map[string]decodedField{}}
		d.boards[contestID] = b
	}
	b.used = d.tick
	d.mu.Unlock()
	b.mu.Lock()
	return b
}

// view decodes a views field's raw value, or returns its last decoding
// if raw is the same.
func (b *decodedBoard) view(field, raw string) (View, error) {
	f, err := b.decode(field, raw, false)
	return f.view, err
}

// user is view for a user field.
func (b *decodedBoard) user(field, raw string) (User, error) {
	f, err := b.decode(field, raw, true)
	return f.user, err
}

// decode returns field's decoding (its user if isUser, else its view),
// kept from the last read if raw is the same; bad bytes are an error and
// are not kept.
func (b *decodedBoard) decode(field, raw string, isUser bool) (decodedField, error) {
	if f, ok := b.fields[field]; ok && f.raw == raw {
		return f, nil
	}
	b.decodes++
	f := decodedField{raw: raw}
	var err error
	if isUser {
		err = json.Unmarshal([]byte(raw), &f.user)
	} else {
		err = json.Unmarshal([]byte(raw), &f.view)
	}
	if err != nil {
		delete(b.fields, field)
		return decodedField{}, err
	}
	b.fields[field] = f
	return f, nil
}

// apply sets one field of the views hash that changed since the last
// read: a cell's view or a user's names, decoded (or kept, the same
// bytes), or dropped when it is gone (!present). A user whose names do
// not decode is left as it was, as a whole read leaves it out.
func (b *decodedBoard) apply(field, raw string, present bool) error {
	switch {
	case strings.HasPrefix(field, fieldViews):
		k, ok := parseCell(field[len(fieldViews):])
		if !ok {
			return nil
		}
		if !present {
			delete(b.viewMap, k)
			delete(b.fields, field)
			return nil
		}
		v, err := b.view(field, raw)
		if err != nil {
			return fmt.Errorf("cell %s: %w", field, err)
		}
		b.viewMap[k] = v
	case strings.HasPrefix(field, fieldUser):
		if !present {
			if id, err := strconv.ParseInt(field[len(fieldUser):], 10, 64); err == nil {
				delete(b.userMap, id)
			}
			delete(b.fields, field)
			return nil
		}
		if u, err := b.user(field, raw); err == nil {
			b.userMap[u.ID] = u
		}
	}
	return nil
}
