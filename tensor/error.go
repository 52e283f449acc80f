package tensor

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/goaten/goaten/internal/goid"
	"github.com/goaten/goaten/internal/parallel"
)

func init() { parallel.Rethrow = Rethrow }

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
//
// An Error raised by goaten (Raise, Panicf, Check, ...) remembers the user's
// line: the first caller outside goaten's own non-test, non-example
// packages (Where). While it escapes — an uncaught panic, or a recover of
// the user's own — its message ends with " (at file:line)", so the first
// line Go prints for an uncaught panic says where the misuse is; Try and
// Caught take it back out, so a caught error reads as PyTorch's message.
type Error struct {
	Op   string // qualified op name, e.g. "aten::mm"; filled by the dispatcher if empty
	Kind ErrorKind
	Msg  string

	pcs      []uintptr // the stack where it was raised
	escaping bool      // raised and not yet caught by Try or Caught
}

func (e *Error) Error() string {
	msg := e.Msg
	if e.Op != "" && !strings.HasPrefix(e.Msg, e.Op) {
		msg = e.Op + ": " + e.Msg
	}
	if e.escaping {
		if w := e.Where(); w != "" && !strings.Contains(msg, w) {
			msg += " (at " + w + ")"
		}
	}
	return msg
}

// Where is "file:line" of the user's call that raised e (the first frame
// outside goaten's own non-test, non-example packages), or "" when e was
// not raised by goaten or no such frame exists.
func (e *Error) Where() string {
	if len(e.pcs) == 0 {
		return ""
	}
	if f, ok := userFrame(e.pcs); ok {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return ""
}

// inFlight holds, by goroutine id, the *Error a goroutine is panicking with,
// from Raise until the innermost dispatcher frame it unwinds through names
// its op (or Try or Caught catches it). The dispatcher learns the op's name
// this way instead of recovering and re-panicking, which would print every
// dispatcher level twice in an uncaught panic's trace. The map is touched on
// the error path only.
var inFlight sync.Map // goroutine id (uint64) -> *Error

// Raise panics with e, the way goaten raises every misuse error: it records
// the caller's stack (for Where) and marks e as the calling goroutine's
// error in flight, so the dispatcher frames it unwinds through can name the
// op without recovering it.
func Raise(e *Error) {
	if e.pcs == nil {
		pcs := make([]uintptr, 48)
		e.pcs = pcs[:runtime.Callers(2, pcs)]
	}
	e.escaping = true
	inFlight.Store(goid.ID(), e)
	panic(e)
}

// nameInFlight gives the calling goroutine's error in flight op's name, if
// it has none (the dispatcher calls it from a frame a panic unwinds).
func nameInFlight(op *Op) {
	if v, ok := inFlight.LoadAndDelete(goid.ID()); ok {
		if e := v.(*Error); e.Op == "" {
			e.Op = op.Name
		}
	}
}

// Caught is what code that recovers a panic itself calls with the
// recovered value: for a *Error it returns the error, no longer marked as
// escaping (its message loses the user's line) and no longer the
// goroutine's error in flight; for anything else it returns nil.
func Caught(r any) *Error {
	e, ok := r.(*Error)
	if !ok {
		return nil
	}
	if v, ok := inFlight.Load(goid.ID()); ok && v == e {
		inFlight.Delete(goid.ID())
	}
	e.escaping = false
	return e
}

// Rethrow panics again with r, recovered on another goroutine (a parallel
// worker's panic raised on the caller): a *Error becomes the calling
// goroutine's error in flight, marked as escaping again, pointing at the
// calling goroutine's user line.
func Rethrow(r any) {
	if e, ok := r.(*Error); ok {
		// The worker that raised it no longer has it in flight.
		inFlight.Range(func(id, v any) bool {
			if v == e {
				inFlight.Delete(id)
			}
			return true
		})
		e.pcs = nil // the user's line is on this goroutine's stack
		Raise(e)
	}
	panic(r)
}

// Errorf builds a RuntimeError.
func Errorf(format string, args ...any) *Error {
	return &Error{Kind: RuntimeError, Msg: fmt.Sprintf(format, args...)}
}

// Panicf panics with a RuntimeError.
func Panicf(format string, args ...any) {
	Raise(&Error{Kind: RuntimeError, Msg: fmt.Sprintf(format, args...)})
}

// IndexPanicf panics with an IndexError.
func IndexPanicf(format string, args ...any) {
	Raise(&Error{Kind: IndexError, Msg: fmt.Sprintf(format, args...)})
}

// TypePanicf panics with a TypeError (wrong argument type or arity).
func TypePanicf(format string, args ...any) {
	Raise(&Error{Kind: TypeError, Msg: fmt.Sprintf(format, args...)})
}

// Check panics with a RuntimeError built from format when cond is false,
// like TORCH_CHECK. Its arguments are evaluated, and boxed, on every call:
// where the message has arguments, write if !cond { Panicf(format, args...) }
// instead, so that a passing check costs nothing.
func Check(cond bool, format string, args ...any) {
	if !cond {
		Panicf(format, args...)
	}
}

// Try runs f and turns a *Error panic into a returned error (caught: its
// message is PyTorch's, without the user's line; Error.Where still has it).
// Other panics propagate: they are bugs.
func Try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e := Caught(r); e != nil {
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
