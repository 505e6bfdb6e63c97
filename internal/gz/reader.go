package gz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"sync"
)

// Reader decompresses gzip input (RFC 1952) of one or more members, as gzip -d reads it, and
// counts the bytes after the last member that do not start another one (TrailingBytes)
// instead of failing on them. Its DEFLATE decoder (RFC 1951) writes into one flat buffer with
// the 32 KiB window in front, reads the input 64 bits at a time, and copies matches 8 bytes
// at a time, faster than github.com/klauspost/compress/gzip (BenchmarkInflateMTIA and
// docs/performance.md say by how much). Every member's CRC-32 and
// length are checked.
//
// Errors wrap ErrHeader, ErrCorrupt or ErrChecksum and name the compressed byte offset near
// the problem; input that ends inside a member gives ErrTruncated (io.ErrUnexpectedEOF) after
// the bytes it holds, none decoded from past its end; a read error of the source is returned
// as it is. Like any io.Reader, a Reader is used by one goroutine at a time.
type Reader struct {
	src    io.Reader
	in     []byte // compressed input; in[ip:iend] is unread
	ip     int
	iend   int
	inOff  int64 // compressed offset of in[0]
	srcEOF bool  // src is exhausted (or failed, srcErr)
	srcErr error

	// The bit buffer: nb bits of input, lowest first. overread counts the zero bytes loaded
	// past the end of the input, which must never be consumed.
	b        uint64
	nb       uint
	overread int

	out []byte // window then decoded output; out[rp:op] is not handed out yet
	rp  int
	op  int
	lo  int // first byte of out that is this member's output (matches may not reach before)

	state  int
	final  bool // the current block is the member's last
	stored int  // bytes left in the current stored block
	crc    uint32
	size   uint32 // this member's output length, mod 2^32
	err    error  // sticky: io.EOF after the last member, or the failure

	trailing int64

	lit     *litTable // decoding tables of the current Huffman block
	dist    *distTable
	eobLen  uint      // the length of its end-of-block code
	dynLit  *litTable // storage for dynamic tables
	dynDist *distTable
	lens    [maxLit + maxDist]uint8
	maxLen  []uint8 // table-building scratch
}

// Errors the Reader wraps.
var (
	ErrHeader   = errors.New("gzip: invalid header")
	ErrCorrupt  = errors.New("gzip: corrupt deflate data")
	ErrChecksum = errors.New("gzip: checksum or length mismatch")
	// ErrTruncated is input that ends inside a member; errors.Is(ErrTruncated,
	// io.ErrUnexpectedEOF) holds. Everything decoded before it is a true prefix of the data.
	ErrTruncated error = truncated{}
)

type truncated struct{}

func (truncated) Error() string        { return "the .gz ends inside a member (the file is cut short)" }
func (truncated) Is(target error) bool { return target == io.ErrUnexpectedEOF }

const (
	window   = 32 << 10 // DEFLATE's largest match distance
	outChunk = 1 << 20  // output decoded per fill
	inSize   = 256 << 10
	maxMatch = 258
	// outSlack is room past the output limit for one match copied 8 bytes at a time.
	outSlack = maxMatch + 8

	maxLit  = 288
	maxDist = 32

	litBits  = 10 // index bits of the main literal/length table
	distBits = 8  // and of the distance table
)

// The tables' sizes are powers of two, so that a masked index needs no bounds check, and
// hold the main table and every subtable: at most one subtable of at most 2^(15−width)
// entries per symbol (286 literal/length, 30 distance symbols).
type (
	litTable  [1 << 14]uint32 // ≥ 2^10 + 286·2^5
	distTable [1 << 12]uint32 // ≥ 2^8 + 30·2^7
)

// Decoder states.
const (
	stBlock   = iota // a block header is next
	stHuff           // inside a Huffman block
	stStored         // inside a stored block
	stTrailer        // the member's CRC-32 and length are next
	stNext           // after a member: another one, trailing bytes or the end
	stDone
)

