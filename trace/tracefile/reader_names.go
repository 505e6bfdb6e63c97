package tracefile

import (
	"strings"
	"unicode/utf8"

	"github.com/orprof/orprof/events"
)

// Event names are interned: each distinct name is stored once and events carry its id, with
// flags for the names the reader treats specially.

const (
	nameFiltered = 1 << iota
	nameProfilerSpan
	nameMemory
	nameOOM
	nameProcessLabels
	nameScopeMetrics // "metrics: …": a scope profiler's metrics slice, not device work
)

// intern returns the id of name b, adding it on first sight. A small cache in front of the map
// catches the names that repeat event after event.
func (d *decoder) intern(b []byte) uint32 {
	if len(b) == 0 {
		return d.internString("")
	}
	e := &d.nameCache[(uint(len(b))*131+uint(b[0])*31+uint(b[len(b)-1]))%uint(len(d.nameCache))]
	if e.name == string(b) { // an empty entry never matches: b is not empty
		return e.id
	}
	id, ok := d.names[string(b)]
	if !ok {
		id = d.internNew(string(b))
	}
	e.name, e.id = d.nameStrs[id], id
	return id
}

// internString is intern for a string.
func (d *decoder) internString(s string) uint32 {
	if id, ok := d.names[s]; ok {
		return id
	}
	return d.internNew(s)
}

// internNew adds name s, which is not interned yet. The name events get is valid UTF-8: a run
// of bytes that are not is replaced by U+FFFD (strings.ToValidUTF8), as a JSON decoder replaces
// them (encoding/json, a browser's), so that a name reads the same from the trace as from the
// JSON orprof writes it to (a summary, a merged trace). JSON text is UTF-8, so such a name is
// not passed silently: it is counted, and Data.Warnings says so.
func (d *decoder) internNew(s string) uint32 {
	id := uint32(len(d.nameStrs))
	d.names[s] = id
	if !utf8.ValidString(s) {
		d.badName(s) // strict JSON is UTF-8: repaired, and counted in a warning (Data.BadNames)
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	d.nameStrs = append(d.nameStrs, s)
	var f uint8
	if events.FilterName(s) {
		f |= nameFiltered
	}
	if strings.HasPrefix(s, "PyTorch Profiler") {
		f |= nameProfilerSpan
	}
	if strings.HasPrefix(s, "metrics: ") {
		f |= nameScopeMetrics
	}
	switch s {
	case "[memory]":
		f |= nameMemory
	case "[OutOfMemory]":
		f |= nameOOM
	case "process_labels":
		f |= nameProcessLabels
	}
	d.nameFlags = append(d.nameFlags, f)
	return id
}
