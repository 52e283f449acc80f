package cpu

import (
	"math"
	"slices"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// The backward ops of activations are not core ops and decompose into a
// handful of elementwise ops, each a full-size tensor. For a float32 grad
// and input (or output) of one shape, both contiguous, the CPU runs the
// decomposition's float32 operations — the same kernels, in the same
// order — a chunk at a time instead, so that the intermediates stay in L1:
// the result is the decomposition's, bit for bit. Other dtypes and layouts
// decompose. Explicit float32 conversions keep Go from fusing a multiply
// and an add.

// fusedChunk computes a chunk of a backward op: d from the gradient g and
// the op's saved tensor x, with t, u and v scratch of len(d). The chunks
// run the SIMD kernels of the decomposition's ops (IEEE operations, so the
// same bits) on L1-resident pieces; a scalar Go loop would be slower than
// the decomposition's full-size passes for the short ones.
type fusedChunk func(d, g, x, t, u, v []float32)

// fusedBackward runs chunk over the gradient g and the op's saved tensor x
// (two arguments of the list a) when they qualify, into out when it is
// non-nil (an intoKernel's), else the op's decomposition of a.
func fusedBackward(out *tensor.Tensor, op *tensor.Op, a []any, g, x *tensor.Tensor, chunk fusedChunk) *tensor.Tensor {
	return fusedRun(out, op, a, g, x, func(d, gd, xd []float32) {
		var buf [3][fusedChunkLen]float32
		for i := 0; i < len(d); i += fusedChunkLen {
			j := min(i+fusedChunkLen, len(d))
			chunk(d[i:j], gd[i:j], xd[i:j], buf[0][:j-i], buf[1][:j-i], buf[2][:j-i])
		}
	})
}

// fusedRun is fusedBackward for a kernel that takes a whole piece of the
// elements at once (one SIMD kernel computing the decomposition's
// operations in one pass): each core's share in one call, so that a large
// result is streamed as the elementwise kernels stream theirs. Its result
// is out (when non-nil and a contiguous float32 tensor of x's sizes), a
// new tensor, or the decomposition's (an intoKernel's).
func fusedRun(out *tensor.Tensor, op *tensor.Op, a []any, g, x *tensor.Tensor, run func(d, g, x []float32)) *tensor.Tensor {
	if g.DType() != tensor.Float32 || x.DType() != tensor.Float32 || !slices.Equal(g.Sizes(), x.Sizes()) ||
		!g.IsContiguous() || !x.IsContiguous() || !intoF32(out, x.Sizes()) {
		return op.Composite()(op, a).(*tensor.Tensor)
	}
	if out == nil {
		out = emptyUninit(tensor.Float32, x.Sizes()...)
	}
	n := x.Numel()
	if n == 0 {
		return out // an empty view may sit past the end of its storage
	}
	d := elems[float32](out)
	gd, xd := elems[float32](g), elems[float32](x)
	parallel.Range(n, grain, 64, func(lo, hi int) { run(d[lo:hi], gd[lo:hi], xd[lo:hi]) })
	return out
}

// intoF32 reports whether a kernel making a contiguous float32 result of
// the given sizes can write it into out: out is nil (a new result) or such
// a tensor.
func intoF32(out *tensor.Tensor, sizes []int) bool {
	return out == nil || out.DType() == tensor.Float32 && out.IsContiguous() && slices.Equal(out.Sizes(), sizes)
}

// fusedChunkLen is how many elements fusedBackward computes at a time.
const fusedChunkLen = 512

// geluBackwardKernel is gelu_backward(grad, self, approximate). For the
// erf form with a contiguous float32 self of more than one element, 1.13's
// CPU kernel is oneDNN's, which cannot broadcast: a grad of another shape
// fails there.
func geluBackwardKernel(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
	p := args.GeluBackwardOf(a)
	g, x := p.GradOutput, p.Self
	if core.GeluApproximate(p.Approximate) {
		return fusedBackward(out, op, a, g, x, geluBackwardTanh)
	}
	tensor.Check(x.DType() != tensor.Float32 || !x.IsContiguous() || x.Numel() <= 1 || slices.Equal(g.Sizes(), x.Sizes()),
		"could not create a primitive descriptor for a reorder primitive")
	return fusedRun(out, op, a, g, x, asm.GeluBackwardF32)
}

// The constants of the decompositions, as their scalar operands reach a
// float32 kernel: rounded to float32.
const (
	geluBeta   = float32(1.41421356237309504880 * 1.12837916709551257390 * 0.5)
	geluKappa  = float32(0.044715)
	gelu3Kappa = float32(3 * 0.044715)
)

// geluBackwardTanh is gelu_backward for the tanh approximation (the erf
// form is asm.GeluBackwardF32):
// d = g·(leftD + left·thD·innerD) with inner = (x + x·x·x·κ)·β,
// th = tanh(inner), left = x·½, leftD = (th + 1)·½, thD = 1 − th·th and
// innerD = (x·x·3κ + 1)·β.
func geluBackwardTanh(d, g, x, t, u, v []float32) {
	asm.MulF32(u, x, x) // x·x
	asm.MulF32(t, u, x)
	asm.MulScalarF32(t, t, geluKappa)
	asm.AddF32(t, x, t)
	asm.MulScalarF32(t, t, geluBeta)
	asm.TanhF32(t, t) // th
	asm.MulScalarF32(u, u, gelu3Kappa)
	asm.AddScalarF32(u, u, 1)
	asm.MulScalarF32(u, u, geluBeta) // innerD
	asm.MulF32(v, t, t)
	asm.ScalarSubF32(v, 1, v)   // thD
	asm.MulScalarF32(d, x, 0.5) // left
	asm.MulF32(d, d, v)
	asm.MulF32(d, d, u)
	asm.AddScalarF32(t, t, 1)
	asm.MulScalarF32(t, t, 0.5) // leftD
	asm.AddF32(d, t, d)
	asm.MulF32(d, g, d)
}

// sigmoid_backward(grad, output) is g·(1 − y)·y and tanh_backward
// g·(1 − y·y): asm.SigmoidBackwardF32 and asm.TanhBackwardF32 compute those
// float32 operations in one pass (fusedRun).

// siluBackward is silu_backward(grad, self): with s = 1/(e^(−x) + 1),
// g·s·(x·(1 − s) + 1).
func siluBackward(d, g, x, t, u, _ []float32) {
	asm.NegF32(t, x)
	asm.ExpF32(t, t)
	asm.AddScalarF32(t, t, 1)
	asm.ScalarDivF32(t, 1, t) // s
	asm.ScalarSubF32(u, 1, t)
	asm.MulF32(u, x, u)
	asm.AddScalarF32(u, u, 1)
	asm.MulF32(t, g, t)
	asm.MulF32(d, t, u)
}

// thresholdBackwardKernel is threshold_backward(grad, self, threshold): 0
// where self ≤ threshold (rounded to float32), else grad, each core's share
// in one asm.ThresholdBackwardF32 call; a result too large for the caches
// (asm.StreamsResult) is streamed past them by each share.
func thresholdBackwardKernel(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
	p := args.ThresholdBackwardOf(a)
	th := float32(p.Threshold.Float64())
	k := asm.ThresholdBackwardF32
	if asm.StreamsResult(4 * p.Self.Numel()) {
		k = asm.ThresholdBackwardStreamF32
	}
	return fusedRun(out, op, a, p.GradOutput, p.Self, func(d, g, x []float32) { k(d, g, x, th) })
}

// siluKernel is silu (not a core op either) for a contiguous float32 input:
// asm.SiluF32, its decomposition x / (e^(−x) + 1) in one pass (the same
// float32 operations with the same exp kernel); other inputs decompose.
func siluKernel(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
	x := args.SiluOf(a).Self
	if x.DType() != tensor.Float32 || !x.IsContiguous() {
		return op.Composite()(op, a).(*tensor.Tensor)
	}
	return fusedRun(out, op, a, x, x, func(d, _, x []float32) { asm.SiluF32(d, x) })
}

// operands reads the gradient and the saved tensor of a backward op's
// argument list, with the op's view.
type operands func(a []any) (g, x *tensor.Tensor)

// fused wraps a fusedChunk as a kernel over the operands of.
func fused(of operands, chunk fusedChunk) intoKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
		g, x := of(a)
		return fusedBackward(out, op, a, g, x, chunk)
	}
}

