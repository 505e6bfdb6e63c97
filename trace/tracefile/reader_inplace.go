package tracefile

import (
	"bytes"
	"io"
	"os"
)

// mapMin is the smallest file mapped rather than read (where files are mapped: Linux): below
// it the parse is sequential and a read costs less than setting up and tearing down a mapping.
const mapMin = 1 << 20

// inPlace is input that is in memory in full for the whole read (a trace file mapped into
// memory, reader_map_linux.go): the decoder scans it where it is, and the parallel parse cuts
// its segments out of it, so no byte of it is read into a buffer or copied. It is an io.Reader
// too, for the paths that stream it (gzip input).
type inPlace struct {
	*bytes.Reader
	data []byte
	// consumed, when set, is told that the input before offset end will not be read again (the
	// mapping gives its pages behind the parse back to the kernel). Offsets are data's.
	consumed func(end int64)
	// changed, when set, reports whether the file behind data changed since it was mapped: a
	// file cut short reads as zeros to the end of its last page, then faults.
	changed func() bool
}

func newInPlace(data []byte, consumed func(end int64)) *inPlace {
	return &inPlace{Reader: bytes.NewReader(data), data: data, consumed: consumed}
}

// openInput opens the trace file at path for reading: mapped into memory when it can be (a
// regular file on Linux, not gzip), else as the file itself. close releases it. A file that
// cannot be opened gives os.Open's error.
func openInput(path string) (r io.Reader, close func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if m, unmap, ok := mapFile(f); ok {
		if !isGzip(m.data) {
			return m, func() { unmap(); f.Close() }, nil
		}
		// Inflated as it is read: the file is streamed (its pages would stay mapped, and a
		// gzip stream read in place would gain nothing).
		unmap()
	}
	return f, func() { f.Close() }, nil
}
