package autograd

import (
	"sort"

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

// columnMajor reports whether a matrix with these sizes and strides is
// stored column by column (the transpose of a row-major one), as a weight
// used through .t() is.
func columnMajor(sizes, strides []int) bool { return strides[0] == 1 && strides[1] == sizes[0] }

// mmMat1Backward is the gradient of mat1 in mat1·mat2 (mm_mat1_backward):
// g·mat2ᵀ, computed as (mat2·gᵀ)ᵀ when mat1 (of these sizes and strides) is
// column-major, so that the gradient has mat1's layout.
func mmMat1Backward(g, mat2 *T, sizes, strides []int) *T {
	if columnMajor(sizes, strides) {
		return mat2.Mm(g.T()).T()
	}
	return g.Mm(mat2.T())
}

// mmMat2Backward is the gradient of mat2 in mat1·mat2 (mm_mat2_backward):
// mat1ᵀ·g, computed as (gᵀ·mat1)ᵀ when mat2 is column-major.
func mmMat2Backward(g, mat1 *T, sizes, strides []int) *T {
	if columnMajor(sizes, strides) {
		return g.T().Mm(mat1).T()
	}
	return mat1.T().Mm(g)
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

func callT(name string, args ...any) *T { return tensor.Call(name, args...).(*T) }

func callTs(name string, args ...any) []*T { return tensor.Call(name, args...).([]*T) }

func callKwT(name string, args []any, kw map[string]any) *T {
	return tensor.CallKw(name, args, kw).(*T)
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
