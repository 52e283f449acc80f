package hop

import (
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// SymInt is a tensor's size along one dim as a value a trace can see
// (PyTorch's x.shape[0] under dynamic shapes). A Go int computed from
// x.Size(0) is only a number to the trace, so a cond deciding on it would
// be decided while tracing; a SymInt compared with an int is a SymBool, a
// predicate Cond records as sym_size.int and comparison nodes:
//
//	sym_size_int = torch.ops.aten.sym_size.int(x_1, 0)
//	eq = sym_size_int == 4;  sym_size_int = None
//
// so that the graph decides at run time and one graph serves every size
// of a dynamic dim (no guard on the size is added).
type SymInt struct {
	x   *T
	dim int
}

// Size is x's size along dim as a SymInt.
func Size(x *T, dim int) SymInt {
	if x == nil {
		tensor.TypePanicf("hop.Size: the tensor is nil")
	}
	return SymInt{x, tensor.WrapDim(dim, x.Dim())}
}

// Int is the size.
func (s SymInt) Int() int { return s.x.Size(s.dim) }

// Eq, Ne, Lt, Le, Gt and Ge compare the size with n.
func (s SymInt) Eq(n int) SymBool { return SymBool{s, fx.Eq, n} }
func (s SymInt) Ne(n int) SymBool { return SymBool{s, fx.Ne, n} }
func (s SymInt) Lt(n int) SymBool { return SymBool{s, fx.Lt, n} }
func (s SymInt) Le(n int) SymBool { return SymBool{s, fx.Le, n} }
func (s SymInt) Gt(n int) SymBool { return SymBool{s, fx.Gt, n} }
func (s SymInt) Ge(n int) SymBool { return SymBool{s, fx.Ge, n} }

// SymBool is a comparison of a SymInt with an int: a predicate of Cond.
type SymBool struct {
	s  SymInt
	op *fx.Operator
	n  int
}

// Bool is the comparison's value at the tensor's size.
func (b SymBool) Bool() bool {
	v := b.s.Int()
	switch b.op {
	case fx.Eq:
		return v == b.n
	case fx.Ne:
		return v != b.n
	case fx.Lt:
		return v < b.n
	case fx.Le:
		return v <= b.n
	case fx.Gt:
		return v > b.n
	case fx.Ge:
		return v >= b.n
	}
	tensor.TypePanicf("hop.SymBool: a zero SymBool")
	return false
}

// unwrapped is b over the plain tensor under a functional wrapper.
func (b SymBool) unwrapped() SymBool {
	if functional.IsFunctional(b.s.x) {
		b.s.x = functional.Unwrap(b.s.x)
	}
	return b
}

var opSymSize = tensor.MustOp("aten::sym_size.int")

// record adds the nodes computing b to the trace and returns the last.
func (b SymBool) record(tr *compile.HOPTracer) *fx.Node {
	g := tr.Module().Graph
	sz := g.CreateNode(fx.OpCallFunction, opSymSize, []any{tr.Arg(b.s.x), b.s.dim}, nil, "sym_size_int")
	sz.Meta[fx.MetaVal] = b.s.Int()
	n := g.CallFunction(b.op, []any{sz, b.n}, nil)
	n.Meta[fx.MetaVal] = b.Bool()
	return n
}
