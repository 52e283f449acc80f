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

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// opsTable lists the non-core ops, one PyTorch 1.13 schema per line.
//
//go:embed ops.txt
var opsTable string

// explicitTable names the non-core ops PyTorch 1.13 gives kernels of their
// own (not CompositeImplicitAutograd): graphs record them whole.
//
//go:embed explicit.txt
var explicitTable string

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
		names = append(names, qualified(op))
	}
	for _, line := range strings.Split(explicitTable, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			tensor.MustOp(line).Explicit = true
		}
	}
	// In-place variants derive from their functional ops, which may come
	// later in the table.
	for _, name := range names {
		op := tensor.MustOp(name)
		if f, _, ok := op.Functional(); ok && op.Schema.IsInplace() {
			op.ImplComposite(inplaceOf(f))
		}
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
	op.ImplComposite(fn)
}

// inplaceOf derives an in-place op from its functional op: run the
// functional op on the same arguments, check that its result fits self, and
// copy it into self.
func inplaceOf(f *tensor.Op) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		self := args.Self(a)
		res := f.Invoke(a).(*tensor.Tensor)
		core.CheckInplaceResult(self, res)
		return self.Copy_(res)
	}
}

// opmath wraps a pointwise decomposition so that float16 and bfloat16
// inputs are computed in float32 and the results rounded once to the
// reduced dtype, as PyTorch's CPU kernels do (and its decompositions, with
// pw_cast_for_opmath). It is the one place where reduced precision is
// upcast; the bodies stay free of dtype juggling.
func opmath(k tensor.Kernel) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		rd := tensor.ResultType(tensorArgs(a)...)
		if !rd.IsReduced() {
			return k(op, toCommonFloat(a, rd))
		}
		up := make([]any, len(a))
		for i, v := range a {
			switch x := v.(type) {
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
				up[i] = v
			}
		}
		return downcast(k(op, up), rd)
	}
}

// toCommonFloat converts the tensor arguments of another dtype to rd when
// it is a float dtype: the common dtype TensorIterator computes a pointwise
// op in (tanh_backward of a float64 grad and a float32 or bool output runs
// in float64).
func toCommonFloat(a []any, rd tensor.DType) []any {
	if !rd.IsFloat() {
		return a
	}
	var out []any
	for i, v := range a {
		if x, ok := v.(*tensor.Tensor); ok && x != nil && x.DType() != rd {
			if out == nil {
				out = slices.Clone(a)
			}
			out[i] = x.To(rd)
		}
	}
	if out == nil {
		return a
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

// tensorArgs lists the tensors among the arguments a (list elements
// included).
func tensorArgs(a []any) []any {
	var ts []any
	for _, v := range a {
		switch x := v.(type) {
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
func checked(check func(a []any), k tensor.Kernel) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		check(a)
		return k(op, a)
	}
}

// kernelDTypes checks that the result type of the tensor arguments is one
// the named 1.13 CPU kernel supports.
func kernelDTypes(kernel string, s dtypes) func([]any) {
	return func(a []any) { need(kernel, tensor.ResultType(tensorArgs(a)...), s) }
}

// kernelFloatDTypes is kernelDTypes for ops that promote integers to the
// default float first.
func kernelFloatDTypes(kernel string, s dtypes) func([]any) {
	return func(a []any) { need(kernel, floatDType(tensorArgs(a)...), s) }
}
