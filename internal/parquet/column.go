package parquet

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// kind is a column's Go field type and what it is written as.
type kind uint8

const (
	kInt64      kind = iota // int64: required INT64
	kOptInt64               // *int64: optional INT64
	kDouble                 // float64: required DOUBLE
	kBool                   // bool: required BOOLEAN
	kString                 // string: required BYTE_ARRAY (STRING)
	kStringList             // []string: a required LIST of required STRING elements
)

// Parquet's numbers for what the footer and page headers name.
const (
	typeBoolean   = 0
	typeInt64     = 2
	typeDouble    = 5
	typeByteArray = 6

	encPlain     = 0
	encRLE       = 3
	encRLEDict   = 8
	pageData     = 0
	pageDict     = 2
	repRequired  = 0
	repOptional  = 1
	repRepeated  = 2
	convUTF8     = 0
	convList     = 3
	convInt64    = 18
	fileVersion  = 2
	levelBitSize = 1 // every level here is 0 or 1
)

// column buffers one column's values: the current page's, then the row group's pages.
type column struct {
	name   string
	kind   kind
	dict   bool
	offset uintptr // of the field in the row struct

	// The page being filled.
	rep, def []uint8  // levels (list: rep and def; optional: def)
	vals     []byte   // PLAIN values (not dictionary indexes)
	idx      []uint32 // dictionary indexes
	maxIdx   uint32
	bools    []bool
	n        int // level entries (values and nulls) in the page

	// The row group so far.
	pages    bytes.Buffer // its data pages, compressed, with their headers
	unc, cmp int64        // their sizes, headers included
	values   int64        // level entries
	nulls    int64
	encs     []int32
	dictMap  map[string]uint32
	dictVals []byte // the dictionary's PLAIN values
	dictN    int
	st       stats

	page []byte // scratch: an uncompressed page
}

// stats are a column chunk's minimum and maximum (of the values that are not null).
type stats struct {
	has        bool
	minI, maxI int64
	minF, maxF float64
	hasF       bool // a double column saw a value that is not NaN
	minS, maxS string
	minB, maxB bool
}

func (s *stats) int(v int64) {
	if !s.has {
		s.has, s.minI, s.maxI = true, v, v
		return
	}
	s.minI, s.maxI = min(s.minI, v), max(s.maxI, v)
}

func (s *stats) float(v float64) {
	s.has = true
	if v != v {
		return // NaN orders with nothing
	}
	if !s.hasF {
		s.hasF, s.minF, s.maxF = true, v, v
		return
	}
	s.minF, s.maxF = min(s.minF, v), max(s.maxF, v)
}

func (s *stats) str(v string) {
	if !s.has {
		s.has, s.minS, s.maxS = true, v, v
		return
	}
	if v < s.minS {
		s.minS = v
	}
	if v > s.maxS {
		s.maxS = v
	}
}

func (s *stats) boolean(v bool) {
	if !s.has {
		s.has, s.minB, s.maxB = true, v, v
		return
	}
	s.minB, s.maxB = s.minB && v, s.maxB || v
}

// maxDef and maxRep are the column's highest definition and repetition levels.
func (c *column) maxDef() int {
	if c.kind == kOptInt64 || c.kind == kStringList {
		return 1
	}
	return 0
}

func (c *column) maxRep() int {
	if c.kind == kStringList {
		return 1
	}
	return 0
}

// physical is the column's Parquet type.
func (c *column) physical() int32 {
	switch c.kind {
	case kDouble:
		return typeDouble
	case kBool:
		return typeBoolean
	case kString, kStringList:
		return typeByteArray
	}
	return typeInt64
}

// add appends the field of the row at p.
func (c *column) add(p unsafe.Pointer) {
	f := unsafe.Add(p, c.offset)
	switch c.kind {
	case kInt64:
		v := *(*int64)(f)
		c.vals = binary.LittleEndian.AppendUint64(c.vals, uint64(v))
		c.st.int(v)
	case kOptInt64:
		if v := *(**int64)(f); v != nil {
			c.def = append(c.def, 1)
			c.vals = binary.LittleEndian.AppendUint64(c.vals, uint64(*v))
			c.st.int(*v)
		} else {
			c.def = append(c.def, 0)
			c.nulls++
		}
	case kDouble:
		v := *(*float64)(f)
		c.vals = binary.LittleEndian.AppendUint64(c.vals, math.Float64bits(v))
		c.st.float(v)
	case kBool:
		v := *(*bool)(f)
		c.bools = append(c.bools, v)
		c.st.boolean(v)
	case kString:
		c.str(*(*string)(f))
	case kStringList:
		l := *(*[]string)(f)
		if len(l) == 0 {
			c.rep, c.def = append(c.rep, 0), append(c.def, 0)
			c.n++
			return
		}
		for i, s := range l {
			c.rep, c.def = append(c.rep, min(uint8(i), 1)), append(c.def, 1)
			c.str(s)
			c.n++
		}
		return
	}
	c.n++
}

