package catalog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/verdict-oj/verdict/internal/testpkg"
)

// ErrTestdata is wrapped by every *TestdataError.
var ErrTestdata = errors.New("catalog: test data refused")

// TestdataError is an uploaded test data package that the judges would
// refuse: Field names the request field (always "file"), Message says why
// in words an admin can act on.
type TestdataError struct {
	Field   string
	Message string
	// TooLarge: the package passes the shared size or file-count limits
	// (testpkg.MaxUnpackedBytes, testpkg.MaxFiles): a zip bomb, or just
	// too much data.
	TooLarge bool
}

func (e *TestdataError) Error() string { return e.Field + ": " + e.Message }

// Unwrap makes errors.Is(err, ErrTestdata) true.
func (e *TestdataError) Unwrap() error { return ErrTestdata }

// CheckTestdata checks an uploaded package exactly as the judges will
// unpack it (testpkg.Check with testpkg's shared limits: the names, the
// file count, every entry decompressed and counted, so a zip bomb is
// refused here and not on the first submission). needChecker: the
// problem uses a special checker, so the package must carry one. A
// refusal is a *TestdataError.
func CheckTestdata(zipBytes []byte, needChecker bool) (testpkg.Manifest, error) {
	if len(zipBytes) == 0 {
		return testpkg.Manifest{}, &TestdataError{Field: "file", Message: "is empty"}
	}
	m, err := testpkg.CheckBytes(zipBytes, testpkg.DefaultLimits())
	if err != nil {
		if !errors.Is(err, testpkg.ErrInvalid) {
			return testpkg.Manifest{}, fmt.Errorf("catalog: check test data: %w", err)
		}
		// testpkg's message names the bad file inside the zip.
		msg := strings.TrimPrefix(err.Error(), testpkg.ErrInvalid.Error()+": ")
		msg = strings.TrimPrefix(msg, testpkg.ErrTooLarge.Error()+": ")
		tooLarge := errors.Is(err, testpkg.ErrTooLarge)
		if tooLarge {
			msg = fmt.Sprintf("test data package too large for the judges (at most %d MiB unpacked, %d files): %s",
				testpkg.MaxUnpackedBytes>>20, testpkg.MaxFiles, msg)
		} else {
			msg = "invalid test data package: " + msg
		}
		return testpkg.Manifest{}, &TestdataError{Field: "file", Message: msg, TooLarge: tooLarge}
	}
	if needChecker && m.Checker == "" {
		return testpkg.Manifest{}, &TestdataError{Field: "file", Message: "the problem uses a special checker: the package needs " + testpkg.CheckerName}
	}
	return m, nil
}
