//go:build !unix

package orprof

func processCPU() int64 { return 0 }
