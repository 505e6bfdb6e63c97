// Package outfile writes an output file the way a command-line tool should: a regular file (or
// a path that does not exist yet) is written to a temporary file beside it and renamed over it
// only once everything was written, so a failed write never leaves a partial file or clobbers
// the old one; a symbolic link is followed and its target written the same way, the link kept;
// a FIFO, a device node (/dev/null, /dev/stdout, /dev/full) or a socket is opened and written
// in place, as other tools do, and its write errors are returned.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxLinks bounds symbolic-link resolution, as the kernel's ELOOP does.
const maxLinks = 40

// Write calls fn with a writer for path and returns the first error of fn, of the writes or of
// putting the file in place; on error a regular file at path is left as it was. Errors wrap the
// system's (errors.Is(err, syscall.ENOSPC) holds for a full device) and do not repeat path.
func Write(path string, fn func(w io.Writer) error) error {
	target, info, err := resolve(path)
	if err != nil {
		return err
	}
	switch {
	case info == nil || info.Mode().IsRegular():
		return writeRenamed(target, info, fn)
	case info.IsDir():
		return errors.New("is a directory")
	}
	return writeInPlace(target, fn)
}

// resolve follows symbolic links from path to what they point at; info is nil when that does
// not exist (a dangling link is written through: its target is created).
func resolve(path string) (string, fs.FileInfo, error) {
	for range maxLinks {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, unwrapPath(err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return path, info, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", nil, unwrapPath(err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", nil, fmt.Errorf("more than %d symbolic links to follow", maxLinks)
}

// writeRenamed writes a temporary file in path's directory and renames it to path.
func writeRenamed(path string, old fs.FileInfo, fn func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	mode := fs.FileMode(0o644)
	if old != nil {
		mode = old.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		return unwrapPath(err)
	}
	if err := fn(f); err != nil {
		return unwrapPath(err)
	}
	if err := f.Sync(); err != nil {
		return unwrapPath(err)
	}
	if err := f.Close(); err != nil {
		return unwrapPath(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return unwrapPath(err)
	}
	return nil
}

// createTemp creates the temporary file of base in dir that Write renames into place.
func createTemp(dir, base string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		// The file is written beside its target first: say so, or "permission denied" on a
		// directory the user can read reads as nonsense.
		return nil, fmt.Errorf("cannot create the temporary file beside it in %s (an output is written there, then renamed into place): %w",
			show(filepath.Clean(dir)), unwrapPath(err))
	}
	return f, nil
}

// Writable reports, as Write would, why path cannot be written now: a directory, a directory
// that does not exist, one where no file can be created (its temporary file is created and
// removed to find out). Special files (/dev/null, a FIFO) are not opened: nil.
func Writable(path string) error {
	target, info, err := resolve(path)
	if err != nil {
		return err
	}
	switch {
	case info != nil && info.IsDir():
		return errors.New("is a directory")
	case info != nil && !info.Mode().IsRegular():
		return nil
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeInPlace writes a special file (FIFO, device, socket) through.
func writeInPlace(path string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		// Some devices refuse O_TRUNC.
		if f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return unwrapPath(err)
		}
	}
	werr := fn(f)
	cerr := f.Close()
	if werr != nil {
		return unwrapPath(werr)
	}
	return unwrapPath(cerr)
}

// unwrapPath drops the path of an *fs.PathError (the caller names the file once) and keeps
// the operation and the system error: "write: no space left on device".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
