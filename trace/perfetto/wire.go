package perfetto

import (
	"encoding/binary"
	"math"
)

// Protocol buffers wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

// appendVarint appends v as a base-128 varint.
func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// varintLen is the length of v as a varint.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendTag(b []byte, field int, wire int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wire))
}

// appendUint appends a varint field (uint32, uint64, enum, bool).
func appendUint(b []byte, field int, v uint64) []byte {
	return appendVarint(appendTag(b, field, wireVarint), v)
}

// appendInt appends an int64 (or int32) field: two's complement, as protobuf encodes int64.
func appendInt(b []byte, field int, v int64) []byte {
	return appendVarint(appendTag(b, field, wireVarint), uint64(v))
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendDouble(b []byte, field int, f float64) []byte {
	return appendFixed64(b, field, math.Float64bits(f))
}

// appendString appends a length-delimited field (string, bytes or an encoded message).
func appendString[S ~string | ~[]byte](b []byte, field int, s S) []byte {
	b = appendVarint(appendTag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// openMsg starts a nested message: its tag and one byte of room for its length, which
// closeMsg fills (moving the body when the length needs more bytes). It returns the offset
// of the body.
func openMsg(b []byte, field int) ([]byte, int) {
	b = appendTag(b, field, wireBytes)
	b = append(b, 0)
	return b, len(b)
}

// closeMsg writes the length of the message whose body starts at start.
func closeMsg(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-1] = byte(n)
		return b
	}
	extra := varintLen(uint64(n)) - 1
	for range extra {
		b = append(b, 0)
	}
	copy(b[start+extra:], b[start:start+n])
	v := uint64(n)
	i := start - 1
	for v >= 0x80 {
		b[i] = byte(v) | 0x80
		v >>= 7
		i++
	}
	b[i] = byte(v)
	return b
}
