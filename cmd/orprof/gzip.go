package main

import (
	"compress/gzip"
	"io"
)

func newGzipWriter(w io.Writer) io.WriteCloser {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return zw
}
