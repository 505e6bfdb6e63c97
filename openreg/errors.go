package openreg

import "fmt"

// ErrorCode is an OpenReg status, orError_t.
type ErrorCode int

// The status codes of the OpenReg runtime API.
const (
	Success      ErrorCode = 0
	ErrorUnknown ErrorCode = 1
	// ErrorNotReady is what queries of unfinished work return.
	ErrorNotReady ErrorCode = 2
)

// Error is a failed OpenReg call. Its message follows the OpenReg check macro: "OpenReg operation
// not ready" for ErrorNotReady and "OpenReg error: <code>" otherwise, followed by the call and
// what was wrong.
type Error struct {
	Code ErrorCode
	// Op is the runtime call that failed ("ElapsedTime", "Stream.Query", …).
	Op string
	// Detail says what was wrong with the input.
	Detail string
}

// Error formats the failure as OpenReg's check macro does, then the call and the detail.
func (e *Error) Error() string {
	head := fmt.Sprintf("OpenReg error: %d", int(e.Code))
	if e.Code == ErrorNotReady {
		head = "OpenReg operation not ready"
	}
	if e.Op == "" && e.Detail == "" {
		return head
	}
	if e.Detail == "" {
		return head + ": " + e.Op
	}
	return head + ": " + e.Op + ": " + e.Detail
}

// Is makes errors.Is(err, ErrNotReady) and errors.Is(err, ErrUnknown) match by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Detail == "" && t.Code == e.Code
}

// Sentinels to test an error's code with errors.Is.
var (
	ErrUnknown  error = &Error{Code: ErrorUnknown}
	ErrNotReady error = &Error{Code: ErrorNotReady}
)

func unknown(op, format string, args ...any) *Error {
	return &Error{Code: ErrorUnknown, Op: op, Detail: fmt.Sprintf(format, args...)}
}

func notReady(op, format string, args ...any) *Error {
	return &Error{Code: ErrorNotReady, Op: op, Detail: fmt.Sprintf(format, args...)}
}
