package tracefile

import (
	"io"
	"sync"
)

// readAhead reads its source on its own goroutine into a few fixed buffers, so that a slow
// source (gzip inflation) runs concurrently with the consumer. It is an io.Reader for one
// consumer goroutine; Close stops the producer and must be called once reading is done.
type readAhead struct {
	full chan []byte // chunks read, in order; closed after the last one
	free chan []byte // empty buffers for the producer
	done chan struct{}
	exit chan struct{} // closed when the producer has returned
	err  error         // the producer's final error (io.EOF at a clean end); read after full is closed
	cur  []byte
	back []byte // the buffer cur points into, returned to free when consumed
	once sync.Once
}

const (
	readAheadBufs = 4
	readAheadSize = 512 << 10
)

func newReadAhead(src io.Reader) *readAhead {
	ra := &readAhead{
		full: make(chan []byte, readAheadBufs),
		free: make(chan []byte, readAheadBufs),
		done: make(chan struct{}),
		exit: make(chan struct{}),
	}
	for range readAheadBufs {
		ra.free <- make([]byte, readAheadSize)
	}
	go ra.produce(src)
	return ra
}

func (ra *readAhead) produce(src io.Reader) {
	defer close(ra.exit)
	defer close(ra.full)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			ra.err = io.ErrClosedPipe
			return
		}
		n, err := readPrefix(src, buf)
		if err == nil && n < len(buf) {
			err = io.EOF
		}
		if n > 0 {
			select {
			case ra.full <- buf[:n]:
			case <-ra.done:
				ra.err = io.ErrClosedPipe
				return
			}
		}
		if err != nil {
			ra.err = err
			return
		}
	}
}

// Read copies buffered bytes into p, waiting for the producer when none are buffered.
func (ra *readAhead) Read(p []byte) (int, error) {
	if len(ra.cur) == 0 {
		if ra.back != nil {
			ra.free <- ra.back[:cap(ra.back)]
			ra.back = nil
		}
		chunk, ok := <-ra.full
		if !ok {
			return 0, ra.err
		}
		ra.cur, ra.back = chunk, chunk
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the producer goroutine and waits for it to return (it finishes the source read
// it may be in), so the source is not used after Close. It does not close the source.
func (ra *readAhead) Close() error {
	ra.once.Do(func() { close(ra.done) })
	<-ra.exit
	return nil
}
