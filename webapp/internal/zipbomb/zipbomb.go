package zipbomb

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"sync"
)

// Entry is one file of a zip: Zeros zero bytes when Zeros > 0, else Data.
type Entry struct {
	Name  string
	Zeros int64
	Data  []byte
}

// Zip returns a zip of the entries, in their order, all deflated.
func Zip(entries ...Entry) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.Zeros <= 0 {
			w, err := zw.Create(e.Name)
			if err != nil {
				return nil, err
			}
			if _, err := w.Write(e.Data); err != nil {
				return nil, err
			}
			continue
		}
		stream, err := zerosDeflated(e.Zeros)
		if err != nil {
			return nil, err
		}
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: e.Name, Method: zip.Deflate, CRC32: zerosCRC(e.Zeros),
			CompressedSize64: uint64(len(stream)), UncompressedSize64: uint64(e.Zeros),
		})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(stream); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

const piece = 1 << 20

var zeros = make([]byte, piece)

// flushed is the deflate blocks of n zero bytes from a fresh compressor,
// ended by a sync flush.
func flushed(n int, final bool) ([]byte, error) {
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(zeros[:n]); err != nil {
		return nil, err
	}
	if final {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	return b.Bytes(), err
}

var mib struct {
	once sync.Once
	b    []byte
	err  error
}

// zerosDeflated is a deflate stream of n zero bytes: the flushed MiB n/MiB
// times, then the rest and the end of the stream.
func zerosDeflated(n int64) ([]byte, error) {
	mib.once.Do(func() { mib.b, mib.err = flushed(piece, false) })
	if mib.err != nil {
		return nil, mib.err
	}
	tail, err := flushed(int(n%piece), true)
	if err != nil {
		return nil, err
	}
	out := bytes.Repeat(mib.b, int(n/piece))
	return append(out, tail...), nil
}

// zerosCRC is the CRC-32 (IEEE) of n zero bytes.
func zerosCRC(n int64) uint32 {
	var c uint32
	for ; n >= piece; n -= piece {
		c = crc32.Update(c, crc32.IEEETable, zeros)
	}
	return crc32.Update(c, crc32.IEEETable, zeros[:n])
}