// Table entries: bits 0–7 the code length to consume, 8–11 the extra bits that follow, 12–15
// the kind, 16–31 the value (a literal byte, a length or distance base, or a subtable's
// start). An entry of 0 is a code the table does not have.
const (
	fLit = 1 << 12 // a literal byte
	fLen = 1 << 13 // a length (literal/length table) or a distance (distance table)
	fEOB = 1 << 14 // end of block
	fSub = 1 << 15 // a link to a subtable indexed by the bits after the main table's; the
	// extra-bits field holds the subtable's index width
)

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

	distBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

	codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

	litSym  [maxLit]uint32
	distSym [maxDist]uint32 // a symbol's entry without its code length

	fixedOnce sync.Once
	fixedLit  = new(litTable)
	fixedDis  = new(distTable)
)

func init() {
	for s := range 256 {
		litSym[s] = uint32(s)<<16 | fLit
	}
	litSym[256] = fEOB
	for i := range lenBase {
		litSym[257+i] = uint32(lenBase[i])<<16 | fLen | uint32(lenExtra[i])<<8
	}
	for i := range distBase {
		distSym[i] = uint32(distBase[i])<<16 | fLen | uint32(distExtra[i])<<8
	}
}

func fixedTables() {
	fixedOnce.Do(func() {
		var lens [maxLit]uint8
		for i := range lens {
			switch {
			case i < 144:
				lens[i] = 8
			case i < 256:
				lens[i] = 9
			case i < 280:
				lens[i] = 7
			default:
				lens[i] = 8
			}
		}
		var scratch []uint8
		if !buildTable(fixedLit[:], lens[:], litSym[:], litBits, &scratch) {
			panic("gz: fixed literal table")
		}
		var d [maxDist]uint8
		for i := range d {
			d[i] = 5
		}
		if !buildTable(fixedDis[:], d[:], distSym[:], distBits, &scratch) {
			panic("gz: fixed distance table")
		}
	})
}

// NewReader returns a Reader of the gzip input r. It reads the first member's header and
// fails (wrapping ErrHeader, or io.ErrUnexpectedEOF) when r does not start with one.
func NewReader(r io.Reader) (*Reader, error) {
	fixedTables()
	z := &Reader{src: r, in: make([]byte, inSize), out: make([]byte, window+outChunk+outSlack)}
	if err := z.header(); err != nil {
		return nil, err
	}
	z.state = stBlock
	return z, nil
}

// TrailingBytes is the number of bytes after the last member that were ignored; it is final
// once Read has returned io.EOF.
func (z *Reader) TrailingBytes() int64 { return z.trailing }

// Read reads decompressed bytes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.rp == z.op {
		if z.err != nil {
			return 0, z.err
		}
		z.fill()
	}
	n := copy(p, z.out[z.rp:z.op])
	z.rp += n
	return n, nil
}

// WriteTo writes all the decompressed bytes to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if z.rp < z.op {
			n, err := w.Write(z.out[z.rp:z.op])
			total += int64(n)
			z.rp += n
			if err != nil {
				return total, err
			}
			continue
		}
		if z.err == io.EOF {
			return total, nil
		}
		if z.err != nil {
			return total, z.err
		}
		z.fill()
	}
}

// fill decodes up to outChunk more bytes into out, or sets err. All of out[rp:op] has been
// handed out.
func (z *Reader) fill() {
	if z.op > window+outChunk/2 {
		// Keep the window in front; the rest of out is free again.
		shift := z.op - window
		copy(z.out, z.out[shift:z.op])
		z.op, z.rp = window, window
		z.lo = max(z.lo-shift, 0)
	}
	start := z.op
	limit := len(z.out) - outSlack
	for z.err == nil && z.op < limit {
		switch z.state {
		case stBlock:
			z.err = z.blockHeader()
		case stHuff:
			z.err = z.huffman(limit)
		case stStored:
			z.err = z.copyStored(limit)
		case stTrailer, stNext:
			z.account(start)
			start = z.op
			z.err = z.memberEnd()
			if z.err == nil && z.state == stDone {
				z.err = io.EOF
			}
		default:
			z.err = io.EOF
		}
	}
	z.account(start)
	if z.err != nil && z.err != io.EOF && z.overread > int(z.nb/8) {
		// The decoder ran past the end of the input into the zeros that stand for it.
		z.err = z.eofErr()
	}
}

