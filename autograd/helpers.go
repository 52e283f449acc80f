package autograd

import (
	"sort"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Helpers the formulas share. All go through the dispatcher.

// isOne reports whether a Scalar is 1 (maybe_multiply skips it).
func isOne(s tensor.Scalar) bool { return !s.IsBool() && s.Float64() == 1 }

// maybeMul is g*s, or g when s is 1.
func maybeMul(g *T, s tensor.Scalar) *T {
	if isOne(s) {
		return g
	}
	return g.MulScalar(s)
}

// opmath rounds a float coefficient to the precision the CPU kernels of
// x's dtype compute in (float32 for every dtype but float64).
func opmath(v float64, x *T) float64 {
	if x.DType() == tensor.Float64 {
		return v
	}
	return float64(float32(v))
}

// where0 is where(cond, g, 0).
func where0(cond, g *T) *T { return tensor.WhereScalarOther(cond, g, 0.0) }

// zeroWhere is where(cond, 0, g).
func zeroWhere(cond, g *T) *T { return tensor.WhereScalarSelf(cond, 0.0, g) }

// reduceDims wraps the dims of a reduction over a tensor of rank r; none
// means every dim. The result is sorted.
func reduceDims(dims []int, r int) []int {
	if len(dims) == 0 {
		out := make([]int, r)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, len(dims))
	for i, d := range dims {
		out[i] = tensor.WrapDim(d, r)
	}
	sort.Ints(out)
	return out
}

// unsqueezeDims puts back the dims a reduction without keepdim removed.
func unsqueezeDims(g *T, dims []int, rank int) *T {
	if rank == 0 {
		return g
	}
	for _, d := range reduceDims(dims, rank) {
		g = g.Unsqueeze(d)
	}
	return g
}

// sumBackward expands the gradient of a sum back to the input's shape.
func sumBackward(g *T, sizes []int, dims []int, keepdim bool) *T {
	if !keepdim && len(sizes) > 0 {
		g = unsqueezeDims(g, dims, len(sizes))
	}
	return g.Expand(sizes)
}

// countOf is the number of elements a reduction over dims combines.
func countOf(sizes []int, dims []int) int {
	n := 1
	for _, d := range reduceDims(dims, len(sizes)) {
		if len(sizes) > 0 {
			n *= sizes[d]
		}
	}
	return n
}

// valueSelecting is the gradient of a reduction that picks elements
// (max.dim, sort, topk): the gradient goes to the picked positions.
func valueSelecting(g *T, dim int, indices *T, sizes []int, keepdim bool) *T {
	if !keepdim && len(sizes) > 0 {
		g = g.Unsqueeze(dim)
		indices = indices.Unsqueeze(dim)
	}
	return g.NewZeros(sizes).Scatter(dim, indices, g)
}

// zerosOf makes zeros of the given shape like t's dtype and device.
func zerosOf(t *T, sizes []int) *T { return t.NewZeros(sizes) }

// reversedCumsum is flip(cumsum(flip(x))).
func reversedCumsum(x *T, dim int) *T {
	return x.Flip([]int{dim}).Cumsum(dim).Flip([]int{dim})
}

// ints makes an int64 index tensor on t's device.
func ints(idx []int64, like *T) *T {
	t := tensor.FromSlice(idx)
	if like.Device() != tensor.CPU {
		t = t.ToDevice(like.Device())
	}
	return t
}

// floats makes a tensor of dtype d on like's device from float64 values.
func floats(v []float64, shape []int, d tensor.DType, like *T) *T {
	t := tensor.FromSlice(v, shape...)
	if d != tensor.Float64 {
		t = t.To(d)
	}
	if like.Device() != tensor.CPU {
		t = t.ToDevice(like.Device())
	}
	return t
}

// indexAdd adds src into zeros of shape sizes along dim at index (the
// gradient of an index_select-like gather).
func indexAdd(g *T, sizes []int, dim int, index *T) *T {
	return g.NewZeros(sizes).IndexAdd(dim, index, g)
}

func callT(name string, a ...any) *T { return tensor.Call(name, a...).(*T) }

func callTs(name string, a ...any) []*T { return tensor.Call(name, a...).([]*T) }

func callKwT(name string, a []any, kw map[string]any) *T {
	return tensor.CallKw(name, a, kw).(*T)
}

// hasMask reports whether an index list holds a boolean mask.
func hasMask(idx []*T) bool {
	for _, t := range idx {
		if t != nil && (t.DType() == tensor.Bool || t.DType() == tensor.Uint8) {
			return true
		}
	}
	return false
}

// vjp returns the gradients of f's outputs, weighted by gouts, with
// respect to those of ins that are wanted: the derivative of a formula
// written as a differentiable composite. Outside create_graph it runs on
// fresh leaves; inside, on the live tensors, so that the result is
// differentiable again.
func vjp(f func(ins []*T) []*T, ins []*T, want []bool, gouts []*T, create bool) []*T {
	xs := make([]*T, len(ins))
	var leaves []*T
	var at []int
	for i, x := range ins {
		switch {
		case x == nil:
		case create:
			xs[i] = x
			if want[i] && requiresGrad(x) {
				leaves = append(leaves, x)
				at = append(at, i)
			}
		default:
			xs[i] = detached(x)
			if want[i] {
				SetRequiresGrad(xs[i], true)
				leaves = append(leaves, xs[i])
				at = append(at, i)
			}
		}
	}
	res := make([]*T, len(ins))
	if len(leaves) == 0 {
		return res
	}
	outs := f(xs)
	var os, gs []*T
	for k, o := range outs {
		if o != nil && k < len(gouts) && gouts[k] != nil && requiresGrad(o) {
			os = append(os, o)
			gs = append(gs, gouts[k])
		}
	}
	if len(os) == 0 {
		return res
	}
	gr := Grad(os, leaves, gs, Options{CreateGraph: create, AllowUnused: true})
	for j, i := range at {
		res[i] = gr[j]
	}
	return res
}

// hasData reports whether t's values can be read (not a meta tensor).
// Formulas that branch on values take a value-independent path otherwise.
func hasData(t *T) bool { return t.Device() != tensor.Meta }

// boxOpt is an optional argument as an argument list holds it, to pass
// it on to an op: its value, or nil for None.
func boxOpt[V any](o args.Opt[V]) any {
	if !o.Ok {
		return nil
	}
	return o.V
}
