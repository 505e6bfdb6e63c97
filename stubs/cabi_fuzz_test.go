//go:build (darwin || freebsd || linux || netbsd) && !noplugin

package stubs

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unsafe"
)

// FuzzCheckStubs feeds checkTable ORProf_Stubs tables decoded from the input: any abiVersion and
// unpaddedStructSize, deviceName NULL or a Go buffer holding any bytes (terminated or not within
// the 256 bytes Open reads), hooks zero or arbitrary non-zero values, which the check must never
// call. The result must follow Open's rules, in Open's order, and an error must name the field.
func FuzzCheckStubs(f *testing.F) {
	f.Add(uint32(ABIVersion), uint64(cTableSize), []byte("gpu\x00"), uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize+8), []byte("gpu\x00"), uint16(0x00ff))
	f.Add(uint32(2), uint64(cTableSize), []byte("gpu\x00"), uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize-1), []byte("gpu\x00"), uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize), []byte{}, uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize), []byte("\x00"), uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize), bytes.Repeat([]byte("x"), 300), uint16(0xffff))
	f.Add(uint32(ABIVersion), uint64(cTableSize), []byte("gpu\x00"), uint16(0xfdff))
	f.Add(uint32(ABIVersion), uint64(cTableSize), []byte("gpu\x00"), uint16(0x04ff))
	f.Add(uint32(ABIVersion), uint64(cTableSizeWork), []byte("gpu\x00"), uint16(0x0fff))
	f.Add(uint32(ABIVersion), uint64(cTableSizeWork-1), []byte("gpu\x00"), uint16(0x0fff))
	f.Fuzz(func(t *testing.T, abi uint32, size uint64, name []byte, hooks uint16) {
		// name[0] == 0xfe means NULL. Otherwise the buffer is 300 bytes, so reading 257 stays
		// inside it: the input's bytes, then NULs when the input's last byte is even, else 'x'.
		var namePtr *byte
		var nameBuf []byte
		if len(name) == 0 || name[0] != 0xfe {
			fill := byte(0)
			if len(name) > 0 && name[len(name)-1]%2 == 1 {
				fill = 'x'
			}
			nameBuf = bytes.Repeat([]byte{fill}, 300)
			copy(nameBuf, name)
			namePtr = &nameBuf[0]
		}
		// Hook i is set when bit i of hooks is; its value is made of the input, never a real
		// function (calling it would crash the test).
		var seed [8]byte
		binary.LittleEndian.PutUint64(seed[:], size^uint64(abi)<<7)
		hook := func(i int) uintptr {
			if hooks&(1<<i) == 0 {
				return 0
			}
			return uintptr(binary.LittleEndian.Uint64(seed[:])|1) + uintptr(i)
		}
		tab := cTable{unpaddedStructSize: uintptr(size), abiVersion: abi, deviceName: namePtr,
			enabled: hook(0), deviceCount: hook(1), record: hook(2), elapsed: hook(3), destroyEvent: hook(4),
			onEachDevice: hook(5), synchronize: hook(6), lastError: hook(7),
			mark: hook(8), rangePush: hook(9), rangePop: hook(10), queueWork: hook(11)}

		got, gotName, annot, err := checkTable((*cTableHead)(unsafe.Pointer(&tab)))

		// The rules, in Open's order: the first one broken decides the error.
		var want string // a substring the error must have; "" when the table is good
		var wantName string
		switch {
		case abi != ABIVersion:
			want = "ABI version"
		case uintptr(size) < cTableSize:
			want = "ORProf_Stubs is"
		case namePtr == nil:
			want = "ORProf_Stubs.deviceName is NULL"
		default:
			n := bytes.IndexByte(nameBuf[:257], 0)
			if n <= 0 {
				want = "ORProf_Stubs.deviceName is empty"
				break
			}
			wantName = string(nameBuf[:n])
			for i, field := range []string{"enabled", "deviceCount", "record", "elapsed", "destroyEvent",
				"onEachDevice", "synchronize", "lastError"} {
				if hooks&(1<<i) == 0 {
					want = "ORProf_Stubs." + field + " is NULL"
					break
				}
			}
			if a := hooks >> 8 & 7; want == "" && a != 0 && a != 7 {
				want = "ORProf_Stubs.mark, rangePush and rangePop"
			}
		}
		if want != "" {
			if err == nil {
				t.Fatalf("table accepted; want an error with %q", want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q; want it to name %q", err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("good table refused: %v", err)
		}
		if gotName != wantName {
			t.Fatalf("deviceName %q, want %q", gotName, wantName)
		}
		wantTab := tab // the optional queueWork only when the size covers it
		if uintptr(size) < cTableSizeWork {
			wantTab.queueWork = 0
		}
		if got != wantTab {
			t.Fatalf("returned table differs from the input")
		}
		if wantAnnot := 3 * int(hooks>>8&1); annot != wantAnnot {
			t.Fatalf("annotation hooks %d, want %d", annot, wantAnnot)
		}
	})
}
