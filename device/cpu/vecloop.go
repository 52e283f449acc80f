package cpu

import (
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Some 1.13 CPU kernels treat special inputs (NaN, a boundary value, a
// quotient that overflows) one way in cpu_kernel_vec's vectorized loop and
// another way in its scalar remainder loop, so the result depends on the
// element's position. The golden records come from AVX2 kernels: each inner
// run of the TensorIterator computes 2·(32 bytes / element size) elements per
// vectorized iteration and the rest of the run in the scalar loop.

// vecLoopElements reports, for each element of the operands' broadcast shape
// in row-major order, whether 1.13's cpu_kernel_vec (AVX2, elements of the
// given size) computes it in its vectorized loop. It follows TensorIterator:
// dims ordered by the operands' strides (fastest first), adjacent dims
// coalesced where every operand allows, and the vectorized loop used on the
// innermost run only when each input has unit stride there (or one input a
// stride of 0), for its first floor(n / 2·lanes)·2·lanes elements.
func vecLoopElements(itemSize int, ops ...*tensor.Tensor) []bool {
	shapes := make([][]int, len(ops))
	for i, t := range ops {
		shapes[i] = t.Sizes()
	}
	shape := tensor.BroadcastShapes(shapes...)
	rank := len(shape)
	strides := make([][]int, len(ops)) // broadcast strides, 0 on expanded dims
	for i, t := range ops {
		strides[i] = make([]int, rank)
		off := rank - t.Dim()
		for d := range t.Dim() {
			if t.Size(d) != 1 {
				strides[i][off+d] = t.Stride(d)
			}
		}
	}
	out := make([]bool, tensor.Numel(shape))
	if rank == 0 || len(out) == 0 {
		return out
	}
	perm := core.IterDimOrder(shape, strides...)
	// The innermost run: perm[0] coalesced with the following dims while
	// every operand's strides chain (coalesce_dimensions: a size-1 side
	// always merges, and the merged dim keeps the stride of its first dim
	// of size above 1).
	inner := []int{perm[0]}
	size := shape[perm[0]]
	run := make([]int, len(strides)) // each operand's stride along the run
	for i, st := range strides {
		run[i] = st[perm[0]]
	}
	for _, d := range perm[1:] {
		if shape[d] != 1 && size != 1 {
			chain := true
			for i, st := range strides {
				if size*run[i] != st[d] {
					chain = false
					break
				}
			}
			if !chain {
				break
			}
		}
		if size == 1 {
			for i, st := range strides {
				run[i] = st[d]
			}
		}
		inner = append(inner, d)
		size *= shape[d]
	}
	zeros := 0
	for _, s := range run {
		switch s {
		case 0:
			zeros++
		case 1:
		default:
			return out // a strided input: the scalar loop only
		}
	}
	if zeros > 1 || size == 1 {
		return out
	}
	step := 2 * (32 / itemSize)
	nvec := size / step * step
	// Row-major walk: j is the element's position in its inner run.
	place := make([]int, rank) // multiplier of each dim in j, 0 outside the run
	m := 1
	for _, d := range inner {
		place[d] = m
		m *= shape[d]
	}
	idx := make([]int, rank)
	for k := range out {
		j := 0
		for d, v := range idx {
			j += v * place[d]
		}
		out[k] = j < nvec
		for d := rank - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
