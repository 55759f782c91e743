// Package zipbomb makes zips whose entries unpack to many zero bytes, for
// the tests of the unpack limits (a zip bomb, a package just over or exactly
// at testpkg.MaxUnpackedBytes), in time proportional to the zip's size
// rather than to what it unpacks to.
//
// Compressing 512 MiB of zeros through compress/flate took the tests that
// need such packages 30–60 s under -race. Here one MiB of zeros is
// compressed once and its deflate blocks repeated: each copy is what a fresh
// compressor writes for that MiB, ended by a sync flush (byte-aligned, not
// final, referring to nothing before it), so copies concatenate into one
// valid stream, which a final empty block ends. The zip says the true sizes
// and CRC-32, and unpacking it decompresses every byte, as any other zip of
// the same files.
package zipbomb