// loopRuleKernel is the kernel of hardtanh_backward, elu_backward and
// hardswish_backward, which 1.13's CPU kernel writes twice, for
// cpu_kernel_vec's vectorized loop and for its scalar loop, the two
// disagreeing at special inputs. The decomposition is the scalar loop's
// rule; where special(x) marks an element the vectorized loop computes
// (vecLoopElements, over the operands grad and x that of reads), vec gives
// it that loop's value from its grad and input converted to the result's
// dtype.
func loopRuleKernel(of operands, special func(x *tensor.Tensor) *tensor.Tensor, vec func(g, x float64) (float64, bool)) tensor.Kernel {
	return func(op *tensor.Op, a []any) any {
		out := op.Composite()(op, a).(*tensor.Tensor)
		g, x := of(a)
		if out.Numel() == 0 || !special(x).Any().Item().Bool() {
			return out
		}
		vg, vx := operandValues(out, g, x)
		vecLoopFixup(out, out.DType(), g, x, vg, vx, true, vec)
		return out
	}
}

func isNaN(x *tensor.Tensor) *tensor.Tensor { return x.Isnan() }

// The vectorized loops' values at special inputs: hardtanh_backward's is 0
// at NaN (x > min && x < max fails), elu_backward's the negative branch's
// NaN (x > 0 fails), hardswish_backward's NaN at NaN (g·(x/3 + 1/2)) and g at 3
// (x >= 3).
func init() {
	impl("aten::hardtanh_backward", loopRuleKernel(func(a []any) (g, x *tensor.Tensor) {
		p := args.HardtanhBackwardOf(a)
		return p.GradOutput, p.Self
	}, isNaN, func(_, x float64) (float64, bool) {
		return 0, math.IsNaN(x)
	}))
	impl("aten::elu_backward", loopRuleKernel(func(a []any) (g, x *tensor.Tensor) {
		p := args.EluBackwardOf(a)
		return p.GradOutput, p.SelfOrResult
	}, isNaN, func(_, x float64) (float64, bool) {
		return x, math.IsNaN(x)
	}))
	impl("aten::hardswish_backward", loopRuleKernel(func(a []any) (g, x *tensor.Tensor) {
		p := args.HardswishBackwardOf(a)
		return p.GradOutput, p.Self
	}, func(x *tensor.Tensor) *tensor.Tensor {
		return x.Isnan().LogicalOr(x.EqScalar(3))
	}, func(g, x float64) (float64, bool) {
		if x == 3 {
			return g, true
		}
		return x, math.IsNaN(x)
	}))
}

