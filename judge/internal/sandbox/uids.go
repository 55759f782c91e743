package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/verdict-oj/verdict/internal/uidlock"
)

// DefaultIDBase is the first uid and gid of the default range (as
// isolate's first box uid): slot i runs as 60000+i. Debian allocates
// nothing there by default, and systemd's DynamicUser range starts at
// 61184, above any realistic slot count.
const DefaultIDBase = 60000

// idRange is one Sandbox's uids and gids: [uid, uid+n) and [gid, gid+n).
type idRange struct{ uid, gid, n int }

func (r idRange) hasUID(id int) bool { return id >= r.uid && id < r.uid+r.n }
func (r idRange) hasGID(id int) bool { return id >= r.gid && id < r.gid+r.n }

func (r idRange) String() string {
	return fmt.Sprintf("uids %d-%d, gids %d-%d", r.uid, r.uid+r.n-1, r.gid, r.gid+r.n-1)
}

// claimedIDs are the ranges of this process's live Sandboxes.
var (
	claimedMu  sync.Mutex
	claimedIDs = map[*Sandbox]idRange{}
	idLocks    = map[*Sandbox][]*os.File{}
)

// claimIDs reserves r for s, refusing a range that overlaps another live
// Sandbox's of this process or that a process of the host runs under.
func claimIDs(s *Sandbox, r idRange) error {
	if r.uid <= 0 || r.gid <= 0 || r.uid+r.n-1 > 1<<31-2 || r.gid+r.n-1 > 1<<31-2 {
		return fmt.Errorf("%w: id range %s: ids must be in 1..2147483646", ErrInvalidSpec, r)
	}
	claimedMu.Lock()
	defer claimedMu.Unlock()
	for o, or := range claimedIDs {
		if o != s && (r.uid < or.uid+or.n && or.uid < r.uid+r.n || r.gid < or.gid+or.n && or.gid < r.gid+r.n) {
			return fmt.Errorf("id range %s overlaps another sandbox of this process (%s): give each its own UIDBase/GIDBase", r, or)
		}
	}
	if users, err := idUsers(r); err != nil {
		return fmt.Errorf("check id range %s: %w", r, err)
	} else if len(users) > 0 {
		return fmt.Errorf("id range %s is in use by %s: the sandbox's ids must belong to no other process (choose another UIDBase/GIDBase, or stop them)",
			r, strings.Join(users, ", "))
	}
	// Another judge on this machine with an overlapping range, even an
	// idle one the scan above cannot see.
	locks, err := uidlock.Lock(r.uid, r.n)
	if err != nil {
		return fmt.Errorf("id range %s: %w", r, err)
	}
	claimedIDs[s], idLocks[s] = r, locks
	return nil
}

func releaseIDs(s *Sandbox) {
	claimedMu.Lock()
	for _, f := range idLocks[s] {
		f.Close()
	}
	delete(idLocks, s)
	delete(claimedIDs, s)
	claimedMu.Unlock()
}

// idUsers lists the host processes (threads' ids are their process's) with
// a real, effective, saved or filesystem uid or gid in r, as "pid (comm)".
func idUsers(r idRange) ([]string, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/status")
		if err != nil {
			continue // gone meanwhile
		}
		if uids, gids, comm := statusIDs(b); anyIn(uids, r.hasUID) || anyIn(gids, r.hasGID) {
			out = append(out, fmt.Sprintf("pid %s (%s, uid %v gid %v)", n, comm, uids, gids))
		}
	}
	return out, nil
}

// statusIDs parses the Uid:, Gid: and Name: lines of /proc/PID/status.
func statusIDs(b []byte) (uids, gids []int, comm string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "Name":
			comm = strings.TrimSpace(v)
		case "Uid", "Gid":
			var ids []int
			for _, f := range strings.Fields(v) {
				if id, err := strconv.Atoi(f); err == nil {
					ids = append(ids, id)
				}
			}
			if k == "Uid" {
				uids = ids
			} else {
				gids = ids
			}
		}
	}
	return uids, gids, comm
}

func anyIn(ids []int, in func(int) bool) bool {
	for _, id := range ids {
		if in(id) {
			return true
		}
	}
	return false
}
