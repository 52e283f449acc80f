package nn

import (
	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// The losses, as modules whose Forward takes the input and the target.
// Reductions are named as in PyTorch, Reduction("mean") (the default),
// "sum" or "none"; the integer enum of the aten ops stays inside.

// reductionEnum is _Reduction.get_enum. An unknown name panics with
// PyTorch's ValueError, when the loss is made (PyTorch: at its first call).
func reductionEnum(r string) int {
	switch r {
	case "none":
		return 0
	case "mean":
		return 1
	case "sum":
		return 2
	}
	valueError("%s is not a valid value for reduction", r)
	return -1
}

// lossBase is what the losses share (PyTorch's _Loss).
type lossBase struct {
	Base
	Reduction string
	reduction int
}

func newLoss(cls string, k kwargs) lossBase {
	l := lossBase{Reduction: k.str("reduction", "mean")}
	l.SetName(cls)
	if cls == "KLDivLoss" && l.Reduction == "batchmean" {
		l.reduction = 2
	} else {
		l.reduction = reductionEnum(l.Reduction)
	}
	return l
}

func (l *lossBase) red() gt.Option { return gt.WithReduction(l.reduction) }

// broadcastPair is torch.broadcast_tensors(a, b).
func broadcastPair(a, b *T) (*T, *T) {
	sa, sb := a.Sizes(), b.Sizes()
	if sameSizes(sa, sb) {
		return a, b
	}
	n := max(len(sa), len(sb))
	out := make([]int, n)
	for i := 0; i < n; i++ {
		x, y := 1, 1
		if j := len(sa) - n + i; j >= 0 {
			x = sa[j]
		}
		if j := len(sb) - n + i; j >= 0 {
			y = sb[j]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			tensor.Panicf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", x, y, i)
		}
	}
	return a.Expand(out), b.Expand(out)
}

// CrossEntropyLoss is the cross entropy between logits (N, C, d...) or
// (C) and a target of class indices (N, d...) or of class probabilities
// (the input's shape) (nn.CrossEntropyLoss). Options: Weight (per class,
// the buffer "weight"), IgnoreIndex (-100), Reduction ("mean"),
// LabelSmoothing (0).
type CrossEntropyLoss struct {
	lossBase
	Weight         *T
	IgnoreIndex    int
	LabelSmoothing float64
}

// NewCrossEntropyLoss makes nn.CrossEntropyLoss().
func NewCrossEntropyLoss(opts ...Option) *CrossEntropyLoss {
	k := parse("CrossEntropyLoss", opts, "weight", "ignore_index", "reduction", "label_smoothing")
	l := &CrossEntropyLoss{lossBase: newLoss("CrossEntropyLoss", k), IgnoreIndex: k.int("ignore_index", -100), LabelSmoothing: k.float("label_smoothing", 0)}
	l.Weight = l.RegisterBuffer("weight", k.tensor("weight"), true)
	return l
}

// Forward is F.cross_entropy(input, target, ...).
func (l *CrossEntropyLoss) Forward(input, target *T) *T {
	opts := []gt.Option{l.red(), gt.WithIgnoreIndex(l.IgnoreIndex), gt.WithLabelSmoothing(l.LabelSmoothing)}
	if l.Weight != nil {
		opts = append(opts, gt.WithWeight(l.Weight))
	}
	return input.CrossEntropyLoss(target, opts...)
}

func (l *CrossEntropyLoss) String() string { return Repr(l) }

// NLLLoss is the negative log likelihood of log-probabilities (N, C, d...)
// or (C) at target class indices (nn.NLLLoss). Options: Weight (the
// buffer "weight"), IgnoreIndex (-100), Reduction ("mean").
type NLLLoss struct {
	lossBase
	Weight      *T
	IgnoreIndex int
}

// NewNLLLoss makes nn.NLLLoss().
func NewNLLLoss(opts ...Option) *NLLLoss {
	k := parse("NLLLoss", opts, "weight", "ignore_index", "reduction")
	l := &NLLLoss{lossBase: newLoss("NLLLoss", k), IgnoreIndex: k.int("ignore_index", -100)}
	l.Weight = l.RegisterBuffer("weight", k.tensor("weight"), true)
	return l
}

// Forward is F.nll_loss(input, target, ...).
func (l *NLLLoss) Forward(input, target *T) *T {
	opts := []gt.Option{l.red(), gt.WithIgnoreIndex(l.IgnoreIndex)}
	if l.Weight != nil {
		opts = append(opts, gt.WithWeight(l.Weight))
	}
	return input.NllLossNd(target, opts...)
}

func (l *NLLLoss) String() string { return Repr(l) }

// MSELoss is the squared error (nn.MSELoss); input and target broadcast.
// Options: Reduction ("mean").
type MSELoss struct{ lossBase }

// NewMSELoss makes nn.MSELoss().
func NewMSELoss(opts ...Option) *MSELoss {
	return &MSELoss{newLoss("MSELoss", parse("MSELoss", opts, "reduction"))}
}

// Forward is F.mse_loss(input, target).
func (l *MSELoss) Forward(input, target *T) *T {
	a, b := broadcastPair(input, target)
	return a.MseLoss(b, l.red())
}

func (l *MSELoss) String() string { return Repr(l) }

// L1Loss is the absolute error (nn.L1Loss); input and target broadcast.
// Options: Reduction ("mean").
type L1Loss struct{ lossBase }

// NewL1Loss makes nn.L1Loss().
func NewL1Loss(opts ...Option) *L1Loss {
	return &L1Loss{newLoss("L1Loss", parse("L1Loss", opts, "reduction"))}
}

// Forward is F.l1_loss(input, target).
func (l *L1Loss) Forward(input, target *T) *T {
	a, b := broadcastPair(input, target)
	return a.L1Loss(b, l.red())
}

func (l *L1Loss) String() string { return Repr(l) }

// SmoothL1Loss is quadratic below Beta and linear above (nn.SmoothL1Loss).
// Options: Reduction ("mean"), Beta (1).
type SmoothL1Loss struct {
	lossBase
	Beta float64
}

// NewSmoothL1Loss makes nn.SmoothL1Loss().
func NewSmoothL1Loss(opts ...Option) *SmoothL1Loss {
	k := parse("SmoothL1Loss", opts, "reduction", "beta")
	return &SmoothL1Loss{newLoss("SmoothL1Loss", k), k.float("beta", 1)}
}

// Forward is F.smooth_l1_loss(input, target).
func (l *SmoothL1Loss) Forward(input, target *T) *T {
	a, b := broadcastPair(input, target)
	return a.SmoothL1Loss(b, l.red(), gt.WithBeta(l.Beta))
}

func (l *SmoothL1Loss) String() string { return Repr(l) }

// HuberLoss is quadratic below Delta and linear above, scaled by Delta
// (nn.HuberLoss). Options: Reduction ("mean"), Delta (1).
type HuberLoss struct {
	lossBase
	Delta float64
}

// NewHuberLoss makes nn.HuberLoss().
func NewHuberLoss(opts ...Option) *HuberLoss {
	k := parse("HuberLoss", opts, "reduction", "delta")
	return &HuberLoss{newLoss("HuberLoss", k), k.float("delta", 1)}
}

// Forward is F.huber_loss(input, target).
func (l *HuberLoss) Forward(input, target *T) *T {
	a, b := broadcastPair(input, target)
	return a.HuberLoss(b, l.red(), gt.WithDelta(l.Delta))
}

func (l *HuberLoss) String() string { return Repr(l) }

// BCELoss is the binary cross entropy of probabilities (nn.BCELoss); input
// and target have the same shape. Options: Weight (broadcast to the
// target; the buffer "weight"), Reduction ("mean").
type BCELoss struct {
	lossBase
	Weight *T
}

// NewBCELoss makes nn.BCELoss().
func NewBCELoss(opts ...Option) *BCELoss {
	k := parse("BCELoss", opts, "weight", "reduction")
	l := &BCELoss{lossBase: newLoss("BCELoss", k)}
	l.Weight = l.RegisterBuffer("weight", k.tensor("weight"), true)
	return l
}

// Forward is F.binary_cross_entropy(input, target, weight).
func (l *BCELoss) Forward(input, target *T) *T {
	if !sameSizes(target.Sizes(), input.Sizes()) {
		valueError("Using a target size (%s) that is different to the input size (%s) is deprecated. Please ensure they have the same size.",
			sizeRepr(target.Sizes()), sizeRepr(input.Sizes()))
	}
	opts := []gt.Option{l.red()}
	if l.Weight != nil {
		_, w := broadcastPair(target, l.Weight)
		opts = append(opts, gt.WithWeight(w))
	}
	return input.BinaryCrossEntropy(target, opts...)
}

func (l *BCELoss) String() string { return Repr(l) }

// BCEWithLogitsLoss is BCELoss on sigmoid(input), computed stably
// (nn.BCEWithLogitsLoss). Options: Weight (the buffer "weight"), PosWeight
// (per class, the buffer "pos_weight"), Reduction ("mean").
type BCEWithLogitsLoss struct {
	lossBase
	Weight, PosWeight *T
}

// NewBCEWithLogitsLoss makes nn.BCEWithLogitsLoss().
func NewBCEWithLogitsLoss(opts ...Option) *BCEWithLogitsLoss {
	k := parse("BCEWithLogitsLoss", opts, "weight", "reduction", "pos_weight")
	l := &BCEWithLogitsLoss{lossBase: newLoss("BCEWithLogitsLoss", k)}
	l.Weight = l.RegisterBuffer("weight", k.tensor("weight"), true)
	l.PosWeight = l.RegisterBuffer("pos_weight", k.tensor("pos_weight"), true)
	return l
}

// Forward is F.binary_cross_entropy_with_logits(input, target, weight, pos_weight).
func (l *BCEWithLogitsLoss) Forward(input, target *T) *T {
	if !sameSizes(target.Sizes(), input.Sizes()) {
		valueError("Target size (%s) must be the same as input size (%s)", sizeRepr(target.Sizes()), sizeRepr(input.Sizes()))
	}
	opts := []gt.Option{l.red()}
	if l.Weight != nil {
		opts = append(opts, gt.WithWeight(l.Weight))
	}
	if l.PosWeight != nil {
		opts = append(opts, gt.WithPosWeight(l.PosWeight))
	}
	return input.BinaryCrossEntropyWithLogits(target, opts...)
}

func (l *BCEWithLogitsLoss) String() string { return Repr(l) }

// KLDivLoss is the Kullback-Leibler divergence of target from input, the
// input given as log-probabilities (nn.KLDivLoss). Options: Reduction
// ("mean", which divides by the number of elements as PyTorch 1.13 does;
// "batchmean" divides the sum by the batch size, the mathematical KL
// divergence), LogTarget.
type KLDivLoss struct {
	lossBase
	LogTarget bool
}

// NewKLDivLoss makes nn.KLDivLoss().
func NewKLDivLoss(opts ...Option) *KLDivLoss {
	k := parse("KLDivLoss", opts, "reduction", "log_target")
	return &KLDivLoss{newLoss("KLDivLoss", k), k.bool("log_target", false)}
}

// Forward is F.kl_div(input, target, reduction, log_target).
func (l *KLDivLoss) Forward(input, target *T) *T {
	out := input.KlDiv(target, l.red(), gt.WithLogTarget(l.LogTarget))
	if l.Reduction == "batchmean" && input.Dim() != 0 {
		out = out.DivScalar(input.Size(0))
	}
	return out
}

func (l *KLDivLoss) String() string { return Repr(l) }
