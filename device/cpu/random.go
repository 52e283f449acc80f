package cpu

import (
	"github.com/goaten/goaten/tensor"
)

// Random constructors drawing from tensor.DefaultGenerator().

// randBits is how many random bits a uniform draw of dtype d keeps: its
// significand width, so that every value is exact and below 1.
func randBits(d tensor.DType) uint {
	switch d {
	case tensor.Float64:
		return 53
	case tensor.Float32:
		return 24
	case tensor.Float16:
		return 11
	}
	return 8 // bfloat16
}

// randKernel fills a tensor with uniform values in [0, 1).
func randKernel(op *tensor.Op, args []any) any {
	out := allocMeta(op, args)
	n := out.Numel()
	bits := randBits(out.DType())
	scale := 1 / float64(uint64(1)<<bits)
	gen := tensor.DefaultGenerator()
	var w [blockLen]uint64
	var f [blockLen]float64
	for i := 0; i < n; i += blockLen {
		k := min(blockLen, n-i)
		gen.Uint64s(w[:k])
		for j, u := range w[:k] {
			f[j] = float64(u>>(64-bits)) * scale
		}
		storeF64(out.Storage(), out.DType(), i, 1, f[:k])
	}
	return out
}

// randnKernel fills a tensor with standard normal values.
func randnKernel(op *tensor.Op, args []any) any {
	out := allocMeta(op, args)
	n := out.Numel()
	gen := tensor.DefaultGenerator()
	var f [blockLen]float64
	for i := 0; i < n; i += blockLen {
		k := min(blockLen, n-i)
		gen.Normal(f[:k])
		storeF64(out.Storage(), out.DType(), i, 1, f[:k])
	}
	return out
}

// randpermKernel writes a uniformly random permutation of 0..n-1 (Fisher-Yates).
func randpermKernel(op *tensor.Op, args []any) any {
	out := allocMeta(op, args)
	n := out.Numel()
	perm := make([]int64, n)
	for i := range perm {
		perm[i] = int64(i)
	}
	gen := tensor.DefaultGenerator()
	for i := n - 1; i > 0; i-- {
		j := gen.IntN(uint64(i + 1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	storeAnyI64(out.Storage(), out.DType(), 0, 1, perm)
	return out
}

func init() {
	impl("aten::rand.default", randKernel)
	impl("aten::randn.default", randnKernel)
	impl("aten::randperm.default", randpermKernel)
}
