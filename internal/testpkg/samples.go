package testpkg

import (
	"bytes"
	"fmt"
	"io"
)

// SampleFile is one sample case's files, as ReadSamples returns them.
type SampleFile struct {
	Case int // 1-based index
	In   []byte
	Ans  []byte
	// Flags are the case's default output validator flags
	// (Manifest.ForCase's DefaultValidatorFlags), for the checker kind
	// protocol.CheckerICPC.
	Flags []string
}

// ReadSamples returns the sample cases of a package (the manifest's
// "sample": true), in case order, and nothing of any other case. It
// refuses samples whose files together exceed maxBytes.
func ReadSamples(zipBytes []byte, maxBytes int64) ([]SampleFile, error) {
	m, zr, err := readZip(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return nil, err
	}
	open := func(name string) ([]byte, error) {
		for _, f := range zr.File {
			if f.Name != name {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, name, err)
			}
			defer rc.Close()
			b, err := io.ReadAll(io.LimitReader(rc, maxBytes+1))
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, name, err)
			}
			return b, nil
		}
		return nil, fmt.Errorf("%w: %s missing", ErrInvalid, name)
	}
	var out []SampleFile
	var total int64
	for i, c := range m.Cases {
		if !c.Sample {
			continue
		}
		in, err := open(c.In)
		if err != nil {
			return nil, err
		}
		ans, err := open(c.Ans)
		if err != nil {
			return nil, err
		}
		total += int64(len(in) + len(ans))
		if total > maxBytes {
			return nil, fmt.Errorf("%w: the sample cases are more than %d bytes", ErrInvalid, maxBytes)
		}
		out = append(out, SampleFile{Case: c.Index, In: in, Ans: ans, Flags: m.ForCase(i).DefaultValidatorFlags})
	}
	return out, nil
}
