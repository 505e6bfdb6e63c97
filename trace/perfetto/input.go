package perfetto

import (
	"bufio"
	"io"
	"os"

	"github.com/orprof/orprof/internal/gz"
)

// FileInput is the input of a trace file, plain or gzip-compressed (by its first bytes).
func FileInput(path string) Input {
	return Input{Name: path, Open: func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return Decompress(f)
	}}
}

// Decompress returns the trace rc holds, gzip-compressed or not (by its first bytes); a
// compressed one is inflated on a goroutine of its own, a block ahead of its reader. Closing
// the result closes rc.
func Decompress(rc io.ReadCloser) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(rc, 1<<16)
	head, _ := br.Peek(2)
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return readCloser{br, rc}, nil
	}
	z, err := gz.NewReader(br)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return newAhead(z, rc), nil
}

type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// ahead reads its source on a goroutine of its own into blocks handed over a channel, so that
// inflating and parsing use two cores.
type ahead struct {
	blocks chan aheadBlock
	free   chan []byte
	done   chan struct{}
	cur    []byte // the unread part of buf
	buf    []byte
	err    error
	c      io.Closer
}

type aheadBlock struct {
	b   []byte
	err error
}

const aheadSize = 1 << 18

func newAhead(r io.Reader, c io.Closer) *ahead {
	a := &ahead{blocks: make(chan aheadBlock, 1), free: make(chan []byte, 2), done: make(chan struct{}), c: c}
	for range 2 {
		a.free <- make([]byte, aheadSize)
	}
	go func() {
		defer close(a.blocks)
		for {
			var buf []byte
			select {
			case buf = <-a.free:
			case <-a.done:
				return
			}
			n, err := io.ReadFull(r, buf)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case a.blocks <- aheadBlock{buf[:n], err}:
			case <-a.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

func (a *ahead) Read(p []byte) (int, error) {
	for len(a.cur) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		blk, ok := <-a.blocks
		if !ok {
			return 0, io.EOF
		}
		a.cur, a.buf, a.err = blk.b, blk.b, blk.err
		if len(a.cur) == 0 && a.err == nil {
			continue
		}
	}
	n := copy(p, a.cur)
	a.cur = a.cur[n:]
	if len(a.cur) == 0 {
		// The block is read: give its buffer back (a full one; the last may be short).
		select {
		case a.free <- a.buf[:cap(a.buf)]:
		default:
		}
	}
	return n, nil
}

func (a *ahead) Close() error {
	close(a.done)
	return a.c.Close()
}
