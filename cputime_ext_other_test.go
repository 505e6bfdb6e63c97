//go:build !unix

package orprof_test

func processCPU() int64 { return 0 }
