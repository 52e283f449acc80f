// Package tensor holds goaten's Tensor value, dtypes, scalars, devices, the
// schema parser and the dispatcher, and the typed op wrappers generated from
// the schema tables (ops_gen.go).
//
// # Default arguments are options
//
// The typed wrappers follow one convention for PyTorch's default arguments:
// functional options named after the schema argument.
// Required arguments are parameters, in schema order; every argument with a
// default, and every optional keyword-only argument, is left out and passed
// by name through the wrapper's trailing opts:
//
//	x.Softmax(1)                               // softmax.int(self, int dim, ScalarType? dtype=None)
//	x.Gelu(WithApproximate("tanh"))            // gelu(self, *, str approximate="none")
//	x.Sum([]int{1}, WithKeepdim(true))         // sum.dim_IntList(self, int[1]? dim, bool keepdim=False, ...)
//	Randn([]int{3}, WithDtype(Float64))        // randn(SymInt[] size, *, ScalarType? dtype=None, ...)
//	logits.CrossEntropyLoss(y, WithLabelSmoothing(0.1))
//
// There is one With* constructor per argument name over all the op tables
// (WithAlpha, WithDim, WithReduction, ...), typed when every schema gives
// that name the same Go type, else taking any; Kw passes any argument by
// name. Options become keyword arguments of Bind, so an option the op does
// not have fails as PyTorch does ("Unknown keyword argument 'x' for operator
// 'aten::...'"), as does a value of the wrong type; of two options with the
// same name the last wins. A wrapper whose op has no such argument takes no
// options.
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
