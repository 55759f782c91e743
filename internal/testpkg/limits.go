package testpkg

// The limits of a test data package: one set of numbers for both sides.
// The web node checks an upload with Check and these limits, the judge
// unpacks with Unpack and the same ones, so a package the judges would
// refuse is refused at upload (with the reason) instead of failing every
// later submission with a system error. See docs/limits.md, "Test data".
const (
	// MaxUnpackedBytes bounds the total of a package's files once
	// decompressed: 512 MiB. The bytes actually decompressed count, never
	// the sizes a zip header claims, so a zip bomb stops here.
	MaxUnpackedBytes int64 = 512 << 20
	// MaxFiles bounds the entries of a package (directory entries
	// included): 10,000, i.e. about 5,000 cases with a manifest and a
	// checker.
	MaxFiles = 10000
	// MaxNameLen bounds an entry's name in bytes ("12345.ans" is 9).
	MaxNameLen = 64
)

// DefaultLimits are the limits both sides use: MaxUnpackedBytes and
// MaxFiles.
func DefaultLimits() UnpackLimits {
	return UnpackLimits{MaxBytes: MaxUnpackedBytes, MaxFiles: MaxFiles}
}
