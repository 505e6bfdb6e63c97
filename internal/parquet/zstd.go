package parquet

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Zstd is a Codec: zstd at its fastest level, each page one frame with a window of Window
// bytes (the page size: a page is compressed on its own, so a larger window finds nothing
// more). The library's default window (8 MiB) has each pooled encoder allocate and clear
// twice that as history the first time it meets a page larger than a block. Its encoders are
// pooled: one Zstd may serve every file and goroutine.
type Zstd struct {
	Window int
	enc    sync.Pool // *zstd.Encoder
}

// Number is Parquet's number for zstd.
func (*Zstd) Number() int32 { return 6 }

// Encode appends the frame of src to dst[:0].
func (z *Zstd) Encode(dst, src []byte) ([]byte, error) {
	e, _ := z.enc.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(z.Window), zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false))
		if err != nil {
			return dst, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	z.enc.Put(e)
	return out, nil
}
