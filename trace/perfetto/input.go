package perfetto

import (
	"bufio"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
)

// FileInput is the input of a trace file, plain or gzip-compressed (by its first bytes).
func FileInput(path string) Input {
	return Input{Name: path, Open: func() (io.ReadCloser, error) { return openTrace(path) }}
}

type gzFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzFile) Close() error {
	g.Reader.Close()
	return g.f.Close()
}

type plainFile struct {
	*bufio.Reader
	f *os.File
}

func (p plainFile) Close() error { return p.f.Close() }

func openTrace(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, err
		}
		return gzFile{z, f}, nil
	}
	return plainFile{br, f}, nil
}
