package decomp

import (
	"fmt"
	"math"
	"slices"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

// Loss functions. Reductions: 0 none, 1 mean, 2 sum (at::Reduction).

func init() {
	def("aten::cross_entropy_loss", crossEntropy)
	def("aten::nll_loss", nllLoss)
	def("aten::nll_loss_nd", nllLossND)
	def("aten::nll_loss2d", nllLoss2d)
	def("aten::nll_loss_forward", nllLossForward)
	def("aten::nll_loss2d_forward", nllLoss2dForward)
	def("aten::nll_loss_backward", nllLossBackward)
	def("aten::mse_loss", checked(kernelDTypes("mse_cpu", floatsHalf), mseLoss))
	def("aten::mse_loss_backward", mseLossBackward)
	def("aten::l1_loss", l1Loss)
	def("aten::smooth_l1_loss", checked(kernelDTypes("smooth_l1_cpu", floatsBF), smoothL1Loss))
	def("aten::huber_loss", checked(kernelDTypes("huber_cpu", floatsBF), huberLoss))
	def("aten::binary_cross_entropy", checked(bceDTypes, binaryCrossEntropy))
	def("aten::binary_cross_entropy_with_logits", bceWithLogits)
	def("aten::kl_div", klDiv)
	def("aten::soft_margin_loss", softMarginLoss)
	def("aten::margin_ranking_loss", marginRankingLoss)
	def("aten::hinge_embedding_loss", hingeEmbeddingLoss)
	def("aten::cosine_embedding_loss", cosineEmbeddingLoss)
	def("aten::poisson_nll_loss", poissonNLLLoss)
	def("aten::triplet_margin_loss", tripletMarginLoss)
}

// checkStructuredReduction is the internal assert of 1.13's structured loss
// kernels (mse_loss, smooth_l1_loss) for a reduction other than none, mean
// and sum; line is where it stands in 1.13's Loss.cpp. The other losses
// accept any value (see applyReduction).
func checkStructuredReduction(r, line int) {
	if r != reduceNone && r != reduceMean && r != reduceSum {
		tensor.Panicf("reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL ASSERT FAILED at \"./aten/src/ATen/native/Loss.cpp\":%d, please report a bug to PyTorch. ", line)
	}
}

// classWeight reshapes a per-class weight to broadcast along the class
// dim. 1.13's kernels read the weight's elements, whatever its shape (a
// [1, C] weight is accepted).
func classWeight(w *T, rank, classDim int) *T {
	shape := ones(max(rank, 1))
	shape[classDim] = w.Numel()
	return w.Reshape(shape)
}

func crossEntropy(op *tensor.Op, a []any) any {
	p := args.CrossEntropyLossOf(a)
	x, t, w := p.Self, p.Target, p.Weight
	red, ignore, smooth := p.Reduction, p.IgnoreIndex, p.LabelSmoothing
	classDim := 1
	if x.Dim() == 1 {
		classDim = 0
	}
	switch {
	case slices.Equal(x.Sizes(), t.Sizes()):
		if !t.DType().IsFloat() {
			tensor.Panicf("Expected floating point type for target with class probabilities, got %s", core.CTypeName(t.DType()))
		}
		tensor.Check(ignore < 0, "ignore_index is not supported for floating point target")
		return crossEntropyProbs(x, t, w, red, smooth, classDim)
	case smooth > 0:
		if !(smooth <= 1) {
			tensor.Panicf("label_smoothing must be between 0.0 and 1.0. Got: %v", smooth)
		}
		return crossEntropySmoothed(x, t, w, red, ignore, smooth, classDim)
	}
	return call("aten::nll_loss_nd", x.LogSoftmax(classDim, tensor.WithDtype(x.DType())), t, w, red, ignore)
}

// crossEntropyProbs is -(log_softmax(x) * target [* weight]) summed over
// classes, with the target mixed toward uniform by label smoothing.
func crossEntropyProbs(x, t, w *T, red int, smooth float64, classDim int) *T {
	n := x.Size(classDim)
	if !(w == nil || (w.Dim() == 1 && w.Numel() == n)) {
		tensor.Panicf("cross_entropy: weight tensor should be defined either for all %d classes or no classes but got weight tensor of shape: %s", n, shapeOf(w))
	}
	in := x.LogSoftmax(classDim, tensor.WithDtype(x.DType()))
	if smooth > 0 {
		if !(smooth <= 1) {
			tensor.Panicf("label_smoothing must be between 0.0 and 1.0. Got: %v", smooth)
		}
		t = t.MulScalar(1 - smooth).AddScalar(smooth / float64(n))
	}
	p := in.Mul(t)
	if w != nil {
		p = p.Mul(classWeight(w, in.Dim(), classDim))
	}
	switch red {
	case reduceMean:
		if in.Numel() == 0 {
			return sumAll(p).Neg().Fill(math.NaN())
		}
		return sumAll(p).Neg().DivScalar(in.Numel() / n)
	case reduceSum:
		return sumAll(p).Neg()
	case reduceNone:
		return p.Sum([]int{classDim}).Neg()
	}
	tensor.Panicf("Invalid reduction type encountered in cross_entropy: %d", red)
	return nil
}

// crossEntropySmoothed mixes the NLL loss with the loss against a uniform
// target: (1-eps)*nll + eps/C * (-sum of log-probabilities), ignored
// targets contributing nothing.
func crossEntropySmoothed(x, t, w *T, red, ignore int, smooth float64, classDim int) *T {
	in := x.LogSoftmax(classDim, tensor.WithDtype(x.DType()))
	nll := call("aten::nll_loss_nd", in, t, w, red, ignore)
	n := in.Size(classDim)
	ignored := t.EqScalar(ignore)
	var sm *T
	if w != nil {
		sm = in.Mul(classWeight(w, in.Dim(), classDim)).Sum([]int{classDim}).Neg()
	} else {
		sm = in.Sum([]int{classDim}).Neg()
	}
	sm = tensor.Where(ignored, zero0(sm), sm)
	var ret *T
	switch red {
	case reduceMean:
		if w != nil {
			safe := tensor.Where(ignored, zero0(t), t)
			tw := reshape(w.Gather(0, reshape(safe, []int{-1})), t.Shape())
			ret = sumAll(sm).Div(sumAll(tensor.Where(ignored, zero0(tw), tw)))
		} else {
			ret = sumAll(sm).Div(ignored.LogicalNot().Sum(nil))
		}
	case reduceSum:
		ret = sumAll(sm)
	case reduceNone:
		ret = sm
	default:
		tensor.Panicf("Invalid reduction type encountered in cross_entropy: %d", red)
	}
	return nll.MulScalar(1 - smooth).Add(ret.MulScalar(smooth / float64(n)))
}

// nllLoss and nllLoss2d are the output of their forward ops, whose
// arguments are theirs.
func nllLoss(op *tensor.Op, a []any) any {
	return invoke("aten::nll_loss_forward", args.NllLossForward(args.NllLossOf(a)).Box()).([]*T)[0]
}

func nllLoss2d(op *tensor.Op, a []any) any {
	return invoke("aten::nll_loss2d_forward", args.NllLoss2dForward(args.NllLoss2dOf(a)).Box()).([]*T)[0]
}

// nllLossND dispatches on rank: 1-2 d to nll_loss, 4-d to nll_loss2d, other
// ranks reshaped to (N, C, 1, -1) for nll_loss2d.
func nllLossND(op *tensor.Op, a []any) any {
	p := args.NllLossNdOf(a)
	x, t, w, red, ignore := p.Self, p.Target, p.Weight, p.Reduction, p.IgnoreIndex
	if x.Dim() < 1 {
		tensor.Raise(&tensor.Error{Kind: tensor.ValueError, Msg: fmt.Sprintf("Expected 1 or more dimensions (got %d)", x.Dim())})
	}
	if x.Dim() != 1 && (t.Dim() == 0 || x.Size(0) != t.Size(0)) {
		tensor.Raise(&tensor.Error{Kind: tensor.ValueError, Msg: fmt.Sprintf("Expected input batch_size (%d) to match target batch_size (%d).", x.Size(0), sizeOr0(t))})
	}
	switch x.Dim() {
	case 1, 2:
		return call("aten::nll_loss", x, t, w, red, ignore)
	case 4:
		return call("aten::nll_loss2d", x, t, w, red, ignore)
	}
	n, c := x.Size(0), x.Size(1)
	outSize := append([]int{n}, x.Sizes()[2:]...)
	if !slices.Equal(t.Sizes()[1:], x.Sizes()[2:]) {
		tensor.Panicf("Expected target size %s, got %s", tensor.ShapeString(outSize), tensor.ShapeString(t.Sizes()))
	}
	if x.Numel() > 0 {
		x = reshape(x, []int{n, c, 1, -1})
	} else {
		x = reshape(x, []int{n, c, 0, 0})
	}
	if t.Numel() > 0 {
		t = reshape(t, []int{n, 1, -1})
	} else {
		t = reshape(t, []int{n, 0, 0})
	}
	out := call("aten::nll_loss2d", x, t, w, red, ignore)
	if red == reduceNone {
		return reshape(out, outSize)
	}
	return out
}

func sizeOr0(t *T) int {
	if t.Dim() == 0 {
		return 0
	}
	return t.Size(0)
}

// nllForward is -x[target] [* weight[target]] along classDim, zero where
// target == ignore_index, with the reduction over the result and the total
// weight of the counted targets.
func nllForward(x, t, w *T, red, ignore, classDim int) []*T {
	keep := t.NeScalar(ignore)
	safe := tensor.Where(keep, t, zero0(t)).Unsqueeze(classDim)
	xw := x
	if w != nil {
		xw = x.Mul(classWeight(w, x.Dim(), classDim))
	}
	res := xw.Gather(classDim, safe).Squeeze(classDim).Neg()
	res = tensor.Where(keep, res, zero0(res))
	if red == reduceNone && x.Dim() > 1 {
		return []*T{res, scalarLike(x, 0, x.DType())}
	}
	var total *T
	if w != nil {
		wx := classWeight(w, x.Dim(), classDim).Expand(x.Shape())
		ws := wx.Gather(classDim, safe).Squeeze(classDim)
		total = sumAll(tensor.Where(keep, ws, zero0(ws)))
	} else {
		total = sumDType(keep, nil, false, x.DType())
	}
	// 1.13's kernels sum for any reduction but none and mean.
	res = sumAll(res)
	if red == reduceMean {
		res = res.Div(total)
	}
	return []*T{res, total}
}

func nllLossForward(op *tensor.Op, a []any) any {
	p := args.NllLossForwardOf(a)
	x, t, w, red, ignore := p.Self, p.Target, p.Weight, p.Reduction, p.IgnoreIndex
	tensor.Check(x.Dim() > 0 && x.Dim() <= 2, "input tensor should be 1D or 2D")
	tensor.Check(t.Dim() <= 1, "0D or 1D target tensor expected, multi-target not supported")
	noBatch := x.Dim() == 1 && t.Dim() == 0
	if !noBatch && (t.Dim() != 1 || x.Size(0) != t.Size(0)) { // the message is formatted only when it is needed
		tensor.Panicf("size mismatch (got input: %s, target: %s)", tensor.ShapeString(x.Sizes()), tensor.ShapeString(t.Sizes()))
	}
	n := x.Size(-1)
	if !(w == nil || (w.Dim() == 1 && w.Numel() == n)) {
		tensor.Panicf("weight tensor should be defined either for all %d classes or no classes but got weight tensor of shape: %s", n, shapeOf(w))
	}
	need("nll_loss_out_frame", x.DType(), floatsBF)
	nllWeightDType(x, w)
	nllCheckTargets(t, n, ignore)
	classDim := 1
	if x.Dim() < 2 {
		classDim = 0
	}
	return nllForward(x, t, w, red, ignore, classDim)
}

func nllLoss2dForward(op *tensor.Op, a []any) any {
	p := args.NllLoss2dForwardOf(a)
	x, t, w, red, ignore := p.Self, p.Target, p.Weight, p.Reduction, p.IgnoreIndex
	if t.Dim() != 3 {
		tensor.Panicf("only batches of spatial targets supported (3D tensors) but got targets of dimension: %d", t.Dim())
	}
	if x.Dim() != 4 {
		tensor.Panicf("only batches of spatial inputs supported (4D tensors), but got input of dimension: %d", x.Dim())
	}
	n := x.Size(1)
	if w != nil && w.Numel() != n {
		tensor.Panicf("weight tensor should be defined either for all %d classes or no classes but got weight tensor of shape: %s", n, shapeOf(w))
	}
	s, ts := x.Sizes(), t.Sizes()
	if s[0] != ts[0] || s[2] != ts[1] || s[3] != ts[2] {
		tensor.Panicf("size mismatch (got input: %s , target: %s", tensor.ShapeString(s), tensor.ShapeString(ts))
	}
	need("nll_loss2d_forward_out_frame", x.DType(), floatsBF)
	nllWeightDType(x, w)
	nllCheckTargets(t, n, ignore)
	return nllForward(x, t, w, red, ignore, 1)
}

// nllCheckTargets is the nll kernels' TORCH_CHECK_INDEX: every target but
// ignore_index is a class, in [0, classes). It reads the targets, so it is
// left out where they have no values (the meta device, a fake trace), as
// PyTorch's meta kernels leave it out.
func nllCheckTargets(t *T, classes, ignore int) {
	if !t.DType().IsIntegral(false) || !t.HasData() {
		return
	}
	for _, v := range t.Int64s() {
		if v != int64(ignore) && (v < 0 || v >= int64(classes)) {
			tensor.IndexPanicf("Target %d is out of bounds.", v)
		}
	}
}

// nllWeightDType: the nll kernels read the class weights as the input's
// scalar type.
func nllWeightDType(x, w *T) {
	if w != nil && w.DType() != x.DType() {
		tensor.Panicf("expected scalar type %s but found %s", core.CTypeName(x.DType()), core.CTypeName(w.DType()))
	}
}

// nllLossBackward scatters -grad (divided by the total weight for mean) to
// the target classes.
func nllLossBackward(op *tensor.Op, a []any) any {
	p := args.NllLossBackwardOf(a)
	g, x, t, w := p.GradOutput, p.Self, p.Target, p.Weight
	red, ignore, total := p.Reduction, p.IgnoreIndex, p.TotalWeight
	need("nll_loss_backward_out_frame", x.DType(), floatsBF)
	if red == reduceNone && x.Dim() == 2 {
		// check_dim_size: a 0-d grad fails while the message reads its size.
		tensor.Check(g.Dim() > 0, "Dimension specified as 0 but tensor has no dimensions")
		if g.Dim() != 1 || g.Size(0) != x.Size(0) {
			tensor.Panicf("Expected a tensor of dimension 1 and tensor.size[0] == %d but got: dimension %d and tensor.size[0] = %d", x.Size(0), g.Dim(), g.Size(0))
		}
	} else {
		if g.Dim() > 1 || g.Numel() != 1 {
			tensor.Panicf("Expected a single element grad_output tensor, but got: %s", tensor.ShapeString(g.Sizes()))
		}
	}
	classDim := 1
	if x.Dim() < 2 {
		classDim = 0
	}
	if x.Dim() > 0 {
		nllCheckTargets(t, x.Size(classDim), ignore)
	}
	if red == reduceMean {
		g = g.Div(total)
	}
	keep := t.NeScalar(ignore)
	safe := tensor.Where(keep, t, zero0(t)).Unsqueeze(classDim)
	gi := fullOn(x, x.Shape(), 0, x.DType()).ScatterValue(classDim, safe, -1.0)
	if gi.Dim() > g.Dim() && g.Dim() > 0 {
		g = g.Unsqueeze(classDim)
	}
	if w != nil {
		g = g.Mul(classWeight(w, x.Dim(), classDim))
	}
	if keep.Dim() > 0 && x.Dim() > 1 {
		keep = keep.Unsqueeze(classDim)
	}
	g = tensor.Where(keep, g, zero0(g))
	return gi.Mul(g)
}

func mseLoss(op *tensor.Op, a []any) any {
	p := args.MseLossOf(a)
	x, y := commonOperands(p.Self, p.Target)
	checkStructuredReduction(p.Reduction, 50)
	d := x.Sub(y)
	return applyReduction(d.Mul(d), p.Reduction)
}

// commonOperands converts x and y to their result type, as the
// TensorIterator of a loss kernel computes in it (so a bool operand, which
// sub rejects, is fine).
func commonOperands(x, y *T) (*T, *T) {
	d := tensor.ResultType(x, y)
	return x.To(d), y.To(d)
}

func mseLossBackward(op *tensor.Op, a []any) any {
	p := args.MseLossBackwardOf(a)
	g, x, t, red := p.GradOutput, p.Self, p.Target, p.Reduction
	norm := 2.0
	if red == reduceMean {
		norm = 2.0 / float64(x.Numel())
	}
	return x.Sub(t).MulScalar(norm).Mul(g)
}

func l1Loss(op *tensor.Op, a []any) any {
	p := args.L1LossOf(a)
	return applyReduction(p.Self.Sub(p.Target).Abs(), p.Reduction)
}

// smoothL1Loss is 0.5 z^2 / beta below beta, z - beta/2 above, z = |x - y|.
func smoothL1Loss(op *tensor.Op, a []any) any {
	p := args.SmoothL1LossOf(a)
	x, y, red, beta := p.Self, p.Target, p.Reduction, p.Beta
	tensor.Check(beta >= 0, "smooth_l1_loss does not support negative values for beta.")
	checkStructuredReduction(red, 39)
	if beta == 0 {
		return call("aten::l1_loss", x, y, red)
	}
	x, y = commonOperands(x, y)
	z := x.Sub(y).Abs()
	b := opmathScalar(beta, z.DType())
	loss := tensor.Where(z.LtScalar(b), z.MulScalar(0.5).Mul(z).DivScalar(b), z.SubScalar(0.5*b))
	return applyReduction(loss, red)
}

// huberLoss is 0.5 z^2 below delta, delta (z - delta/2) above.
func huberLoss(op *tensor.Op, a []any) any {
	p := args.HuberLossOf(a)
	x, y, red, delta := p.Self, p.Target, p.Reduction, p.Delta
	tensor.Check(delta > 0, "huber_loss does not support non-positive values for delta.")
	// 1.13 writes the loss into a tensor like the input, computed in the
	// common dtype.
	out := x.DType()
	x, y = commonOperands(x, y)
	if !tensor.CanCast(x.DType(), out) {
		tensor.Panicf("result type %s can't be cast to the desired output type %s", core.CTypeName(x.DType()), core.CTypeName(out))
	}
	z := x.Sub(y).Abs()
	dl := opmathScalar(delta, z.DType())
	loss := tensor.Where(z.LtScalar(dl), z.MulScalar(0.5).Mul(z), z.SubScalar(0.5*dl).MulScalar(dl))
	return applyReduction(loss.To(out), red)
}

// bceDTypes: 1.13's kernel takes the target in the input's dtype (its
// TensorIterator checks all dtypes equal) and only float and double.
func bceDTypes(a []any) {
	p := args.BinaryCrossEntropyOf(a)
	x, t := p.Self, p.Target
	if t.DType() != x.DType() {
		tensor.Panicf("Found dtype %s but expected %s", core.CTypeName(t.DType()), core.CTypeName(x.DType()))
	}
	need("binary_cross_entropy", x.DType(), floatsOnly)
}

// binaryCrossEntropy is (t - 1) max(log(1 - x), -100) - t max(log(x), -100).
func binaryCrossEntropy(op *tensor.Op, a []any) any {
	p := args.BinaryCrossEntropyOf(a)
	x, t, w, red := p.Self, p.Target, p.Weight, p.Reduction
	if !slices.Equal(x.Sizes(), t.Sizes()) {
		tensor.Panicf("Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they have the same size.", tensor.ShapeString(t.Sizes()), tensor.ShapeString(x.Sizes()))
	}
	lo := x.Neg().Log1p().Clamp(tensor.WithMin(-100))
	hi := x.Log().Clamp(tensor.WithMin(-100))
	loss := t.SubScalar(1).Mul(lo).Sub(t.Mul(hi))
	if w != nil {
		loss = loss.Mul(w)
	}
	return applyReduction(loss, red)
}

// bceWithLogits is (1 - t) x + lw (log(exp(-m) + exp(-x - m)) + m) with
// m = max(-x, 0) and lw = 1 + (pos_weight - 1) t (1 without pos_weight).
func bceWithLogits(op *tensor.Op, a []any) any {
	p := args.BinaryCrossEntropyWithLogitsOf(a)
	x, t, w, pw, red := p.Self, p.Target, p.Weight, p.PosWeight, p.Reduction
	if !slices.Equal(x.Sizes(), t.Sizes()) {
		tensor.Panicf("Target size (%s) must be the same as input size (%s)", tensor.ShapeString(t.Sizes()), tensor.ShapeString(x.Sizes()))
	}
	m := x.Neg().Clamp(tensor.WithMin(0))
	lse := m.Neg().Exp().Add(x.Neg().Sub(m).Exp()).Log().Add(m)
	var loss *T
	if pw != nil {
		lw := pw.SubScalar(1).Mul(t).AddScalar(1)
		loss = rsub(1, t).Mul(x).Add(lw.Mul(lse))
	} else {
		loss = rsub(1, t).Mul(x).Add(m).Add(m.Neg().Exp().Add(x.Neg().Sub(m).Exp()).Log())
	}
	if w != nil {
		loss = loss.Mul(w)
	}
	return applyReduction(loss, red)
}

func klDiv(op *tensor.Op, a []any) any {
	p := args.KlDivOf(a)
	x, t, red, logTarget := p.Self, p.Target, p.Reduction, p.LogTarget
	tensor.Check(x.DType().IsFloat() && t.DType().IsFloat(), "kl_div: Integral inputs not supported.")
	var out *T
	if logTarget {
		out = t.Exp().Mul(t.Sub(x))
	} else {
		out = call("aten::xlogy.Tensor", t, t).Sub(t.Mul(x))
	}
	return applyReduction(out, red)
}

func softMarginLoss(op *tensor.Op, a []any) any {
	p := args.SoftMarginLossOf(a)
	x, t, red := p.Self, p.Target, p.Reduction
	loss := x.Neg().Mul(t).Exp().Log1p()
	if red != reduceNone && red != reduceMean && red != reduceSum {
		// 1.13 resizes its unreduced output to 0-d in place: the first element.
		return loss.Reshape([]int{-1}).Select(0, 0)
	}
	return applyReduction(loss, red)
}

func marginRankingLoss(op *tensor.Op, a []any) any {
	p := args.MarginRankingLossOf(a)
	x1, x2, t, margin := p.Input1, p.Input2, p.Target, p.Margin
	out := t.Neg().Mul(x1.Sub(x2)).AddScalar(margin).Clamp(tensor.WithMin(0))
	return applyReduction(out, p.Reduction)
}

func hingeEmbeddingLoss(op *tensor.Op, a []any) any {
	p := args.HingeEmbeddingLossOf(a)
	x, t, margin := p.Self, p.Target, p.Margin
	zeros := fullOn(x, x.Shape(), 0, x.DType())
	outMargin := tensor.Where(t.NeScalar(1), rsub(margin, x).Clamp(tensor.WithMin(0)), zeros)
	outSelf := tensor.Where(t.NeScalar(-1), x, zeros)
	return applyReduction(outMargin.Add(outSelf), p.Reduction)
}

func cosineEmbeddingLoss(op *tensor.Op, a []any) any {
	p := args.CosineEmbeddingLossOf(a)
	x1, x2, t, margin := p.Input1, p.Input2, p.Target, p.Margin
	td := t.Dim()
	tensor.Check(td == 1 || td == 0, "0D or 1D target tensor expected, multi-target not supported")
	if td == 1 {
		if x1.Dim() != 2 || x2.Dim() != 2 {
			tensor.Panicf("1D target tensor expects 2D input tensors, but found inputs with sizes %s and %s.", tensor.ShapeString(x1.Sizes()), tensor.ShapeString(x2.Sizes()))
		}
	} else {
		if x1.Dim() != 1 || x2.Dim() != 1 {
			tensor.Panicf("0D target tensor expects 1D input tensors, but found inputs with sizes %s and %s.", tensor.ShapeString(x1.Sizes()), tensor.ShapeString(x2.Sizes()))
		}
	}
	const eps = 1e-12
	prodSum := x1.Mul(x2).Sum([]int{td})
	m1 := x1.Mul(x1).Sum([]int{td}).AddScalar(eps)
	m2 := x2.Mul(x2).Sum([]int{td}).AddScalar(eps)
	cos := prodSum.Div(m1.Mul(m2).Sqrt())
	zeros := fullOn(cos, cos.Shape(), 0, cos.DType())
	pos := rsub(1, cos)
	neg := cos.SubScalar(margin).Clamp(tensor.WithMin(0))
	out := tensor.Where(t.EqScalar(1), pos, zeros).Add(tensor.Where(t.EqScalar(-1), neg, zeros))
	return applyReduction(out, p.Reduction)
}

func poissonNLLLoss(op *tensor.Op, a []any) any {
	p := args.PoissonNllLossOf(a)
	x, t, logInput, full, eps, red := p.Input, p.Target, p.LogInput, p.Full, p.Eps, p.Reduction
	var loss *T
	if logInput {
		loss = x.Exp().Sub(t.Mul(x))
	} else {
		loss = x.Sub(t.Mul(x.AddScalar(eps).Log()))
	}
	if full {
		st := t.Mul(t.Log()).Sub(t).Add(t.MulScalar(2 * math.Pi).Log().MulScalar(0.5))
		loss = loss.Add(tensor.Where(t.LeScalar(1), zero0(st), st))
	}
	return applyReduction(loss, red)
}

func tripletMarginLoss(op *tensor.Op, a []any) any {
	v := args.TripletMarginLossOf(a)
	an, po, ne := v.Anchor, v.Positive, v.Negative
	margin, p, eps, swap, red := v.Margin, v.P, v.Eps, v.Swap, v.Reduction
	if an.Dim() != po.Dim() || po.Dim() != ne.Dim() {
		tensor.Panicf("The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor %dD, positive %dD, and negative %dD inputs", an.Dim(), po.Dim(), ne.Dim())
	}
	dist := func(x, y *T) *T {
		return call("aten::pairwise_distance", x, y, p, eps, false)
	}
	dp, dn := dist(an, po), dist(an, ne)
	if swap {
		dn = dn.Minimum(dist(po, ne))
	}
	return applyReduction(dp.Sub(dn).AddScalar(margin).Clamp(tensor.WithMin(0)), red)
}
