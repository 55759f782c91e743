package vmtest

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// cpioEntry is one member of a newc ("070701") archive, the format the
// kernel unpacks as initramfs.
type cpioEntry struct {
	Name         string
	Mode         uint32 // type and permission bits (cpioDir | 0o755, ...)
	Data         []byte // regular files
	Major, Minor uint32 // device nodes (rdev)
}

// File type bits of cpioEntry.Mode.
const (
	cpioDir  = 0o040000
	cpioReg  = 0o100000
	cpioChar = 0o020000
)

// writeCpio writes entries (parents before children: sorted by name) and
// the trailer. Pure but for w.
func writeCpio(w io.Writer, entries []cpioEntry) error {
	es := append([]cpioEntry(nil), entries...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	es = append(es, cpioEntry{Name: "TRAILER!!!"})
	for i, e := range es {
		name := strings.TrimPrefix(e.Name, "/")
		if name == "" || strings.Contains(name, "\x00") {
			return fmt.Errorf("cpio: bad name %q", e.Name)
		}
		if e.Mode&cpioReg == 0 && len(e.Data) > 0 {
			return fmt.Errorf("cpio: %s: data for a non-regular file", name)
		}
		nlink := 1
		if e.Mode&cpioDir != 0 {
			nlink = 2
		}
		hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
			i+1, e.Mode, 0, 0, nlink, 0, len(e.Data), 0, 0, e.Major, e.Minor, len(name)+1, 0)
		if _, err := io.WriteString(w, hdr+name+"\x00"+pad(len(hdr)+len(name)+1)); err != nil {
			return err
		}
		if _, err := w.Write(e.Data); err != nil {
			return err
		}
		if _, err := io.WriteString(w, pad(len(e.Data))); err != nil {
			return err
		}
	}
	return nil
}

// pad is the NULs that align n bytes to 4.
func pad(n int) string { return strings.Repeat("\x00", (4-n%4)%4) }
