package main

import (
	"io"

	"github.com/orprof/orprof/internal/gz"
)

// newGzipWriter is the writer of `--trace x.gz`: package gz's pipelined BestSpeed gzip.
func newGzipWriter(w io.Writer) io.WriteCloser { return gz.NewWriter(w) }
