package cpu

import (
	"math"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// lerpKernel is lerp.Scalar and lerp.Tensor (not core ops: other devices
// decompose them) for float32, float64 and bfloat16 operands of one dtype,
// as 1.13's CPU kernel computes them (LerpKernel.cpp): with d = end − self,
// self + w·d where w < 0.5 and end − d·(1 − w) elsewhere, each of the two
// fused into one rounding. The condition is signed: 1.13's zabs of a real
// weight is the weight itself, so every negative weight takes the first
// form (-5.75 + -4.69·∞ is -∞ there, not ∞ − ∞). Every float32 and
// float64 element of the public lerp records is this bit for bit. bfloat16
// computes in float32 and rounds the result. Other operands decompose.
func lerpKernel(op *tensor.Op, a []any) any {
	var x, end, wT *tensor.Tensor
	var wS tensor.Scalar
	isTensor := op.Schema.Overload == "Tensor"
	if isTensor {
		p := args.LerpOf(a)
		x, end, wT = p.Self, p.End, p.Weight
	} else {
		p := args.LerpScalarOf(a)
		x, end, wS = p.Self, p.End, p.Weight
	}
	ct := x.DType()
	ins := []*tensor.Tensor{x, end}
	if isTensor {
		ins = append(ins, wT)
	}
	ok := ct == tensor.Float32 || ct == tensor.Float64 || ct == tensor.BFloat16
	for _, t := range ins {
		ok = ok && t.DType() == ct
	}
	shapes := make([][]int, len(ins))
	for i, t := range ins {
		shapes[i] = t.Sizes()
	}
	var shape []int
	if ok {
		if err := tensor.Try(func() { shape = tensor.BroadcastShapes(shapes...) }); err != nil {
			ok = false
		}
	}
	if !ok {
		return op.Composite()(op, a)
	}
	out := emptyUninit(ct, shape...)
	if out.Numel() == 0 {
		return out
	}
	if ct == tensor.Float64 {
		ws := 0.0
		if !isTensor {
			ws = wS.Float64()
		}
		pointwiseF64(out, ct, ins, func(dst []float64, src [][]float64) {
			for i := range dst {
				s, e, w := src[0][i], src[1][i], ws
				if isTensor {
					w = src[2][i]
				}
				d := e - s
				if w < 0.5 {
					dst[i] = math.FMA(w, d, s)
				} else {
					dst[i] = math.FMA(-d, 1-w, e)
				}
			}
		})
		return out
	}
	ws := float32(0)
	if !isTensor {
		ws = float32(wS.Float64())
	}
	pointwiseF64(out, ct, ins, func(dst []float64, src [][]float64) {
		for i := range dst {
			s, e, w := float32(src[0][i]), float32(src[1][i]), ws
			if isTensor {
				w = float32(src[2][i])
			}
			d := e - s
			if w < 0.5 {
				dst[i] = float64(asm.FMAF32(w, d, s))
			} else {
				dst[i] = float64(asm.FMAF32(-d, 1-w, e))
			}
		}
	})
	return out
}

func init() {
	impl("aten::lerp.Scalar", lerpKernel)
	impl("aten::lerp.Tensor", lerpKernel)
}