// account adds out[start:op] to the member's CRC-32 and length.
func (z *Reader) account(start int) {
	z.crc = crc32.Update(z.crc, crc32.IEEETable, z.out[start:z.op])
	z.size += uint32(z.op - start)
}

// moreInput makes at least want bytes of input readable at ip unless the source ends first,
// keeping the 8 bytes before ip (the bit buffer's bytes, which giveBack may return).
func (z *Reader) moreInput(want int) {
	if z.iend-z.ip >= want || z.srcEOF {
		return
	}
	if keep := max(z.ip-8, 0); keep > 0 {
		n := copy(z.in, z.in[keep:z.iend])
		z.inOff += int64(keep)
		z.ip -= keep
		z.iend = n
	}
	for empty := 0; z.iend-z.ip < want && !z.srcEOF; {
		n, err := z.src.Read(z.in[z.iend:])
		if n < 0 || n > len(z.in)-z.iend {
			z.srcEOF, z.srcErr = true, fmt.Errorf("gzip: source returned invalid count %d", n)
			return
		}
		if n == 0 && err == nil {
			if empty++; empty == 100 {
				z.srcEOF, z.srcErr = true, io.ErrNoProgress
				return
			}
		}
		z.iend += n
		if err != nil {
			z.srcEOF = true
			if err != io.EOF {
				z.srcErr = err
			}
		}
	}
}

// refill tops the bit buffer up to at least 56 bits, past the input's end with zero bytes
// (counted in overread).
func (z *Reader) refill() {
	if z.iend-z.ip < 8 {
		z.moreInput(inSize / 2)
	}
	if z.ip+8 <= z.iend {
		z.b |= binary.LittleEndian.Uint64(z.in[z.ip:]) << z.nb
		z.ip += int(63-z.nb) >> 3
		z.nb |= 56
		return
	}
	for z.nb <= 56 {
		if z.ip < z.iend {
			z.b |= uint64(z.in[z.ip]) << z.nb
			z.ip++
		} else {
			z.overread++
		}
		z.nb += 8
	}
}

// realBits is how many of the bit buffer's bits are input: the zero bytes refill loaded past
// its end sit above them and are never consumed, so that the output is always a true prefix of
// the data (decoding those zeros would make up bytes that are not in it).
func (z *Reader) realBits() uint { return z.nb - uint(z.overread)*8 }

// bits consumes and returns the next n ≤ 32 bits.
func (z *Reader) bits(n uint) (uint32, error) {
	if z.nb < n {
		z.refill()
	}
	if n > z.realBits() {
		return 0, z.eofErr()
	}
	v := uint32(z.b & (1<<n - 1))
	z.b >>= n
	z.nb -= n
	return v, nil
}

func (z *Reader) eofErr() error {
	if z.srcErr != nil {
		return z.srcErr
	}
	return ErrTruncated
}

// offset is the compressed offset of the next unconsumed bit's byte.
func (z *Reader) offset() int64 {
	return z.inOff + int64(z.ip) - int64(z.nb/8) + int64(z.overread)
}

func (z *Reader) corrupt(what string) error {
	return fmt.Errorf("%w near compressed byte %d: %s", ErrCorrupt, z.offset(), what)
}

// giveBack empties the bit buffer at a byte boundary, returning its whole bytes to the input.
func (z *Reader) giveBack() error {
	z.b >>= z.nb & 7
	z.nb &^= 7
	real := int(z.nb/8) - z.overread
	if real < 0 {
		return z.eofErr()
	}
	z.ip -= real
	z.b, z.nb, z.overread = 0, 0, 0
	return nil
}

