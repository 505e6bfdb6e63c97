package main

import (
	"io"

	"github.com/orprof/orprof/internal/gz"
)

// newGzipWriter is the writer of `--trace x.gz`: package gz's BestSpeed gzip, compressed in
// blocks on every core while the trace is encoded.
func newGzipWriter(w io.Writer) io.WriteCloser { return gz.NewWriter(w) }
