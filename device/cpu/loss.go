package cpu

import (
	"math/bits"
	"slices"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// nllLossForwardKernel is nll_loss_forward(self, target, weight, reduction,
// ignore_index) for a float32 or float64 input of one or two dims, computed
// as 1.13's nll_loss_out_frame does: per sample -x[t]·w[t] (no fused
// multiply-add), and for the sum and mean reductions a cascade of 8 levels
// of partial sums in the input's dtype (level j takes level j-1 whenever
// the sample index has no bit set in level j-1's span), added up in level
// order. Where the arguments are anything else, or a target is out of
// range, the op's decomposition (with its checks and errors) runs instead:
// it is a shortcut, not a second definition. The decomposition's gather,
// where and sums cost several small ops and allocations per call.
func nllLossForwardKernel(op *tensor.Op, a []any) any {
	p := args.NllLossForwardOf(a)
	x := p.Self
	var out *tensor.Tensor
	if p.Reduction == 0 && x.Dim() == 2 {
		out = emptyUninit(x.DType(), x.Size(0))
	} else {
		out = emptyUninit(x.DType())
	}
	outs := []*tensor.Tensor{out, emptyUninit(x.DType())}
	if nllForward(outs[0], outs[1], x, p.Target, p.Weight, p.Reduction, int64(p.IgnoreIndex)) {
		return outs
	}
	return op.Composite()(op, a)
}

// nllLossForwardOut is nllLossForwardKernel into the results a plan laid
// out (the op has no meta function: its layouts are the decomposition's).
func nllLossForwardOut(outs []*tensor.Tensor, op *tensor.Op, a []any) {
	p := args.NllLossForwardOf(a)
	if nllForward(outs[0], outs[1], p.Self, p.Target, p.Weight, p.Reduction, int64(p.IgnoreIndex)) {
		return
	}
	r := op.Composite()(op, a).([]*tensor.Tensor)
	copyInto(outs[0], r[0])
	copyInto(outs[1], r[1])
}

// nllTargets returns the targets of an nll_loss call the kernels take: a
// float32 or float64 input of [N, C] with N int64 targets or of [C] with a
// 0-d one, a weight of C elements of the input's dtype or none, a known
// reduction, every target a class or ignore.
func nllTargets(x, t, w *tensor.Tensor, red int, ignore int64) ([]int64, bool) {
	dt := x.DType()
	if dt != tensor.Float32 && dt != tensor.Float64 || t.DType() != tensor.Int64 || red < 0 || red > 2 {
		return nil, false
	}
	if !(x.Dim() == 2 && t.Dim() == 1 && t.Size(0) == x.Size(0) || x.Dim() == 1 && t.Dim() == 0) {
		return nil, false
	}
	c := x.Size(-1)
	if w != nil && (w.Dim() != 1 || w.Numel() != c || w.DType() != dt) {
		return nil, false
	}
	var tg []int64
	if t.IsContiguous() {
		tg = elems[int64](t) // read only: no copy of the targets
	} else {
		tg = ixInt64s(t)
	}
	for _, v := range tg {
		if v != ignore && (v < 0 || v >= int64(c)) {
			return nil, false // the decomposition raises
		}
	}
	return tg, true
}

// nllForward fills out and total when the kernel takes the arguments
// (nllTargets), and reports whether it did.
func nllForward(out, total, x, t, w *tensor.Tensor, red int, ignore int64) bool {
	tg, ok := nllTargets(x, t, w, red, ignore)
	if !ok {
		return false
	}
	batch, c := len(tg), x.Size(-1)
	if x.DType() == tensor.Float32 {
		nllFrame[float32](out, total, x, w, tg, batch, c, red, ignore)
	} else {
		nllFrame[float64](out, total, x, w, tg, batch, c, red, ignore)
	}
	return true
}

// nllFrame fills out and total (see nllLossForwardKernel).
func nllFrame[T float32 | float64](out, total, x, w *tensor.Tensor, tg []int64, batch, c, red int, ignore int64) {
	xc := contiguous(x)
	xs := elems[T](xc)
	var ws []T
	if w != nil {
		wc := contiguous(w)
		ws = elems[T](wc)
	}
	weight := func(cls int64) T {
		if ws == nil {
			return 1
		}
		return ws[cls]
	}
	od := data[T](out)
	if red == 0 && x.Dim() == 2 {
		for i, cls := range tg {
			if cls == ignore {
				od[i] = 0
				continue
			}
			od[i] = -xs[i*c+int(cls)] * weight(cls)
		}
		data[T](total)[0] = 0
		return
	}
	const levels = 8
	power := max(4, ceilLog2(batch)/levels)
	mask := 1<<power - 1
	var lossSums, weightSums [levels]T
	// Level 0 runs in l0 and w0, in registers: kept in the arrays, each
	// sample's add waited on the store of the one before.
	var l0, w0 T
	ignored := 0
	for b := range batch {
		cls := tg[b]
		if cls == ignore {
			ignored++
			continue
		}
		v := xs[b*c+int(cls)]
		if ws != nil {
			wv := ws[cls]
			l0 -= T(v * wv)
			w0 += wv
		} else {
			l0 -= v
		}
		if b&mask != 0 {
			continue
		}
		weightSums[1] += w0
		lossSums[1] += l0
		w0, l0 = 0, 0
		for j := 1; j+1 < levels; j++ {
			if b&(mask<<(j*power)) != 0 {
				break
			}
			weightSums[j+1] += weightSums[j]
			lossSums[j+1] += lossSums[j]
			weightSums[j], lossSums[j] = 0, 0
		}
	}
	lossSums[0], weightSums[0] = l0, w0
	var tw, loss T
	if ws == nil {
		tw = T(batch - ignored)
	} else {
		for _, s := range weightSums {
			tw += s
		}
	}
	for _, s := range lossSums {
		loss += s
	}
	if red == 1 {
		loss /= tw
	}
	od[0] = loss
	data[T](total)[0] = tw
}

// ceilLog2 is 1.13's utils::CeilLog2: 1 up to 2, else ⌈log2 x⌉.
func ceilLog2(x int) int {
	if x <= 2 {
		return 1
	}
	return bits.Len64(uint64(x - 1))
}

// nllLossBackwardKernel is nll_loss_backward(grad_output, self, target,
// weight, reduction, ignore_index, total_weight) for what
// nllLossForwardKernel takes, as 1.13's nll_loss_backward_out_frame: a
// zeroed gradient with, at each sample's target, -w·g (no reduction) or
// w·(-(g / total_weight)) (mean; -g for sum). Anything else takes the
// decomposition, which writes a full-size scatter and product.
func nllLossBackwardKernel(op *tensor.Op, a []any) any {
	if gi, ok := nllBackward(args.NllLossBackwardOf(a)); ok {
		return gi
	}
	return op.Composite()(op, a)
}

func nllBackward(p args.NllLossBackward) (*tensor.Tensor, bool) {
	g, x, t := p.GradOutput, p.Self, p.Target
	w, red, ignore := p.Weight, p.Reduction, int64(p.IgnoreIndex)
	total := p.TotalWeight
	tg, ok := nllTargets(x, t, w, red, ignore)
	if !ok || g.DType() != x.DType() || total.DType() != x.DType() || total.Numel() != 1 {
		return nil, false
	}
	none := red == 0 && x.Dim() == 2
	if none && (g.Dim() != 1 || g.Size(0) != len(tg)) || !none && (g.Dim() > 1 || g.Numel() != 1) {
		return nil, false // the decomposition's checks
	}
	gi := emptyUninit(x.DType(), x.Sizes()...) // nllGrad zeroes it
	if x.DType() == tensor.Float32 {
		nllGrad[float32](gi, g, w, total, tg, x.Size(-1), red, none, ignore)
	} else {
		nllGrad[float64](gi, g, w, total, tg, x.Size(-1), red, none, ignore)
	}
	return gi, true
}

// nllGrad zeroes the gradient (asm.ZeroF32: a large one streamed to
// memory, which took 0.7 of the time of Go's clear of the whole) and sets
// each sample's target element.
func nllGrad[T float32 | float64](gi, g, w, total *tensor.Tensor, tg []int64, c, red int, none bool, ignore int64) {
	var ws []T
	if w != nil {
		wc := contiguous(w)
		ws = elems[T](wc)
	}
	gc := contiguous(g)
	gs := elems[T](gc)
	d := data[T](gi)[:len(tg)*c]
	parallel.Range(len(d), 8*grain, 16, func(lo, hi int) {
		switch d := any(d[lo:hi]).(type) {
		case []float32:
			asm.ZeroF32(d)
		case []float64:
			asm.ZeroF64(d)
		}
	})
	grad := -gs[0]
	if !none && red == 1 {
		grad = -(gs[0] / T(total.Item().Float64()))
	}
	for i, cls := range tg {
		if cls == ignore {
			continue
		}
		switch {
		case none && ws != nil:
			d[i*c+int(cls)] = -ws[cls] * gs[i]
		case none:
			d[i*c+int(cls)] = -gs[i]
		case ws != nil:
			d[i*c+int(cls)] = ws[cls] * grad
		default:
			d[i*c+int(cls)] = grad
		}
	}
}

func init() {
	impl("aten::nll_loss_forward", nllLossForwardKernel)
	core.Op("aten::nll_loss_forward").ImplOut(tensor.CPU, nllLossForwardOut)
	impl("aten::nll_loss_backward", nllLossBackwardKernel)
	impl("aten::mse_loss", mseLossKernel)
	impl("aten::mse_loss_backward", mseLossBackwardKernel)
}

// mseLossKernel is mse_loss(self, target, reduction) for float32 operands of
// one shape, both contiguous, with the mean or sum reduction: the squares of
// the float32 differences summed in float64 in one pass
// (asm.SumSqDiffF32), piece by piece as sum and mean take a float32 row, so
// the same bits as the decomposition's sub, mul and mean or sum, without
// its two full-size temporaries. Anything else runs the decomposition.
func mseLossKernel(op *tensor.Op, a []any) any {
	p := args.MseLossOf(a)
	x, y, red := p.Self, p.Target, p.Reduction
	if x.DType() != tensor.Float32 || y.DType() != tensor.Float32 || !slices.Equal(x.Sizes(), y.Sizes()) ||
		!x.IsContiguous() || !y.IsContiguous() || x.Numel() == 0 || red != 1 && red != 2 {
		return op.Composite()(op, a)
	}
	n := x.Numel()
	xs, ys := elems[float32](x), elems[float32](y)
	pieces := (n + redChunk - 1) / redChunk
	part := make([]float64, pieces)
	parallel.Range(pieces, 1, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			a, b := p*redChunk, min(n, (p+1)*redChunk)
			part[p] = asm.SumSqDiffF32(xs[a:b], ys[a:b])
		}
	})
	acc := []float64{sumF64(part)}
	if pieces == 1 {
		acc[0] = part[0]
	}
	if red == 1 { // mean: as meanKernel, the float32 sum over n
		roundF64(acc, tensor.Float32)
		acc[0] /= float64(n)
	}
	out := emptyUninit(tensor.Float32)
	storeRed(out.Storage(), tensor.Float32, 0, 1, acc)
	return out
}