// byte reads one byte of input with the bit buffer empty.
func (z *Reader) byte() (byte, error) {
	if z.ip == z.iend {
		z.moreInput(1)
		if z.ip == z.iend {
			return 0, z.eofErr()
		}
	}
	c := z.in[z.ip]
	z.ip++
	return c, nil
}

// header reads a member header (RFC 1952 section 2.3) with the bit buffer empty.
func (z *Reader) header() error {
	start := z.inOff + int64(z.ip)
	var hcrc uint32
	next := func() (byte, error) {
		c, err := z.byte()
		hcrc = crc32.Update(hcrc, crc32.IEEETable, []byte{c})
		return c, err
	}
	var h [10]byte
	for i := range h {
		c, err := next()
		if err != nil {
			return err
		}
		h[i] = c
	}
	if h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 {
		return fmt.Errorf("%w at byte %d: not a gzip member with DEFLATE data", ErrHeader, start)
	}
	flg := h[3]
	if flg&0xe0 != 0 {
		return fmt.Errorf("%w at byte %d: reserved flag bits set", ErrHeader, start)
	}
	if flg&4 != 0 { // FEXTRA
		lo, err := next()
		if err != nil {
			return err
		}
		hi, err := next()
		if err != nil {
			return err
		}
		for range int(lo) | int(hi)<<8 {
			if _, err := next(); err != nil {
				return err
			}
		}
	}
	for _, f := range []byte{8, 16} { // FNAME, FCOMMENT: zero-terminated
		if flg&f == 0 {
			continue
		}
		for {
			c, err := next()
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
		}
	}
	if flg&2 != 0 { // FHCRC: the low 16 bits of the header's CRC-32
		want := uint16(hcrc)
		lo, err := z.byte()
		if err != nil {
			return err
		}
		hi, err := z.byte()
		if err != nil {
			return err
		}
		if uint16(lo)|uint16(hi)<<8 != want {
			return fmt.Errorf("%w at byte %d: header checksum mismatch", ErrHeader, start)
		}
	}
	z.crc, z.size, z.final = 0, 0, false
	z.lo = z.op
	return nil
}

// memberEnd reads the trailer of the member just decoded, then the next member's header or
// the trailing bytes.
func (z *Reader) memberEnd() error {
	if z.state == stTrailer {
		if err := z.giveBack(); err != nil {
			return err
		}
		var t [8]byte
		for i := range t {
			c, err := z.byte()
			if err != nil {
				return err
			}
			t[i] = c
		}
		if binary.LittleEndian.Uint32(t[:4]) != z.crc || binary.LittleEndian.Uint32(t[4:]) != z.size {
			return fmt.Errorf("%w: member ending at compressed byte %d", ErrChecksum, z.inOff+int64(z.ip))
		}
		z.state = stNext
	}
	z.moreInput(2)
	rest := z.iend - z.ip
	switch {
	case rest == 0:
		z.state = stDone
		return z.srcErr
	case rest == 1 && z.in[z.ip] == 0x1f:
		// The first byte of another member, cut short: not a trailing byte.
		z.ip++
		return z.eofErr()
	case rest >= 2 && z.in[z.ip] == 0x1f && z.in[z.ip+1] == 0x8b:
		if err := z.header(); err != nil {
			return err
		}
		z.state = stBlock
		return nil
	}
	n := int64(rest)
	for !z.srcEOF {
		z.ip, z.iend = 0, 0
		z.moreInput(len(z.in))
		n += int64(z.iend)
	}
	z.ip = z.iend
	z.trailing = n
	z.state = stDone
	return z.srcErr
}

