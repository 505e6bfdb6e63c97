package tracefile

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// releaseStep is how much of a mapped trace the parse leaves behind before those pages are
// given back (one madvise call per step).
const releaseStep = 4 << 20

// mapFile maps the regular file f into memory, read-only, for a read in place: the trace's
// bytes are not copied into buffers (the reading goroutine's copies took the time of a core
// the parsing workers need), and the pages the parse has left
// behind are given back to the kernel as it goes (madvise MADV_DONTNEED), so the file adds only
// the parse's window of it to the process's resident memory. It reports false, and the caller
// reads the file instead, when f is not a regular file, is smaller than mapMin, or cannot be
// mapped. unmap ends the mapping; nothing may refer to its bytes after it. f must stay open
// while the mapping is read (the read checks it when it fails: did the file change?).
func mapFile(f *os.File) (m *inPlace, unmap func(), ok bool) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < mapMin || int64(int(fi.Size())) != fi.Size() {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, false
	}
	mappings.add(data)
	page := int64(syscall.Getpagesize())
	var released int64 // data before this offset is given back
	consumed := func(end int64) {
		end &^= page - 1
		if end-released < releaseStep {
			return
		}
		_ = syscall.Madvise(data[released:end], syscall.MADV_DONTNEED) // advice: nothing is lost if it fails
		released = end
	}
	m = newInPlace(data, consumed)
	m.changed = func() bool {
		now, err := f.Stat()
		return err != nil || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime())
	}
	return m, func() {
		mappings.remove(data)
		_ = syscall.Munmap(data)
	}, true
}

// mappings are the mapped traces being read, for inMapping.
var mappings mapSet

type mapSet struct {
	mu   sync.Mutex
	live [][2]uintptr // [start, end) of each mapping
}

func (s *mapSet) add(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	s.mu.Lock()
	s.live = append(s.live, [2]uintptr{start, start + uintptr(len(b))})
	s.mu.Unlock()
}

func (s *mapSet) remove(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	s.mu.Lock()
	for i, r := range s.live {
		if r[0] == start {
			s.live = append(s.live[:i], s.live[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
}

// inMapping reports whether addr is in a mapped trace being read: a fault there (SIGBUS) means
// the file was cut short while it was read.
func inMapping(addr uintptr) bool {
	mappings.mu.Lock()
	defer mappings.mu.Unlock()
	for _, r := range mappings.live {
		if r[0] <= addr && addr < r[1] {
			return true
		}
	}
	return false
}
