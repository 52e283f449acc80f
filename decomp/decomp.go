// Package decomp registers the non-core ATen ops people use (reshape,
// softmax, matmul, layer_norm, cross_entropy, einsum, pad, ...) and, for
// each, a decomposition into other ops as its CompositeImplicit kernel: the
// kernel the dispatcher runs when a backend has no kernel of its own.
//
// Every decomposition is one small function written only in terms of ops
// called through the dispatcher (the typed methods of package tensor, or
// tensor.Call for the rest). None reads or writes tensor data directly, so
// each runs on any device, the meta device included, and gradients flow
// through the core ops it calls. The semantics follow PyTorch 1.13
// (torch/_decomp/decompositions.py, torch/_refs and the CompositeImplicit
// kernels of ATen), checked against its results by the conformance test.
//
// The schemas live in one table, ops.txt; the typed wrappers (x.Reshape,
// x.Softmax, ...) are generated from it with the core tables.
package decomp

import (
	_ "embed"
	"slices"
	"strings"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// opsTable lists the non-core ops, one PyTorch 1.13 schema per line.
//
//go:embed ops.txt
var opsTable string

// Names lists the qualified names ("aten::name.overload", "default" for the
// default overload) of the ops this package registers, in table order.
var Names = registerTable()

func registerTable() []string {
	var names []string
	for _, line := range strings.Split(opsTable, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op := tensor.RegisterOp(line)
		if f, ok := functionalOf(op); ok {
			op.Impl(tensor.KeyCompositeImplicit, inplaceOf(f))
		}
		names = append(names, qualified(op))
	}
	return names
}

func qualified(op *tensor.Op) string {
	if op.Schema.Overload == "" {
		return op.Name + ".default"
	}
	return op.Name
}

// def registers fn as the decomposition of the named op.
func def(name string, fn tensor.Kernel) {
	op, ok := tensor.LookupOp(name)
	if !ok {
		panic("decomp: unknown op " + name)
	}
	op.Impl(tensor.KeyCompositeImplicit, fn)
}

// functionalOf finds the functional op an in-place op (addcmul_, tril_, ...)
// is derived from: the same name without the trailing underscore.
func functionalOf(op *tensor.Op) (*tensor.Op, bool) {
	s := op.Schema
	if !s.IsInplace() || !strings.HasSuffix(s.Name, "_") {
		return nil, false
	}
	name := s.Namespace + "::" + strings.TrimSuffix(s.Name, "_")
	if f, ok := tensor.LookupOp(name + "." + s.Overload); ok && s.Overload != "" && sameArgs(f.Schema, s) {
		return f, true
	}
	// floor_divide_.Tensor is the in-place form of floor_divide (no overload name).
	if s.Overload == "" || s.Overload == "Tensor" {
		if f, ok := tensor.LookupOp(name); ok && sameArgs(f.Schema, s) {
			return f, true
		}
	}
	return nil, false
}

// sameArgs reports whether two schemas take the same arguments by name
// (bernoulli_.Tensor(self, p) is not the in-place form of bernoulli(self)).
func sameArgs(a, b *tensor.Schema) bool {
	if len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i].Name != b.Args[i].Name {
			return false
		}
	}
	return true
}

// inplaceOf derives an in-place op from its functional op: run the
// functional op on the same arguments, check that its result fits self, and
// copy it into self.
func inplaceOf(f *tensor.Op) tensor.Kernel {
	return func(op *tensor.Op, args []any) any {
		self := args[0].(*tensor.Tensor)
		res := f.Invoke(args).(*tensor.Tensor)
		core.CheckInplaceResult(self, res)
		return self.Copy_(res, false)
	}
}

// opmath wraps a pointwise decomposition so that float16 and bfloat16
// inputs are computed in float32 and the results rounded once to the
// reduced dtype, as PyTorch's CPU kernels do (and its decompositions, with
// pw_cast_for_opmath). It is the one place where reduced precision is
// upcast; the bodies stay free of dtype juggling.
func opmath(k tensor.Kernel) tensor.Kernel {
	return func(op *tensor.Op, args []any) any {
		rd := tensor.ResultType(tensorArgs(args)...)
		if !rd.IsReduced() {
			return k(op, toCommonFloat(args, rd))
		}
		up := make([]any, len(args))
		for i, a := range args {
			switch x := a.(type) {
			case *tensor.Tensor:
				if x != nil {
					up[i] = upcast(x)
				}
			case []*tensor.Tensor:
				l := make([]*tensor.Tensor, len(x))
				for j, t := range x {
					l[j] = upcast(t)
				}
				up[i] = l
			default:
				up[i] = a
			}
		}
		return downcast(k(op, up), rd)
	}
}

// toCommonFloat converts the tensor arguments of another dtype to rd when
// it is a float dtype: the common dtype TensorIterator computes a pointwise
// op in (tanh_backward of a float64 grad and a float32 or bool output runs
// in float64).
func toCommonFloat(args []any, rd tensor.DType) []any {
	if !rd.IsFloat() {
		return args
	}
	var out []any
	for i, a := range args {
		if x, ok := a.(*tensor.Tensor); ok && x != nil && x.DType() != rd {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = x.To(rd)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// inOpmath is opmath for one tensor inside a body: f runs in float32 when x
// is float16 or bfloat16, and its result is rounded back to x's dtype.
func inOpmath(x *tensor.Tensor, f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
	d := x.DType()
	if !d.IsReduced() {
		return f(x)
	}
	return f(x.To(tensor.Float32)).To(d)
}

func upcast(t *tensor.Tensor) *tensor.Tensor {
	if t != nil && t.DType().IsReduced() {
		return t.To(tensor.Float32)
	}
	return t
}

func downcast(r any, d tensor.DType) any {
	switch x := r.(type) {
	case *tensor.Tensor:
		if x != nil && x.DType() == tensor.Float32 {
			return x.To(d)
		}
	case []*tensor.Tensor:
		for i, t := range x {
			if t != nil && t.DType() == tensor.Float32 {
				x[i] = t.To(d)
			}
		}
	}
	return r
}

// tensorArgs lists the tensors among args (list elements included).
func tensorArgs(args []any) []any {
	var ts []any
	for _, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			if x != nil {
				ts = append(ts, x)
			}
		case []*tensor.Tensor:
			for _, t := range x {
				if t != nil {
					ts = append(ts, t)
				}
			}
		}
	}
	return ts
}

// checked runs check on the arguments as given, before k (and before any
// upcasting k does).
func checked(check func(args []any), k tensor.Kernel) tensor.Kernel {
	return func(op *tensor.Op, args []any) any {
		check(args)
		return k(op, args)
	}
}

// kernelDTypes checks that the result type of the tensor arguments is one
// the named 1.13 CPU kernel supports.
func kernelDTypes(kernel string, s dtypes) func([]any) {
	return func(args []any) { need(kernel, tensor.ResultType(tensorArgs(args)...), s) }
}

// kernelFloatDTypes is kernelDTypes for ops that promote integers to the
// default float first.
func kernelFloatDTypes(kernel string, s dtypes) func([]any) {
	return func(args []any) { need(kernel, floatDType(tensorArgs(args)...), s) }
}