// blockHeader reads a block's header: the start of a stored block, or a Huffman block's
// tables.
func (z *Reader) blockHeader() error {
	if z.final {
		z.state = stTrailer
		return nil
	}
	h, err := z.bits(3)
	if err != nil {
		return err
	}
	z.final = h&1 != 0
	switch h >> 1 {
	case 0:
		if err := z.giveBack(); err != nil {
			return err
		}
		var l [4]byte
		for i := range l {
			if l[i], err = z.byte(); err != nil {
				return err
			}
		}
		n, nn := binary.LittleEndian.Uint16(l[:2]), binary.LittleEndian.Uint16(l[2:])
		if n != ^nn {
			return z.corrupt("stored block length check failed")
		}
		z.stored = int(n)
		z.state = stStored
	case 1:
		z.lit, z.dist, z.eobLen = fixedLit, fixedDis, 7
		z.state = stHuff
	case 2:
		if err := z.dynamicTables(); err != nil {
			return err
		}
		z.state = stHuff
	default:
		return z.corrupt("reserved block type")
	}
	return nil
}

// dynamicTables reads a dynamic Huffman block's code lengths (RFC 1951 section 3.2.7) and
// builds its tables.
func (z *Reader) dynamicTables() error {
	h, err := z.bits(14)
	if err != nil {
		return err
	}
	nlit, ndist, nclen := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlit > 286 || ndist > 30 {
		return z.corrupt("too many length or distance codes")
	}
	var clens [19]uint8
	for i := range nclen {
		v, err := z.bits(3)
		if err != nil {
			return err
		}
		clens[codeOrder[i]] = uint8(v)
	}
	var clSym [19]uint32
	for i := range clSym {
		clSym[i] = uint32(i)<<16 | fLit
	}
	var clTab [1 << 7]uint32
	if !buildTable(clTab[:], clens[:], clSym[:], 7, &z.maxLen) {
		return z.corrupt("invalid code-length code")
	}
	lens := z.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if z.nb < 7+7 {
			z.refill()
		}
		e := clTab[z.b&127]
		if uint(e&0xff) > z.realBits() || e == 0 && z.realBits() < 7 {
			return z.eofErr()
		}
		if e == 0 {
			return z.corrupt("invalid code-length code")
		}
		z.b >>= e & 0xff
		z.nb -= uint(e & 0xff)
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var val uint8
		n, base := uint(7), 11 // 18: 11–138 zeros
		switch sym {
		case 16: // 3–6 copies of the previous length
			if i == 0 {
				return z.corrupt("repeated code length with none before it")
			}
			n, base, val = 2, 3, lens[i-1]
		case 17: // 3–10 zeros
			n, base = 3, 3
		}
		v, err := z.bits(n)
		if err != nil {
			return err
		}
		rep := base + int(v)
		if i+rep > len(lens) {
			return z.corrupt("code lengths run past their count")
		}
		for range rep {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 {
		return z.corrupt("no end-of-block code")
	}
	if z.dynLit == nil {
		z.dynLit, z.dynDist = new(litTable), new(distTable)
	}
	if !buildTable(z.dynLit[:], lens[:nlit], litSym[:], litBits, &z.maxLen) {
		return z.corrupt("invalid literal/length code")
	}
	if !buildTable(z.dynDist[:], lens[nlit:], distSym[:], distBits, &z.maxLen) {
		return z.corrupt("invalid distance code")
	}
	z.lit, z.dist, z.eobLen = z.dynLit, z.dynDist, uint(lens[256])
	return nil
}

// buildTable builds the decoding table of the canonical Huffman code with the given code
// lengths (RFC 1951 section 3.2.2) into tab, a main table of 2^width entries followed by
// subtables for longer codes. sym gives each symbol's entry without its length. It reports
// false for an over-subscribed code, or an incomplete one other than a lone code of length
// 1 (an empty code is allowed: its table has no entries, and decoding with it fails).
func buildTable(tab []uint32, lens []uint8, sym []uint32, width uint, maxLen *[]uint8) bool {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	left, codes := 1, 0
	for l := 1; l < 16; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
		codes += count[l]
	}
	if left > 0 && codes != 0 && !(codes == 1 && count[1] == 1) {
		return false
	}
	var next [16]uint32
	for l := 2; l < 16; l++ {
		next[l] = (next[l-1] + uint32(count[l-1])) << 1
	}
	size := 1 << width
	clear(tab[:size])
	used := size
	long := false
	for _, l := range lens {
		if uint(l) > width {
			long = true
			break
		}
	}
	var ml []uint8
	if long {
		if cap(*maxLen) < size {
			*maxLen = make([]uint8, size)
		}
		ml = (*maxLen)[:size]
		clear(ml)
		code := next
		for _, l := range lens {
			if uint(l) > width {
				r := bits.Reverse32(code[l]) >> (32 - uint(l))
				p := r & uint32(size-1)
				ml[p] = max(ml[p], l)
			}
			code[l]++
		}
		for p, m := range ml {
			if m != 0 {
				sb := uint(m) - width
				tab[p] = uint32(used)<<16 | fSub | uint32(sb)<<8 | uint32(width)
				clear(tab[used : used+1<<sb])
				used += 1 << sb
			}
		}
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		r := bits.Reverse32(next[l]) >> (32 - uint(l))
		next[l]++
		e := sym[s] | uint32(l)
		if uint(l) <= width {
			for i := int(r); i < size; i += 1 << l {
				tab[i] = e
			}
			continue
		}
		link := tab[r&uint32(size-1)]
		start, sb := int(link>>16), uint(link>>8&15)
		for i := int(r >> width); i < 1<<sb; i += 1 << (uint(l) - width) {
			tab[start+i] = e
		}
	}
	return true
}

