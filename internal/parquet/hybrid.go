package parquet

import "encoding/binary"

// appendHybrid appends vals in the RLE/bit-packed hybrid encoding at width bits a value (1 to
// 32): a run of 8 or more equal values is one RLE run, the values between are bit-packed in
// groups of 8. Only the last group is padded (with zeros): the reader knows the count.
func appendHybrid[V uint8 | uint32](dst []byte, vals []V, width int) []byte {
	n := len(vals)
	runEnd := func(i int) int {
		j := i + 1
		for j < n && vals[j] == vals[i] {
			j++
		}
		return j
	}
	for i := 0; i < n; {
		if j := runEnd(i); j-i >= 8 {
			dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
			v := uint32(vals[i])
			for k := 0; k < (width+7)/8; k++ {
				dst = append(dst, byte(v>>(8*k)))
			}
			i = j
			continue
		}
		start := i
		for i < n {
			j := runEnd(i)
			if j-i >= 8 {
				break
			}
			i = j
		}
		// The literal ends on a multiple of 8, taking the head of the run after it if need
		// be, or the last values padded.
		end := min(start+(i-start+7)/8*8, n)
		dst = appendPacked(dst, vals[start:end], width)
		i = end
	}
	return dst
}

// appendPacked appends vals bit-packed, least significant bit first, as ⌈len/8⌉ groups of 8
// with their header.
func appendPacked[V uint8 | uint32](dst []byte, vals []V, width int) []byte {
	groups := (len(vals) + 7) / 8
	dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
	var acc uint64
	var bits int
	for i := range groups * 8 {
		var v uint64
		if i < len(vals) {
			v = uint64(vals[i])
		}
		acc |= v << bits
		bits += width
		for bits >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			bits -= 8
		}
	}
	return dst
}
