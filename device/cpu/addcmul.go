package cpu

import (
	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// addcmulKernel is addcmul (not a core op: other devices decompose it,
// rounding value·t1·t2 before the add) for a float32 or float64 result, as
// 1.13's CPU kernel computes it (PointwiseOpsKernel.cpp, addcmul_cpu_kernel:
// self + value·t1·t2, compiled with FMA contraction): fma(value·t1, t2,
// self), value·t1 rounded, the multiply-add rounded once, in the vectorized
// and the scalar loop alike (asm.AddcmulF32 and AddcmulF64, SIMD where the
// CPU has it). Every float32 and float64 element of the public addcmul
// records is this bit for bit (TestAddcmulGolden), and so Adam's and
// RMSprop's running averages of g². Other dtypes (and bad arguments, for
// the messages) decompose. addcdiv needs no kernel: its division cannot fuse, and
// self + value·t1/t2 in three roundings is 1.13's.
func addcmulKernel(op *tensor.Op, a []any) any {
	p := args.AddcmulOf(a)
	ct := tensor.ResultType(p.Self, p.Tensor1, p.Tensor2)
	if ct != tensor.Float32 && ct != tensor.Float64 {
		return op.Composite()(op, a)
	}
	var shape []int
	if err := tensor.Try(func() {
		shape = tensor.BroadcastShapes(p.Self.Sizes(), p.Tensor1.Sizes(), p.Tensor2.Sizes())
	}); err != nil {
		return op.Composite()(op, a)
	}
	out := emptyUninit(ct, shape...)
	addcmulInto(out, p, ct)
	return out
}

// addcmulInplace is addcmul_ writing self directly when the result has
// self's dtype and shape and self is dense (inplaceKernel's rule); other
// calls, and their errors, take the decomposition (addcmul, then copy_).
func addcmulInplace(op *tensor.Op, a []any) any {
	p := args.AddcmulOf(a)
	ct := tensor.ResultType(p.Self, p.Tensor1, p.Tensor2)
	var shape []int
	if (ct == tensor.Float32 || ct == tensor.Float64) && tensor.Try(func() {
		shape = tensor.BroadcastShapes(p.Self.Sizes(), p.Tensor1.Sizes(), p.Tensor2.Sizes())
	}) == nil && writesSelfAs(p.Self, ct, shape, a) {
		addcmulInto(p.Self, p, ct)
		p.Self.BumpVersion()
		return p.Self
	}
	return op.Composite()(op, a)
}

// addcmulInto writes fma(value·t1, t2, self) into out, whose dtype is ct
// (float32 or float64) and whose shape is the broadcast one.
func addcmulInto(out *tensor.Tensor, p args.Addcmul, ct tensor.DType) {
	if out.Numel() == 0 {
		return
	}
	ins := []*tensor.Tensor{p.Self, p.Tensor1, p.Tensor2}
	if ct == tensor.Float64 {
		v := p.Value.Float64()
		pointwiseF64(out, ct, ins, func(d []float64, s [][]float64) {
			asm.AddcmulF64(d, s[0][:len(d)], s[1][:len(d)], s[2][:len(d)], v)
		})
		return
	}
	v := float32(p.Value.Float64())
	pointwiseFloat(out, ct, ins, func(d []float64, s [][]float64) {
		x, t1, t2 := s[0][:len(d)], s[1][:len(d)], s[2][:len(d)]
		for i := range d {
			d[i] = float64(asm.FMAF32(v*float32(t1[i]), float32(t2[i]), float32(x[i])))
		}
	}, func(d []float32, s [][]float32) {
		asm.AddcmulF32(d, s[0][:len(d)], s[1][:len(d)], s[2][:len(d)], v)
	})
}

func init() {
	impl("aten::addcmul", addcmulKernel)
	impl("aten::addcmul_", addcmulInplace)
}