// copyStored copies a stored block's bytes to the output, up to limit.
func (z *Reader) copyStored(limit int) error {
	for z.stored > 0 && z.op < limit {
		if z.ip == z.iend {
			z.moreInput(1)
			if z.ip == z.iend {
				return z.eofErr()
			}
		}
		n := copy(z.out[z.op:min(limit, z.op+z.stored)], z.in[z.ip:z.iend])
		z.op += n
		z.ip += n
		z.stored -= n
	}
	if z.stored == 0 {
		z.state = stBlock
	}
	return nil
}

// huffman decodes a Huffman block's symbols until the block ends or the output reaches limit.
// The loop keeps the decoder's state in locals and stores it back on every way out.
func (z *Reader) huffman(limit int) error {
	if z.overread > 0 {
		return z.huffmanTail(limit)
	}
	lit, dist := z.lit, z.dist
	out := z.out[:limit+outSlack]
	in, ip, iend := z.in, z.ip, z.iend
	b, nb, op, lo := z.b, z.nb, z.op, z.lo
	for op < limit {
		if nb < 48 {
			if ip+8 <= iend {
				b |= binary.LittleEndian.Uint64(in[ip:]) << (nb & 63)
				ip += int(63-nb) >> 3
				nb |= 56
			} else {
				z.ip, z.b, z.nb = ip, b, nb
				z.refill()
				if z.overread > 0 {
					// The input ends within the next 64 bits: symbol by symbol from here.
					z.op = op
					return z.huffmanTail(limit)
				}
				in, ip, iend, b, nb = z.in, z.ip, z.iend, z.b, z.nb
			}
		}
		e := lit[b&(1<<litBits-1)]
		if e&fSub != 0 {
			e = lit[(e>>16+uint32(b>>litBits)&(1<<(e>>8&15)-1))&uint32(len(lit)-1)]
		}
		b >>= e & 63
		nb -= uint(e & 63)
		if e&fLit != 0 {
			out[op] = byte(e >> 16)
			op++
			continue
		}
		if e&fLen == 0 {
			z.ip, z.b, z.nb, z.op = ip, b, nb, op
			if e&fEOB != 0 {
				z.state = stBlock
				return nil
			}
			return z.corrupt("invalid literal/length code")
		}
		x := e >> 8 & 15
		length := int(e>>16) + int(b&(1<<(x&63)-1))
		b >>= x & 63
		nb -= uint(x)

		// nb ≥ 28 here, enough for the distance code and its extra bits: it was at least 48
		// before the length code, which took at most 15 + 5 bits.
		e = dist[b&(1<<distBits-1)]
		if e&fSub != 0 {
			e = dist[(e>>16+uint32(b>>distBits)&(1<<(e>>8&15)-1))&uint32(len(dist)-1)]
		}
		if e&fLen == 0 {
			z.ip, z.b, z.nb, z.op = ip, b, nb, op
			return z.corrupt("invalid distance code")
		}
		b >>= e & 63
		nb -= uint(e & 63)
		x = e >> 8 & 15
		d := int(e>>16) + int(b&(1<<(x&63)-1))
		b >>= x & 63
		nb -= uint(x)
		if d > op-lo {
			z.ip, z.b, z.nb, z.op = ip, b, nb, op
			return z.corrupt("match distance too far back")
		}
		src := op - d
		switch {
		case d >= length && length > 32:
			copy(out[op:op+length], out[src:])
		case d >= 8:
			// Overlapping, or short: each 8-byte word read was written before (d ≥ 8).
			dst := out[op : op+length+8]
			from := out[src : src+length+8]
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[i:i+8], binary.LittleEndian.Uint64(from[i:i+8]))
			}
		case d == 1:
			v := uint64(out[src]) * 0x0101010101010101
			dst := out[op : op+length+8]
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[i:i+8], v)
			}
		default:
			for i := range length {
				out[op+i] = out[src+i]
			}
		}
		op += length
	}
	z.ip, z.b, z.nb, z.op = ip, b, nb, op
	return nil
}

