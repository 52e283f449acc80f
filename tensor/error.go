package tensor

import (
	"errors"
	"fmt"
	"strings"
)

// ErrorKind mirrors the Python exception class PyTorch raises.
type ErrorKind uint8

// Error kinds.
const (
	RuntimeError ErrorKind = iota
	IndexError
	TypeError
	ValueError
	NotImplementedError
)

func (k ErrorKind) String() string {
	return [...]string{"RuntimeError", "IndexError", "TypeError", "ValueError", "NotImplementedError"}[k]
}

// Error is what tensor math panics with on misuse: the op, and a message in
// PyTorch's words where PyTorch has them.
type Error struct {
	Op   string // qualified op name, e.g. "aten::mm"; filled by the dispatcher if empty
	Kind ErrorKind
	Msg  string
}

func (e *Error) Error() string {
	if e.Op == "" || strings.HasPrefix(e.Msg, e.Op) {
		return e.Msg
	}
	return e.Op + ": " + e.Msg
}

// Errorf builds a RuntimeError.
func Errorf(format string, args ...any) *Error {
	return &Error{Kind: RuntimeError, Msg: fmt.Sprintf(format, args...)}
}

// Panicf panics with a RuntimeError.
func Panicf(format string, args ...any) {
	panic(&Error{Kind: RuntimeError, Msg: fmt.Sprintf(format, args...)})
}

// IndexPanicf panics with an IndexError.
func IndexPanicf(format string, args ...any) {
	panic(&Error{Kind: IndexError, Msg: fmt.Sprintf(format, args...)})
}

// TypePanicf panics with a TypeError (wrong argument type or arity).
func TypePanicf(format string, args ...any) {
	panic(&Error{Kind: TypeError, Msg: fmt.Sprintf(format, args...)})
}

// Check panics with a RuntimeError built from format when cond is false,
// like TORCH_CHECK.
func Check(cond bool, format string, args ...any) {
	if !cond {
		Panicf(format, args...)
	}
}

// Try runs f and turns a *Error panic into a returned error. Other panics
// propagate: they are bugs.
func Try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// AsError reports whether err is a *Error and returns it.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
