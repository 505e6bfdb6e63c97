// Package gid identifies the running goroutine cheaply: G returns a value that no other live
// goroutine has at the same time. The recording hot path uses it to give every goroutine its own
// buffer without locks. A value may be reused once its goroutine has exited.
package gid