// mseLossBackwardKernel is mse_loss_backward(grad_output, self, target,
// reduction) for float32 operands: self and target of one shape, contiguous,
// and a 0-d or same-shape contiguous gradient. It runs the decomposition's
// ((self - target)·norm)·grad (norm = 2, or 2/numel for the mean) with the
// same float32 kernels chunk by chunk, so the same bits without two
// full-size temporaries. Anything else runs the decomposition.
func mseLossBackwardKernel(op *tensor.Op, a []any) any {
	p := args.MseLossBackwardOf(a)
	g, x, y, red := p.GradOutput, p.Self, p.Target, p.Reduction
	scalarG := g.Dim() == 0
	if x.DType() != tensor.Float32 || y.DType() != tensor.Float32 || g.DType() != tensor.Float32 ||
		!slices.Equal(x.Sizes(), y.Sizes()) || !scalarG && !slices.Equal(g.Sizes(), x.Sizes()) ||
		!x.IsContiguous() || !y.IsContiguous() || !g.IsContiguous() || x.Numel() == 0 {
		return op.Composite()(op, a)
	}
	n := x.Numel()
	norm := 2.0
	if red == 1 {
		norm = 2.0 / float64(n)
	}
	nf := float32(norm) // mul.Scalar's wrapped double in a float32 op
	out := emptyUninit(tensor.Float32, x.Sizes()...)
	d := data[float32](out)[:n]
	xs, ys := elems[float32](x), elems[float32](y)
	gs := data[float32](g)[g.StorageOffset():]
	parallel.Range(n, grain, 64, func(lo, hi int) {
		for i := lo; i < hi; i += fusedChunkLen {
			j := min(hi, i+fusedChunkLen)
			c := d[i:j]
			asm.SubF32(c, xs[i:j], ys[i:j])
			asm.MulScalarF32(c, c, nf)
			if scalarG {
				asm.MulScalarF32(c, c, gs[0])
			} else {
				asm.MulF32(c, c, gs[i:j])
			}
		}
	})
	return out
}
