package export

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// pageWindow is the zstd window of a page's frame: a page is compressed on its own (one frame
// per page), and the writer cuts pages at this size (pageBuffer), so a larger window finds
// nothing more.
const pageWindow = pageBuffer

// zstdCodec is zstd at its fastest level with a window of one page (parquet.Codec). The
// library's default window (8 MiB) has each pooled encoder allocate and clear twice that as
// history the first time it meets a page larger than a block: memory and CPU the export
// would spend beside the read's peak, for nothing a page can use.
type zstdCodec struct {
	enc sync.Pool // *zstd.Encoder
}

// String is the codec's name.
func (*zstdCodec) String() string { return "ZSTD" }

// Number is Parquet's number for zstd.
func (*zstdCodec) Number() int32 { return 6 }

// Encode appends the frame of src to dst[:0].
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.enc.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(pageWindow), zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return dst, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	c.enc.Put(e)
	return out, nil
}
