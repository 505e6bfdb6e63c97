package parquet

import "encoding/binary"

// Thrift compact protocol types, as a field header or a list header carries them.
const (
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tBinary = 8
	tList   = 9
	tStruct = 12
)

// compact appends Thrift compact protocol to b: the encoding of Parquet's page headers and
// footer. Fields are written in increasing id order within each struct, as the protocol's
// id deltas need.
type compact struct {
	b    []byte
	last int16   // the last field id of the open struct
	outs []int16 // the last field ids of the structs around it
}

func (c *compact) uvarint(v uint64) { c.b = binary.AppendUvarint(c.b, v) }
func (c *compact) zigzag(v int64)   { c.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (c *compact) field(id int16, typ byte) {
	if d := id - c.last; d > 0 && d <= 15 {
		c.b = append(c.b, byte(d)<<4|typ)
	} else {
		c.b = append(c.b, typ)
		c.zigzag(int64(id))
	}
	c.last = id
}

func (c *compact) i32(id int16, v int32) { c.field(id, tI32); c.zigzag(int64(v)) }
func (c *compact) i64(id int16, v int64) { c.field(id, tI64); c.zigzag(v) }
func (c *compact) i16(id int16, v int16) { c.field(id, tI16); c.zigzag(int64(v)) }
func (c *compact) i8(id int16, v int8)   { c.field(id, tByte); c.b = append(c.b, byte(v)) }

func (c *compact) boolean(id int16, v bool) {
	if v {
		c.field(id, tTrue)
	} else {
		c.field(id, tFalse)
	}
}

func (c *compact) binary(id int16, v []byte) { c.field(id, tBinary); c.bytes(v) }
func (c *compact) str(id int16, v string) {
	c.field(id, tBinary)
	c.uvarint(uint64(len(v)))
	c.b = append(c.b, v...)
}

// bytes is a binary value without its field header (a list element).
func (c *compact) bytes(v []byte) { c.uvarint(uint64(len(v))); c.b = append(c.b, v...) }

// list begins field id, a list of n elements of type typ.
func (c *compact) list(id int16, typ byte, n int) {
	c.field(id, tList)
	if n < 15 {
		c.b = append(c.b, byte(n)<<4|typ)
	} else {
		c.b = append(c.b, 0xf0|typ)
		c.uvarint(uint64(n))
	}
}

// begin opens a struct: field id (a field), or a list element (id 0).
func (c *compact) begin(id int16) {
	if id != 0 {
		c.field(id, tStruct)
	}
	c.outs = append(c.outs, c.last)
	c.last = 0
}

// end closes the struct begin opened.
func (c *compact) end() {
	c.b = append(c.b, 0)
	c.last = c.outs[len(c.outs)-1]
	c.outs = c.outs[:len(c.outs)-1]
}

// empty is a field holding an empty struct (a union's member without fields).
func (c *compact) empty(id int16) { c.begin(id); c.end() }

// stop ends the top-level struct.
func (c *compact) stop() { c.b = append(c.b, 0) }