func init() {
	implInto("aten::gelu_backward", geluBackwardKernel)
	implInto("aten::sigmoid_backward", func(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
		p := args.SigmoidBackwardOf(a)
		return fusedRun(out, op, a, p.GradOutput, p.Output, asm.SigmoidBackwardF32)
	})
	implInto("aten::tanh_backward", func(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
		p := args.TanhBackwardOf(a)
		return fusedRun(out, op, a, p.GradOutput, p.Output, asm.TanhBackwardF32)
	})
	implInto("aten::silu_backward", fused(func(a []any) (g, x *tensor.Tensor) {
		p := args.SiluBackwardOf(a)
		return p.GradOutput, p.Self
	}, siluBackward))
	implInto("aten::threshold_backward", thresholdBackwardKernel)
	implInto("aten::silu", siluKernel)
}

// softmaxBackwardKernel is _softmax_backward_data (not a core op) and, with
// logSoftmax, _log_softmax_backward_data, for float32 gradients and outputs
// of one shape, both contiguous, over the last dim, rows shorter than
// 2·redChunk: the decomposition's operations row by row — softmax
// y·(g − Σ g·y), log_softmax g − e^y·Σ g, the sums by asm.SumF32 in
// float64 and rounded once as the sum op does — so the result is the
// decomposition's, bit for bit, without its full-size intermediates. Other
// cases decompose. of reads the op's view (_log_softmax_backward_data's
// converts to _softmax_backward_data's).
func softmaxBackwardKernel(logSoftmax bool, of func([]any) args.InternalSoftmaxBackwardData) intoKernel {
	return func(out *tensor.Tensor, op *tensor.Op, a []any) *tensor.Tensor {
		p := of(a)
		g, y := p.GradOutput, p.Output
		dim, d := p.Dim, p.InputDtype
		if g.DType() != tensor.Float32 || y.DType() != tensor.Float32 || d != tensor.Float32 ||
			!slices.Equal(g.Sizes(), y.Sizes()) || !g.IsContiguous() || !y.IsContiguous() || g.Dim() == 0 ||
			tensor.WrapDim(dim, g.Dim()) != g.Dim()-1 || g.Size(-1) >= 2*redChunk || !intoF32(out, g.Sizes()) {
			return op.Composite()(op, a).(*tensor.Tensor)
		}
		if out == nil {
			out = emptyUninit(tensor.Float32, g.Sizes()...)
		}
		n, w := g.Numel(), g.Size(-1)
		if n == 0 {
			return out
		}
		od := elems[float32](out)
		gd, yd := elems[float32](g), elems[float32](y)
		parallel.Range(n/w, max(1, grain/w), 1, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				o, gr, yr := od[r*w:(r+1)*w], gd[r*w:(r+1)*w], yd[r*w:(r+1)*w]
				if logSoftmax {
					s := float32(asm.SumF32(gr))
					asm.ExpF32(o, yr)
					for i, e := range o {
						o[i] = gr[i] - float32(e*s)
					}
					continue
				}
				for i, v := range gr {
					o[i] = v * yr[i]
				}
				s := float32(asm.SumF32(o))
				for i, v := range gr {
					o[i] = yr[i] * float32(v-s)
				}
			}
		})
		return out
	}
}

func init() {
	implInto("aten::_softmax_backward_data", softmaxBackwardKernel(false, args.InternalSoftmaxBackwardDataOf))
	implInto("aten::_log_softmax_backward_data", softmaxBackwardKernel(true, func(a []any) args.InternalSoftmaxBackwardData {
		return args.InternalSoftmaxBackwardData(args.InternalLogSoftmaxBackwardDataOf(a))
	}))
}
