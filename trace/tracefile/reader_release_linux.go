package tracefile

import (
	"syscall"
	"unsafe"
)

// releaseRecords gives the pages of a chunk of records back to the kernel once resolve has
// converted them and dropped every reference to them, so that the memory the events take as
// they are made is memory the records no longer hold (the garbage collector would free the
// chunk only at its next cycle, long after the events have taken fresh pages). Only whole
// pages inside c are released: a chunk can share its backing array, and so its first and last
// page, with a neighbour that is still in use. The records hold no pointers, so the collector
// never reads them; the runtime zeroes the memory before reusing it for another object, and
// the released pages read as zeros until then.
func releaseRecords(c []rawEvent) {
	size := uintptr(len(c)) * unsafe.Sizeof(rawEvent{})
	page := uintptr(syscall.Getpagesize())
	if len(c) == 0 || size < 16*page {
		return
	}
	start := uintptr(unsafe.Pointer(&c[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + size) &^ (page - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&c[0])), size)[lo-start : hi-start]
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED) // advice: nothing is lost if it fails
}
