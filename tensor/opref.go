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

// Option is an optional argument of a typed op wrapper: the schema
// argument's name and its value. Make one with the With* constructors
// (WithAlpha(2), WithKeepdim(true)) or Kw.
type Option struct {
	name  string
	value any
}

// Kw is the option that passes the schema argument name with value v, for
// an argument no With* constructor fits.
func Kw(name string, v any) Option { return Option{name: name, value: v} }

// Name is the schema argument the option sets.
func (o Option) Name() string { return o.name }

// Value is the value the option passes.
func (o Option) Value() any { return o.value }

// withOptions adds opts to kwargs (a new map when kwargs is nil and there
// are options); the last of two options with one name wins.
func withOptions(kwargs map[string]any, opts []Option) map[string]any {
	if len(opts) == 0 {
		return kwargs
	}
	if kwargs == nil {
		kwargs = make(map[string]any, len(opts))
	}
	for _, o := range opts {
		kwargs[o.name] = o.value
	}
	return kwargs
}

// callOpts is call with options: no map is made when opts is empty.
func (r *opRef) callOpts(opts []Option, args ...any) any {
	op := r.get()
	return op.Invoke(op.Bind(args, withOptions(nil, opts)))
}

// callKw is call with keyword arguments.
func (r *opRef) callKw(args []any, kwargs map[string]any) any {
	op := r.get()
	return op.Invoke(op.Bind(args, kwargs))
}

// opLocalScalarDense is the op Item runs on a traced tensor.
var opLocalScalarDense = opRef{name: "aten::_local_scalar_dense"}
