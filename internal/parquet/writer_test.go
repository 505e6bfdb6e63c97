package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type row struct {
	A    int64    `parquet:"a"`
	B    *int64   `parquet:"b,optional"`
	C    float64  `parquet:"c"`
	D    bool     `parquet:"d"`
	S    string   `parquet:"s,dict"`
	P    string   `parquet:"p"`
	L    []string `parquet:"l,list"`
	skip int
}

// rowsN makes n rows; with runs > 1, the dictionary strings, booleans and nulls come in runs
// of that many rows (the RLE runs of indexes and levels).
func rowsN(n, runs int) []row {
	out := make([]row, n)
	for i := range out {
		j := i / runs
		r := row{A: int64(i*7 - 50), C: float64(i) / 3, D: j%3 == 0, S: fmt.Sprintf("name%d", j%13),
			P: fmt.Sprintf("plain-%d", i)}
		if j%4 != 0 {
			v := int64(i) << 33
			r.B = &v
		}
		for k := range i % 4 {
			r.L = append(r.L, fmt.Sprintf("e%d.%d", i, k))
		}
		out[i] = r
	}
	return out
}

// TestReadBack: files written with every column kind, small and large pages and row groups,
// read back by parquet-go (another implementation) row for row.
func TestReadBack(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		runs      int
		pageBytes int
		group     int
	}{
		{"empty", 0, 1, 0, 0},
		{"one", 1, 1, 0, 0},
		{"one page", 1000, 1, 0, 0},
		{"runs", 1000, 100, 0, 0},
		{"many pages", 5000, 1, 512, 0},
		{"many pages of runs", 5000, 37, 512, 0},
		{"many groups", 5000, 3, 256, 777},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := rowsN(c.n, c.runs)
			var b bytes.Buffer
			w, err := NewWriter[row](&b, Options{PageBytes: c.pageBytes, RowGroupRows: c.group, CreatedBy: "orprof test",
				Meta: []KeyValue{{"k", "v"}}})
			require.NoError(t, err)
			for len(rows) > 0 {
				k := min(len(rows), 333)
				n, err := w.Write(rows[:k])
				require.NoError(t, err)
				require.Equal(t, k, n)
				rows = rows[k:]
			}
			require.NoError(t, w.Close())
			got, err := pq.Read[row](bytes.NewReader(b.Bytes()), int64(b.Len()))
			require.NoError(t, err)
			want := rowsN(c.n, c.runs)
			require.Len(t, got, len(want))
			for i := range want {
				if len(want[i].L) == 0 {
					want[i].L = nil
				}
				if len(got[i].L) == 0 {
					got[i].L = nil
				}
				require.Equal(t, want[i], got[i], "row %d", i)
			}
			f, err := pq.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
			require.NoError(t, err)
			v, ok := f.Lookup("k")
			assert.True(t, ok)
			assert.Equal(t, "v", v)
			assert.Equal(t, "orprof test", f.Metadata().CreatedBy)
		})
	}
}

// TestDoubleStats: NaN is left out of a DOUBLE column's minimum and maximum; a zero minimum
// is written -0 and a zero maximum +0, as the format asks.
func TestDoubleStats(t *testing.T) {
	c := &column{kind: kDouble}
	for _, v := range []float64{math.NaN(), 2, 0, -1, 5} {
		c.st.float(v)
	}
	lo, hi := c.minMax()
	assert.Equal(t, -1.0, math.Float64frombits(binary.LittleEndian.Uint64(lo)))
	assert.Equal(t, 5.0, math.Float64frombits(binary.LittleEndian.Uint64(hi)))
	c = &column{kind: kDouble}
	c.st.float(0)
	lo, hi = c.minMax()
	assert.True(t, math.Signbit(math.Float64frombits(binary.LittleEndian.Uint64(lo))), "min -0")
	assert.False(t, math.Signbit(math.Float64frombits(binary.LittleEndian.Uint64(hi))), "max +0")
	c = &column{kind: kDouble}
	c.st.float(math.NaN())
	lo, hi = c.minMax()
	assert.Nil(t, lo)
	assert.Nil(t, hi)
}

// TestRefused: a type that is not a struct of the column kinds is refused with the field
// named; a Writer refuses rows after Close.
func TestRefused(t *testing.T) {
	type badInt struct {
		N int32 `parquet:"n"`
	}
	type badOpt struct {
		N *int64 `parquet:"n"`
	}
	type none struct{ N int64 }
	for _, c := range []struct {
		name string
		new  func() error
		want string
	}{
		{"int32", func() error { _, err := NewWriter[badInt](&bytes.Buffer{}, Options{}); return err }, "badInt.N: int32"},
		{"pointer without optional", func() error { _, err := NewWriter[badOpt](&bytes.Buffer{}, Options{}); return err }, "badOpt.N"},
		{"no tag", func() error { _, err := NewWriter[none](&bytes.Buffer{}, Options{}); return err }, "no tagged field"},
		{"not a struct", func() error { _, err := NewWriter[int](&bytes.Buffer{}, Options{}); return err }, "not a struct"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.new()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	w, err := NewWriter[row](&bytes.Buffer{}, Options{})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	_, err = w.Write(rowsN(1, 1))
	assert.Error(t, err)
}
