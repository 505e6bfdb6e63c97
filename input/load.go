package input

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orprof/orprof/internal/fanout"
	"github.com/orprof/orprof/internal/quote"
)

// Expand replaces each directory in args by the inputs in it: its regular files whose names
// end in .json or .json.gz, in natural order (rank2 before rank10). Anything else in it with
// such a name (a FIFO, a socket, a device, a directory) is skipped and named in a warning,
// never opened. Other arguments are kept as they are. A directory with no input is an error
// naming it.
func Expand(args []string) (paths, warnings []string, err error) {
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, nil, err
		}
		var names []string
		for _, e := range ents {
			n := e.Name()
			if !strings.HasSuffix(n, ".json") && !strings.HasSuffix(n, ".json.gz") {
				continue
			}
			st, err := os.Stat(filepath.Join(a, n)) // a symbolic link stands for its target
			switch {
			case err != nil:
				warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", quote.String(filepath.Join(a, n)), err))
			case !st.Mode().IsRegular():
				warnings = append(warnings, fmt.Sprintf("%s: skipped: %s, not a regular file", quote.String(filepath.Join(a, n)), fileType(st.Mode())))
			default:
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("%s: a directory with no .json or .json.gz file", a)
		}
		slices.SortFunc(names, naturalCompare)
		for _, n := range names {
			paths = append(paths, filepath.Join(a, n))
		}
	}
	return paths, warnings, nil
}

// fileType names what a file that is not regular is.
func fileType(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Stdin is what "-" reads; nil refuses "-".
	Stdin io.Reader
	// Workers is the number of inputs identified at once; 0 means GOMAXPROCS.
	Workers int
}

// Load expands the directories among args (Expand) and identifies every input, Workers at a
// time: "-" is Read of o.Stdin (once), every other argument Open. It returns the inputs in
// order, Expand's warnings, and the first error in order.
func Load(args []string, o LoadOptions) ([]*Input, []string, error) {
	paths, warns, err := Expand(args)
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, ErrNoInput
	}
	ins := make([]*Input, len(paths))
	stdin := -1
	for i, p := range paths {
		if p != "-" {
			continue
		}
		if o.Stdin == nil {
			return nil, nil, fmt.Errorf("- (stdin) is not read here: give a file")
		}
		if stdin >= 0 {
			return nil, nil, fmt.Errorf("- (stdin) can only be read once")
		}
		stdin = i
		if ins[i], err = Read(o.Stdin, StdinName); err != nil {
			return nil, nil, err
		}
	}
	errs := fanout.Each(len(paths), o.Workers, func(k int) (err error) {
		if k != stdin {
			ins[k], err = Open(paths[k])
		}
		return err
	})
	if err := fanout.First(errs); err != nil {
		return nil, nil, err
	}
	return ins, warns, nil
}

// naturalCompare orders strings with runs of digits compared as numbers; strings equal so
// ("r01", "r1") are ordered bytewise.
func naturalCompare(a, b string) int {
	if c := naturalCompare1(a, b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func naturalCompare1(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
