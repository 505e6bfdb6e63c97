// Package gz writes gzip files fast, on every core: the caller's writes are cut into 1 MiB
// blocks, each block is deflated on its own by github.com/klauspost/compress's flate at
// BestSpeed (primed with the previous 32 KiB, so matches still reach back across the cut) and
// ended with a sync flush, and the deflated blocks are written in order as the body of one
// ordinary gzip member. Background goroutines compress blocks while the caller encodes the
// next; a caller that runs out of free blocks compresses a waiting one itself instead of
// idling. The CRC-32 of the gzip trailer is computed by the caller as it copies. Reader (in
// reader.go) reads gzip input, ours and anyone's.
package gz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

const (
	blockSize  = 1 << 20
	dictSize   = 32 << 10 // deflate's window: the most a match can reach back
	maxWorkers = 3        // one encoding goroutine's output (~1.3 GB/s) keeps 1–2 compressors (~1 GB/s each) busy
)

// header is a gzip member header: deflate, no flags, no mtime, XFL 4 ("fastest"), OS unknown.
var header = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

// ErrClosed is returned by Write and Close after Close.
var ErrClosed = errors.New("gz: write after close")

// block is one piece of the input and, once compressed, its deflate bytes.
type block struct {
	in   []byte
	dict []byte // the up to 32 KiB of input before in
	out  bytes.Buffer
	seq  int
	last bool   // the final block: ends the deflate stream and carries the trailer
	tail []byte // the gzip trailer, on the last block
}

// Writer is a gzip writer whose compression runs on several goroutines. Like any io.Writer
// it is used by one goroutine at a time; Close must be called to finish the stream (and to end
// the goroutines). The destination is written from whichever goroutine finished a block, one
// write at a time and in order, and never after Close returns.
type Writer struct {
	dst       io.Writer
	blockSize int
	level     int

	cur  *block
	todo chan *block // filled blocks, to be compressed by whoever is free
	free chan *block // written blocks, back to Write
	done chan struct{}

	crc    uint32
	size   int64
	seq    int    // sequence number of cur
	recent []byte // the last up-to-32 KiB of input before cur

	fl *flate.Writer // the caller's, for the blocks it compresses itself

	mu    sync.Mutex
	ready []*block // compressed blocks waiting for their turn, by seq % len(ready)
	next  int      // seq of the next block to write to dst
	err   atomic.Pointer[error]

	closed bool
}

// NewWriter returns a Writer compressing into w at BestSpeed.
func NewWriter(w io.Writer) *Writer {
	return newWriter(w, blockSize, min(maxWorkers, max(1, runtime.GOMAXPROCS(0)-1)), flate.BestSpeed)
}

func newWriter(w io.Writer, size, workers, level int) *Writer {
	n := 2*workers + 2 // per worker one being compressed and one queued; one filling; one the caller compresses
	z := &Writer{
		dst:       w,
		blockSize: size,
		level:     level,
		todo:      make(chan *block, n),
		free:      make(chan *block, n),
		done:      make(chan struct{}),
		ready:     make([]*block, n),
		recent:    make([]byte, 0, 2*dictSize),
	}
	for range n - 1 {
		z.free <- &block{}
	}
	z.cur = &block{}
	z.cur.in = make([]byte, 0, size)
	for range workers {
		go func() {
			var f *flate.Writer
			for b := range z.todo {
				z.compress(b, &f)
			}
		}()
	}
	return z
}

// Write copies p into the current block, handing full blocks to the compressors. It returns
// the first error of the destination, if one has happened, so that a failing destination
// stops the caller early.
func (z *Writer) Write(p []byte) (int, error) {
	if z.closed {
		return 0, ErrClosed
	}
	if e := z.err.Load(); e != nil {
		return 0, *e
	}
	n := 0
	for len(p) > 0 {
		in := z.cur.in
		c := copy(in[len(in):cap(in)], p)
		z.cur.in = in[:len(in)+c]
		p = p[c:]
		n += c
		if len(z.cur.in) == cap(z.cur.in) {
			z.submit(false)
			z.cur = z.take()
			if e := z.err.Load(); e != nil {
				return n, *e
			}
		}
	}
	return n, nil
}

