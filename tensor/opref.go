package tensor

import "sync/atomic"

//go:generate go run -tags opgen ../internal/cmd/opgen -tables ../aten/core/core_ops.txt,../aten/core/inplace_ops.txt,../decomp/ops.txt -tensor ops_gen.go -root ../ops_gen.go -args ../aten/args/args_gen.go

// opRef is a lazily resolved handle on a registered op, used by the
// generated wrappers (ops register from init functions in higher packages).
type opRef struct {
	name string
	op   atomic.Pointer[Op]
}

func (r *opRef) get() *Op {
	if op := r.op.Load(); op != nil {
		return op
	}
	op := MustOp(r.name)
	r.op.Store(op)
	return op
}

// call binds positional arguments (defaults filled from the schema) and runs the op.
func (r *opRef) call(args ...any) any {
	op := r.get()
	return op.Invoke(op.Bind(args, nil))
}

// callKw is call with keyword arguments.
func (r *opRef) callKw(args []any, kwargs map[string]any) any {
	op := r.get()
	return op.Invoke(op.Bind(args, kwargs))
}