// str appends a string value: its dictionary index, or its PLAIN bytes.
func (c *column) str(s string) {
	if !c.dict {
		c.vals = binary.LittleEndian.AppendUint32(c.vals, uint32(len(s)))
		c.vals = append(c.vals, s...)
		c.st.str(s)
		return
	}
	i, ok := c.dictMap[s]
	if !ok {
		if c.dictMap == nil {
			c.dictMap = map[string]uint32{}
		}
		i = uint32(c.dictN)
		c.dictMap[s] = i
		c.dictN++
		c.dictVals = binary.LittleEndian.AppendUint32(c.dictVals, uint32(len(s)))
		c.dictVals = append(c.dictVals, s...)
		c.st.str(s)
	}
	c.idx = append(c.idx, i)
	c.maxIdx = max(c.maxIdx, i)
}

// pageBytes is about what the page's values take, to cut pages by.
func (c *column) pageBytes() int { return len(c.vals) + 4*len(c.idx) + len(c.bools)/8 + len(c.def) }

// flushPage encodes the page being filled into the row group's pages.
func (c *column) flushPage(codec Codec, scratch *[]byte) error {
	if c.n == 0 {
		return nil
	}
	p := c.page[:0]
	levels := func(l []uint8) {
		at := len(p)
		p = append(p, 0, 0, 0, 0)
		p = appendHybrid(p, l, levelBitSize)
		binary.LittleEndian.PutUint32(p[at:], uint32(len(p)-at-4))
	}
	if c.maxRep() > 0 {
		levels(c.rep)
	}
	if c.maxDef() > 0 {
		levels(c.def)
	}
	enc := int32(encPlain)
	switch {
	case c.dict:
		enc = encRLEDict
		w := max(bits.Len32(c.maxIdx), 1)
		p = append(p, byte(w))
		p = appendHybrid(p, c.idx, w)
	case c.kind == kBool:
		p = appendBools(p, c.bools)
	default:
		p = append(p, c.vals...)
	}
	c.page = p
	var h compact
	h.i32(1, pageData)
	h.i32(2, int32(len(p)))
	body, err := compress(codec, scratch, p)
	if err != nil {
		return err
	}
	h.i32(3, int32(len(body)))
	h.begin(5)
	h.i32(1, int32(c.n))
	h.i32(2, enc)
	h.i32(3, encRLE)
	h.i32(4, encRLE)
	h.end()
	h.stop()
	c.pages.Write(h.b)
	c.pages.Write(body)
	c.unc += int64(len(h.b) + len(p))
	c.cmp += int64(len(h.b) + len(body))
	c.values += int64(c.n)
	c.rep, c.def, c.vals, c.idx, c.bools = c.rep[:0], c.def[:0], c.vals[:0], c.idx[:0], c.bools[:0]
	c.n, c.maxIdx = 0, 0
	c.encs = addEnc(c.encs, enc)
	if c.maxDef() > 0 {
		c.encs = addEnc(c.encs, encRLE)
	}
	return nil
}

// dictPage returns the dictionary page of the row group, header and body, and its
// uncompressed size.
func (c *column) dictPage(codec Codec, scratch *[]byte) ([]byte, int, error) {
	body, err := compress(codec, scratch, c.dictVals)
	if err != nil {
		return nil, 0, err
	}
	var h compact
	h.i32(1, pageDict)
	h.i32(2, int32(len(c.dictVals)))
	h.i32(3, int32(len(body)))
	h.begin(7)
	h.i32(1, int32(c.dictN))
	h.i32(2, encPlain)
	h.end()
	h.stop()
	return append(h.b, body...), len(h.b) + len(c.dictVals), nil
}

// reset empties the row group's state once it is written.
func (c *column) reset() {
	c.pages.Reset()
	c.unc, c.cmp, c.values, c.nulls = 0, 0, 0, 0
	c.encs = c.encs[:0]
	clear(c.dictMap)
	c.dictVals, c.dictN = c.dictVals[:0], 0
	c.st = stats{}
}

// minMax returns the chunk's statistics as PLAIN values (nil: none).
func (c *column) minMax() (lo, hi []byte) {
	s := &c.st
	if !s.has {
		return nil, nil
	}
	switch c.kind {
	case kInt64, kOptInt64:
		return binary.LittleEndian.AppendUint64(nil, uint64(s.minI)), binary.LittleEndian.AppendUint64(nil, uint64(s.maxI))
	case kDouble:
		if !s.hasF {
			return nil, nil
		}
		lo, hi := s.minF, s.maxF
		if lo == 0 {
			lo = math.Copysign(0, -1) // a zero minimum is written -0, a zero maximum +0
		}
		if hi == 0 {
			hi = 0
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(lo)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(hi))
	case kBool:
		return []byte{b2u(s.minB)}, []byte{b2u(s.maxB)}
	}
	return []byte(s.minS), []byte(s.maxS)
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func addEnc(encs []int32, e int32) []int32 {
	for _, x := range encs {
		if x == e {
			return encs
		}
	}
	return append(encs, e)
}

// appendBools appends PLAIN booleans: one bit each, least significant first.
func appendBools(dst []byte, v []bool) []byte {
	for i := 0; i < len(v); i += 8 {
		var b byte
		for j := i; j < min(i+8, len(v)); j++ {
			b |= b2u(v[j]) << (j - i)
		}
		dst = append(dst, b)
	}
	return dst
}

// compress returns src compressed by codec (src itself when there is none), in *scratch.
func compress(codec Codec, scratch *[]byte, src []byte) ([]byte, error) {
	if codec == nil {
		return src, nil
	}
	out, err := codec.Encode((*scratch)[:0], src)
	*scratch = out
	return out, err
}
