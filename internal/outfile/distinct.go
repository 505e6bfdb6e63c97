package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/orprof/orprof/internal/quote"
)

// A File is a path a command reads or writes and what named it on the command line: a flag
// ("--trace", "-o") or an argument ("TRACE", "the input"). Name is used in error messages
// as it is given.
type File struct {
	Name string
	Path string
}

// CheckDistinct is the no-clobber check every command with outputs calls once, after parsing
// its flags and before it reads an input or runs a workload:
//
//	if err := outfile.CheckDistinct(
//		[]outfile.File{{Name: "-o", Path: *out}},
//		[]outfile.File{{Name: "the input", Path: pos[0]}}); err != nil {
//		return fail(stderr, "pprof: %v", err)
//	}
//
// It returns an error when an output names the same file as an input (the command would write
// over what it reads) or as another output (one would replace the other). Files are compared
// by identity, not by spelling: "./x" and "x", a symbolic link and its target, two hard links
// and "dir/../x" are the same file; an output that does not exist yet is the same as another
// when both name one entry of one directory. Empty paths are skipped; "-" (stdin or stdout) is
// never an input's file, and two outputs "-" clash (both write to stdout). Device nodes
// (/dev/null) are shared freely. The error names both sides (clipped and escaped by
// internal/quote): "-o t.json: the same file as the input t.json: it would be written over";
// the caller adds its command's prefix.
//
// Directories of inputs are not looked into: pass the files a command will read.
func CheckDistinct(outputs, inputs []File) error {
	type seen struct {
		File
		id identity
	}
	var outs []seen
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		id, ok := identify(o.Path)
		if !ok {
			continue
		}
		for _, in := range inputs {
			if in.Path == "" || in.Path == "-" {
				continue
			}
			if iid, ok := identify(in.Path); ok && id.same(iid) {
				return fmt.Errorf("%s %s: the same file as %s %s: it would be written over",
					o.Name, show(o.Path), in.Name, show(in.Path))
			}
		}
		for _, p := range outs {
			if id.same(p.id) {
				if o.Path == "-" {
					return fmt.Errorf("%s -: %s writes to stdout too", o.Name, p.Name)
				}
				return fmt.Errorf("%s %s: the same file as %s %s: one would replace the other",
					o.Name, show(o.Path), p.Name, show(p.Path))
			}
		}
		outs = append(outs, seen{o, id})
	}
	return nil
}

// show is a path as an error line echoes it: at most quote.Max bytes, control characters
// escaped.
func show(path string) string { return quote.Printable(quote.Clip(path)) }

// Check is CheckDistinct, then Writable for each output that is a file: a command calls it
// once, before it reads an input or runs a workload, so that a run is not lost to an output it
// cannot write in the end. Errors name the output as CheckDistinct's do ("--pprof d/x: cannot
// create the temporary file beside it in d (…: open: no such file or directory").
func Check(outputs, inputs []File) error {
	if err := CheckDistinct(outputs, inputs); err != nil {
		return err
	}
	for _, o := range outputs {
		if o.Path == "" || o.Path == "-" {
			continue
		}
		if err := Writable(o.Path); err != nil {
			return fmt.Errorf("%s %s: %w", o.Name, show(o.Path), err)
		}
	}
	return nil
}

// Same reports whether a and b name the same file in CheckDistinct's sense.
func Same(a, b string) bool {
	ia, ok := identify(a)
	if !ok {
		return false
	}
	ib, ok := identify(b)
	return ok && ia.same(ib)
}

// identity is a file as CheckDistinct compares it: an existing file by its FileInfo (device
// and inode), a path that does not exist yet by its directory's FileInfo and its base name.
type identity struct {
	stdout bool
	file   fs.FileInfo // the file itself, when it exists
	dir    fs.FileInfo // its directory, when the file does not exist yet
	base   string
}

func (a identity) same(b identity) bool {
	switch {
	case a.stdout || b.stdout:
		return a.stdout && b.stdout
	case a.file != nil && b.file != nil:
		return os.SameFile(a.file, b.file)
	case a.dir != nil && b.dir != nil:
		return a.base == b.base && os.SameFile(a.dir, b.dir)
	}
	return false
}

// identify finds the identity of path; ok is false for what is never compared (a device node,
// or a path whose directory cannot be found: writing it fails anyway and says why).
func identify(path string) (id identity, ok bool) {
	if path == "-" {
		return identity{stdout: true}, true
	}
	if info, err := os.Stat(path); err == nil {
		if info.Mode()&fs.ModeDevice != 0 {
			return identity{}, false
		}
		return identity{file: info}, true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return identity{}, false
	}
	// Not there yet, or a dangling link: what Write would create.
	target, _, err := resolve(path)
	if err != nil {
		return identity{}, false
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	info, err := os.Stat(dir)
	if err != nil {
		return identity{}, false
	}
	return identity{dir: info, base: base}, true
}
