//go:build cgroup2vm

package vmtest

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// moduleDepends reads the "depends=" field of a .ko's .modinfo section
// (the package ships no modules.dep: depmod makes it at installation).
func moduleDepends(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, fmt.Errorf("%s: no .modinfo", path)
	}
	b, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("depends=")); ok {
			var out []string
			for _, d := range strings.Split(string(v), ",") {
				if d != "" {
					out = append(out, d)
				}
			}
			return out, nil
		}
	}
	return nil, nil
}

// kernelModules finds want and their dependencies under the unpacked
// package's lib/modules/<version>, and returns their files in load order.
func kernelModules(modDir string, want []string) ([]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(modDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".ko") {
			files[moduleName(p)] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	// Read .modinfo only along the way from want (thousands of modules).
	queue := append([]string(nil), want...)
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if _, seen := deps[m]; seen {
			continue
		}
		p, ok := files[m]
		if !ok {
			continue // loadOrder names it
		}
		d, err := moduleDepends(p)
		if err != nil {
			return nil, err
		}
		deps[m] = d
		queue = append(queue, d...)
	}
	order, err := loadOrder(want, deps)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(order))
	for i, m := range order {
		out[i] = files[m]
	}
	return out, nil
}
