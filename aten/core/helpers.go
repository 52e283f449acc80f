package core

import (
	"math"
	"math/bits"

	"github.com/goaten/goaten/tensor"
)

// Shared helpers for meta functions.

// Elementwise returns a contiguous output of dtype dt with the broadcast
// shape of ts, on the call's device. nil entries of ts are skipped.
func Elementwise(op *tensor.Op, a []any, dt tensor.DType, ts ...*tensor.Tensor) *tensor.Tensor {
	var sbuf [8][]int
	shapes := sbuf[:0]
	for _, t := range ts {
		if t != nil {
			shapes = append(shapes, t.Sizes())
		}
	}
	var dims [16]int
	return tensor.NewMetaContiguous(tensor.BroadcastShapesInto(dims[:0], shapes...), dt, op.DeviceOf(a))
}

// Contig returns a contiguous meta tensor of the given sizes and dtype on the call's device.
func Contig(op *tensor.Op, a []any, dt tensor.DType, sizes ...int) *tensor.Tensor {
	n := uint64(dt.ItemSize())
	overflow := false
	for _, s := range sizes {
		if s < 0 {
			tensor.Panicf("Trying to create tensor with negative dimension %d: %s", s, tensor.ShapeString(sizes))
		}
		hi, lo := bits.Mul64(n, uint64(s))
		n, overflow = lo, overflow || hi != 0 || lo > math.MaxInt64
	}
	if overflow && tensor.Numel(sizes) != 0 {
		// Also on the meta device, as PyTorch's empty_meta computes the storage size.
		tensor.Panicf("Storage size calculation overflowed with sizes=%s", tensor.ShapeString(sizes))
	}
	return tensor.NewMetaContiguous(sizes, dt, op.DeviceOf(a))
}

// Like returns a contiguous meta tensor with t's shape and dtype dt (t's own dtype when dt is Invalid).
func Like(op *tensor.Op, a []any, t *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	if dt == tensor.Invalid {
		dt = t.DType()
	}
	return tensor.NewMetaContiguous(t.Sizes(), dt, op.DeviceOf(a))
}

// FloatResult is the dtype of a unary float op (exp, sin, ...) on t: t's dtype
// if floating, else the default float.
func FloatResult(dt tensor.DType) tensor.DType {
	if dt.IsFloat() {
		return dt
	}
	return tensor.DefaultFloat
}

// ReducedShape is the output shape of a reduction with the given mask.
func ReducedShape(sizes []int, mask []bool, keepdim bool) []int {
	out := make([]int, 0, len(sizes))
	for i, s := range sizes {
		switch {
		case !mask[i]:
			out = append(out, s)
		case keepdim:
			out = append(out, 1)
		}
	}
	return out
}