// huffmanTail is huffman where the input ends within the bit buffer: it decodes one symbol at
// a time and writes a symbol's bytes only when all of its bits (a match's length and distance
// codes and their extra bits) are input, never the zeros past the end. On input cut short the
// output is a true prefix of the data, and exactly compress/gzip's: like it, a symbol is
// decoded only when at least as many bits as the block's end-of-block code are left (every
// block ends with one, so a whole stream always has them), which may leave out a last short
// code that the input does hold.
func (z *Reader) huffmanTail(limit int) error {
	lit, dist := z.lit, z.dist
	out := z.out[:limit+outSlack]
	for z.op < limit {
		if z.nb < 48 {
			z.refill()
		}
		b, avail := z.b, z.realBits()
		e := lit[b&(1<<litBits-1)]
		if e&fSub != 0 {
			e = lit[(e>>16+uint32(b>>litBits)&(1<<(e>>8&15)-1))&uint32(len(lit)-1)]
		}
		used := uint(e & 63)
		if used > avail || z.eobLen > avail || e == 0 && avail < 15 {
			return z.eofErr()
		}
		if e&fLit != 0 {
			out[z.op] = byte(e >> 16)
			z.op++
			z.b >>= used
			z.nb -= used
			continue
		}
		if e&fLen == 0 {
			if e&fEOB != 0 {
				z.b >>= used
				z.nb -= used
				z.state = stBlock
				return nil
			}
			return z.corrupt("invalid literal/length code")
		}
		b >>= used
		x := uint(e >> 8 & 15)
		length := int(e>>16) + int(b&(1<<x-1))
		b >>= x
		used += x
		e = dist[b&(1<<distBits-1)]
		if e&fSub != 0 {
			e = dist[(e>>16+uint32(b>>distBits)&(1<<(e>>8&15)-1))&uint32(len(dist)-1)]
		}
		if used+uint(e&63) > avail || e == 0 && used+15 > avail {
			return z.eofErr()
		}
		if e&fLen == 0 {
			return z.corrupt("invalid distance code")
		}
		b >>= e & 63
		used += uint(e & 63)
		x = uint(e >> 8 & 15)
		d := int(e>>16) + int(b&(1<<x-1))
		used += x
		if used > avail {
			return z.eofErr()
		}
		if d > z.op-z.lo {
			return z.corrupt("match distance too far back")
		}
		z.b >>= used
		z.nb -= used
		for i := range length {
			out[z.op+i] = out[z.op-d+i]
		}
		z.op += length
	}
	return nil
}