// submit hands z.cur to the compressors: it adds the block to the CRC and size, gives it its
// dictionary and sequence number, and remembers the block's end as the next one's dictionary.
func (z *Writer) submit(last bool) {
	b := z.cur
	z.crc = crc32.Update(z.crc, crc32.IEEETable, b.in)
	z.size += int64(len(b.in))
	b.dict = append(b.dict[:0], z.recent...)
	b.seq = z.seq
	b.last = last
	if last {
		b.tail = binary.LittleEndian.AppendUint32(b.tail[:0], z.crc)
		b.tail = binary.LittleEndian.AppendUint32(b.tail, uint32(z.size)) // ISIZE: the size mod 2^32
	}
	z.seq++
	if len(b.in) >= dictSize {
		z.recent = append(z.recent[:0], b.in[len(b.in)-dictSize:]...)
	} else {
		z.recent = append(z.recent, b.in...)
		if k := len(z.recent) - dictSize; k > 0 {
			z.recent = z.recent[:copy(z.recent, z.recent[k:])]
		}
	}
	z.cur = nil
	z.todo <- b // never blocks: there are no more blocks than todo has room for
}

// take returns a free block for the caller to fill. While none is free it compresses waiting
// blocks itself: when the caller is ahead of the compressors, its core helps them.
func (z *Writer) take() *block {
	for {
		select {
		case b := <-z.free:
			return z.reset(b)
		default:
		}
		select {
		case b := <-z.free:
			return z.reset(b)
		case b := <-z.todo:
			z.compress(b, &z.fl)
		}
	}
}

func (z *Writer) reset(b *block) *block {
	if b.in == nil {
		b.in = make([]byte, 0, z.blockSize)
	}
	b.in = b.in[:0]
	return b
}

// compress deflates b into b.out (the gzip header first on block 0, the trailer after the
// last) with *fp, the calling goroutine's flate writer (made on first use), and passes it to
// write. After an error nothing more is compressed.
func (z *Writer) compress(b *block, fp **flate.Writer) {
	b.out.Reset()
	if z.err.Load() == nil {
		if b.seq == 0 {
			b.out.Write(header[:])
		}
		if *fp == nil {
			*fp, _ = flate.NewWriter(nil, z.level) // a valid level: no error
		}
		f := *fp
		if len(b.dict) > 0 {
			f.ResetDict(&b.out, b.dict)
		} else {
			f.Reset(&b.out)
		}
		// Writes to a bytes.Buffer do not fail, and neither does flate then.
		f.Write(b.in)
		if b.last {
			f.Close()
			b.out.Write(b.tail)
		} else {
			f.Flush() // ends byte-aligned, so the next block's deflate bytes follow directly
		}
		f.Reset(nil) // drop the reference to b.out
	}
	z.write(b)
}

// write puts b in line and writes every compressed block whose turn has come, in order,
// returning each written block to the free list. The destination's first error is kept.
func (z *Writer) write(b *block) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.ready[b.seq%len(z.ready)] = b
	for {
		i := z.next % len(z.ready)
		b := z.ready[i]
		if b == nil || b.seq != z.next {
			return
		}
		z.ready[i] = nil
		z.next++
		if z.err.Load() == nil {
			if _, err := z.dst.Write(b.out.Bytes()); err != nil {
				z.err.Store(&err)
			}
		}
		if b.last {
			close(z.done)
			return
		}
		z.free <- b // never blocks: free has room for every block
	}
}

// Close compresses what is left, writes the gzip trailer and returns the first error of the
// stream. It does not close the underlying writer.
func (z *Writer) Close() error {
	if z.closed {
		return ErrClosed
	}
	z.closed = true
	z.submit(true)
	// Help with the last blocks rather than wait for them.
	for wait := true; wait; {
		select {
		case b := <-z.todo:
			z.compress(b, &z.fl)
		case <-z.done:
			wait = false
		}
	}
	close(z.todo)
	if e := z.err.Load(); e != nil {
		return *e
	}
	return nil
}

// IsGzip reports whether b starts with gzip's magic bytes: the one test of every reader that
// takes plain or gzip input.
func IsGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }
