package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unsafe"
)

// Codec compresses pages.
type Codec interface {
	// Number is the codec's number in Parquet's CompressionCodec (ZSTD is 6).
	Number() int32
	// Encode appends src compressed to dst[:0].
	Encode(dst, src []byte) ([]byte, error)
}

// KeyValue is an entry of a file's key-value metadata.
type KeyValue struct{ Key, Value string }

// Options tune a Writer. The zero value writes uncompressed pages of 64 KiB in row groups of
// 131,072 rows.
type Options struct {
	Codec Codec
	// PageBytes is about how many bytes of values a page holds before it is cut.
	PageBytes int
	// RowGroupRows is the most rows a row group holds.
	RowGroupRows int
	// CreatedBy is the footer's created_by: "APP version VERSION".
	CreatedBy string
	Meta      []KeyValue
}

// Writer writes rows of T, a struct, as one Parquet file. Each field tagged `parquet:"NAME"`
// is a column, in field order; ",dict" dictionary-encodes a string, ",optional" makes an
// *int64 nullable (nil: null), ",list" makes a []string a LIST. Fields of int64, *int64,
// float64, bool, string and []string may be columns.
type Writer[T any] struct {
	w      *countWriter
	o      Options
	cols   []*column
	rows   int   // in the row group being filled
	total  int64 // in the row groups written
	groups []rowGroup
	err    error
	buf    []byte // compression scratch
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// rowGroup is what the footer says of a written row group.
type rowGroup struct {
	rows, offset, unc, cmp int64
	cols                   []chunkMeta
}

type chunkMeta struct {
	encs             []int32
	values, unc, cmp int64
	dataOff, dictOff int64
	nulls            int64
	lo, hi           []byte
}

// NewWriter returns a Writer of rows of T to w, having written the file's magic number. It
// fails if T is not a struct whose tagged fields can all be columns.
func NewWriter[T any](w io.Writer, o Options) (*Writer[T], error) {
	cols, err := columnsOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	if o.PageBytes <= 0 {
		o.PageBytes = 64 << 10
	}
	if o.RowGroupRows <= 0 {
		o.RowGroupRows = 1 << 17
	}
	cw := &countWriter{w: w}
	_, err = cw.Write([]byte("PAR1"))
	return &Writer[T]{w: cw, o: o, cols: cols, err: err}, err
}

// columnsOf reads the columns of struct type t from its tags.
func columnsOf(t reflect.Type) ([]*column, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("parquet: %s is not a struct", t)
	}
	var cols []*column
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("parquet")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		c := &column{name: name, offset: f.Offset}
		has := func(o string) bool {
			for _, x := range strings.Split(opts, ",") {
				if x == o {
					return true
				}
			}
			return false
		}
		switch ft := f.Type; {
		case ft.Kind() == reflect.Int64 && opts == "":
			c.kind = kInt64
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Int64 && opts == "optional":
			c.kind = kOptInt64
		case ft.Kind() == reflect.Float64 && opts == "":
			c.kind = kDouble
		case ft.Kind() == reflect.Bool && opts == "":
			c.kind = kBool
		case ft.Kind() == reflect.String && (opts == "" || opts == "dict"):
			c.kind, c.dict = kString, has("dict")
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String && opts == "list":
			c.kind = kStringList
		default:
			return nil, fmt.Errorf("parquet: field %s.%s: %s tagged %q cannot be a column", t.Name(), f.Name, ft, tag)
		}
		if name == "" {
			return nil, fmt.Errorf("parquet: field %s.%s has no column name", t.Name(), f.Name)
		}
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("parquet: %s has no tagged field", t)
	}
	return cols, nil
}

// Write appends rows; it returns how many were taken and the first error of the file.
func (w *Writer[T]) Write(rows []T) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	for i := range rows {
		p := unsafe.Pointer(&rows[i])
		for _, c := range w.cols {
			c.add(p)
			if c.pageBytes() >= w.o.PageBytes {
				if w.err = c.flushPage(w.o.Codec, &w.buf); w.err != nil {
					return i, w.err
				}
			}
		}
		w.rows++
		if w.rows == w.o.RowGroupRows {
			if w.err = w.flushGroup(); w.err != nil {
				return i + 1, w.err
			}
		}
	}
	return len(rows), nil
}

// flushGroup writes the row group being filled: each column's dictionary page, if any, then
// its data pages.
func (w *Writer[T]) flushGroup() error {
	if w.rows == 0 {
		return nil
	}
	g := rowGroup{rows: int64(w.rows), offset: w.w.n}
	for _, c := range w.cols {
		if err := c.flushPage(w.o.Codec, &w.buf); err != nil {
			return err
		}
		m := chunkMeta{dataOff: w.w.n, nulls: c.nulls, values: c.values, unc: c.unc, cmp: c.cmp}
		if c.dict {
			page, unc, err := c.dictPage(w.o.Codec, &w.buf)
			if err != nil {
				return err
			}
			m.dictOff = w.w.n
			if _, err := w.w.Write(page); err != nil {
				return err
			}
			m.dataOff = w.w.n
			m.unc += int64(unc)
			m.cmp += int64(len(page))
			m.encs = append(m.encs, encPlain)
		}
		for _, e := range c.encs {
			m.encs = addEnc(m.encs, e)
		}
		if _, err := w.w.Write(c.pages.Bytes()); err != nil {
			return err
		}
		m.lo, m.hi = c.minMax()
		g.unc += m.unc
		g.cmp += m.cmp
		g.cols = append(g.cols, m)
		c.reset()
	}
	w.groups = append(w.groups, g)
	w.total += g.rows
	w.rows = 0
	return nil
}

// Close writes the last row group and the footer. It does not close the underlying writer.
func (w *Writer[T]) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.err = w.flushGroup(); w.err != nil {
		return w.err
	}
	footer := w.footer()
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	_, w.err = w.w.Write(footer)
	if w.err == nil {
		w.err = errClosed
		return nil
	}
	return w.err
}

var errClosed = fmt.Errorf("parquet: write after Close")

// footer is the FileMetaData.
func (w *Writer[T]) footer() []byte {
	var c compact
	c.i32(1, fileVersion)
	// The schema: its root, then every column (a list's group, its repeated group and its
	// element).
	n := 1
	for _, col := range w.cols {
		n++
		if col.kind == kStringList {
			n += 2
		}
	}
	c.list(2, tStruct, n)
	c.begin(0)
	c.str(4, "schema")
	c.i32(5, int32(len(w.cols)))
	c.end()
	for _, col := range w.cols {
		if col.kind == kStringList {
			c.begin(0)
			c.i32(3, repRequired)
			c.str(4, col.name)
			c.i32(5, 1)
			c.i32(6, convList)
			c.begin(10)
			c.empty(3)
			c.end()
			c.end()
			c.begin(0)
			c.i32(3, repRepeated)
			c.str(4, "list")
			c.i32(5, 1)
			c.end()
			leaf(&c, col, "element", repRequired)
			continue
		}
		rep := int32(repRequired)
		if col.kind == kOptInt64 {
			rep = repOptional
		}
		leaf(&c, col, col.name, rep)
	}
	c.i64(3, w.total)
	c.list(4, tStruct, len(w.groups))
	for gi, g := range w.groups {
		c.begin(0)
		c.list(1, tStruct, len(g.cols))
		for i, m := range g.cols {
			col := w.cols[i]
			c.begin(0)
			start := m.dataOff
			if col.dict {
				start = m.dictOff
			}
			c.i64(2, start)
			c.begin(3)
			c.i32(1, col.physical())
			c.list(2, tI32, len(m.encs))
			for _, e := range m.encs {
				c.zigzag(int64(e))
			}
			path := []string{col.name}
			if col.kind == kStringList {
				path = append(path, "list", "element")
			}
			c.list(3, tBinary, len(path))
			for _, p := range path {
				c.bytes([]byte(p))
			}
			codec := int32(0)
			if w.o.Codec != nil {
				codec = w.o.Codec.Number()
			}
			c.i32(4, codec)
			c.i64(5, m.values)
			c.i64(6, m.unc)
			c.i64(7, m.cmp)
			c.i64(9, m.dataOff)
			if col.dict {
				c.i64(11, m.dictOff)
			}
			c.begin(12)
			if m.lo != nil && col.kind != kString && col.kind != kStringList {
				// The fields readers before min_value and max_value read: signed order,
				// which is a number's own.
				c.binary(1, m.hi)
				c.binary(2, m.lo)
			}
			c.i64(3, m.nulls)
			if m.lo != nil {
				c.binary(5, m.hi)
				c.binary(6, m.lo)
			}
			c.end()
			c.end()
			c.end()
		}
		c.i64(2, g.unc)
		c.i64(3, g.rows)
		c.i64(5, g.offset)
		c.i64(6, g.cmp)
		c.i16(7, int16(min(gi, 1<<15-1)))
		c.end()
	}
	if len(w.o.Meta) > 0 {
		c.list(5, tStruct, len(w.o.Meta))
		for _, kv := range w.o.Meta {
			c.begin(0)
			c.str(1, kv.Key)
			c.str(2, kv.Value)
			c.end()
		}
	}
	if w.o.CreatedBy != "" {
		c.str(6, w.o.CreatedBy)
	}
	c.list(7, tStruct, len(w.cols))
	for range w.cols {
		c.begin(0)
		c.empty(1)
		c.end()
	}
	c.stop()
	return c.b
}

// leaf writes the schema element of a column's values.
func leaf(c *compact, col *column, name string, rep int32) {
	c.begin(0)
	c.i32(1, col.physical())
	c.i32(3, rep)
	c.str(4, name)
	switch col.kind {
	case kString, kStringList:
		c.i32(6, convUTF8)
		c.begin(10)
		c.empty(1)
		c.end()
	case kInt64, kOptInt64:
		c.i32(6, convInt64)
		c.begin(10)
		c.begin(10)
		c.i8(1, 64)
		c.boolean(2, true)
		c.end()
		c.end()
	}
	c.end()
}
