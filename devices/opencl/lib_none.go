//go:build !(darwin || freebsd || linux || netbsd) || noplugin

package opencl

// loadLibrary fails: this build has no dynamic loader (noplugin, or an unsupported OS).
func loadLibrary(string) (*lib, error) {
	return nil, &MissingError{What: "this orprof build cannot load libOpenCL (built with the noplugin tag or for an OS without dlopen)",
		Hint: "build orprof without -tags noplugin (CGO_ENABLED=0 is fine: purego needs no cgo)"}
}

func (l *lib) call(uintptr, ...uintptr) uintptr { panic("opencl: no OpenCL library in this build") }
