package export

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// pageWindow is the zstd window of a page's frame: a page is compressed on its own (one frame
// per page), and the writer cuts pages at this size (pageBuffer), so a larger window finds
// nothing more.
const pageWindow = pageBuffer

// zstdCodec is zstd at its fastest level with a window of one page. parquet-go's own codec
// keeps the library's default window (8 MiB), and each of its pooled encoders allocates and
// clears twice that as history the first time it meets a page larger than a block: memory
// and CPU the export spends beside the read's peak, for nothing a page can use.
type zstdCodec struct {
	enc sync.Pool // *zstd.Encoder
	dec struct {
		once sync.Once
		d    *zstd.Decoder
		err  error
	}
}

// String is the codec's name.
func (*zstdCodec) String() string { return "ZSTD" }

// CompressionCodec is Parquet's number for zstd.
func (*zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

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

// Decode appends the data of the frames src to dst[:0] (the codec interface asks for it; the
// export only writes).
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) {
	c.dec.once.Do(func() { c.dec.d, c.dec.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0)) })
	if c.dec.err != nil {
		return dst, c.dec.err
	}
	return c.dec.d.DecodeAll(src, dst[:0])
}
