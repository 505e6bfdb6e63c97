//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package kineto

import (
	"bytes"
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/orprof/orprof/trace"
)

// fuzzBytes hands out the fuzz input piece by piece; past its end every read is zero.
type fuzzBytes struct{ b []byte }

func (r *fuzzBytes) more() bool { return len(r.b) > 0 }

func (r *fuzzBytes) u8() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// i64 is a small value (one signed byte) or, after a 0xff mode byte, any 8-byte value.
func (r *fuzzBytes) i64() int64 {
	m := r.u8()
	if m != 0xff {
		return int64(int8(m))
	}
	var buf [8]byte
	n := copy(buf[:], r.b)
	r.b = r.b[n:]
	return int64(binary.LittleEndian.Uint64(buf[:]))
}

// size is an unpaddedStructSize around want: below it, exactly it, or above it.
func (r *fuzzBytes) size(want uintptr) uintptr {
	m := r.u8()
	switch m % 8 {
	case 0:
		return uintptr(m/8) % want // too small
	case 1:
		return want + uintptr(m/8) // a newer header
	case 2:
		return uintptr(r.i64())
	}
	return want
}

// cstr is NULL or a Go-allocated NUL-terminated copy of up to 63 input bytes (any bytes but NUL).
func (r *fuzzBytes) cstr() *byte {
	n := int(r.u8())
	if n == 0xff {
		return nil
	}
	n %= 64
	buf := make([]byte, 0, n+1)
	for range n {
		if c := r.u8(); c != 0 {
			buf = append(buf, c)
		}
	}
	buf = append(buf, 0)
	return &buf[0]
}

// FuzzPluginTraceBuilder drives the trace-builder callbacks a plugin calls with structs and
// strings decoded from the input (sizes valid and not, any ids, times, types and bytes), then
// writes the trace: Check must accept it unless the builder reported an error. Never a panic.
func FuzzPluginTraceBuilder(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 6, 10, 20, 7, 0, 0, 1, 3, 'm', 'm', 'm'})
	f.Add([]byte{0, 1, 2, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 100, 9, 1, 1, 2, 1, 1, 9, 1})
	f.Add([]byte{4, 1, 0, 1, 3, 'g', 'p', 'u', 0xff, 5, 1, 0, 0, 2, 's', '0'})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzBytes{b: data}
		b := newTraceBuilder()
		id := builders.add(b)
		defer builders.remove(id)
		for calls := 0; r.more() && calls < 64; calls++ {
			switch r.u8() % 7 {
			case 0:
				ev := cProfileEvent{size: r.size(eventSize), eventType: int32(r.u8() % (pluginNumTypes + 2)), startNs: r.i64(),
					endNs: r.i64(), eventID: r.i64(), device: int32(r.i64()), resource: int32(r.i64())}
				addEventCallback(id, unsafe.Pointer(&ev))
			case 1:
				setLastEventNameCallback(id, r.cstr())
			case 2:
				fl := cEventFlow{size: r.size(flowSize), flowType: int32(r.u8() % 4), flowID: uint32(r.i64()),
					isStartPoint: r.u8()}
				setLastEventFlowCallback(id, unsafe.Pointer(&fl))
			case 3:
				addLastEventMetadataCallback(id, r.cstr(), r.cstr())
			case 4:
				d := cDeviceInfo{size: r.size(deviceInfoSize), deviceID: r.i64(), sortIndex: r.i64(),
					name: r.cstr(), label: r.cstr()}
				addDeviceInfoCallback(id, unsafe.Pointer(&d))
			case 5:
				res := cResourceInfo{size: r.size(resourceInfoSize), device: int32(r.i64()),
					resource: int32(r.i64()), displayOrder: int32(r.i64()), name: r.cstr()}
				addResourceInfoCallback(id, unsafe.Pointer(&res))
			case 6:
				switch r.u8() % 4 {
				case 0:
					addEventCallback(id, nil)
				case 1:
					setLastEventFlowCallback(id, nil)
				case 2:
					addDeviceInfoCallback(id, nil)
				case 3:
					addResourceInfoCallback(id, nil)
				}
			}
		}
		tr := &trace.Trace{}
		b.appendTo(tr, pluginSpan{name: "fuzz", startNs: 0, stopNs: 1000})
		written := 0 // no accepted event is lost: all but the span, its iteration mark and flows
		for _, e := range tr.Events[2:] {
			if e.Ph != 's' && e.Ph != 'f' {
				written++
			}
		}
		if written != len(b.events) {
			t.Fatalf("%d events accepted, %d written", len(b.events), written)
		}
		var out bytes.Buffer
		werr := trace.Write(&out, tr)
		berr := b.err()
		if werr != nil {
			if berr == nil {
				t.Fatalf("Write failed with no builder error: %v", werr)
			}
			return
		}
		if cerr := trace.Check(out.Bytes()); cerr != nil && berr == nil {
			t.Fatalf("Check rejected the trace and the builder reported nothing: %v\n%.2000s", cerr, out.Bytes())
		}
	})
}
