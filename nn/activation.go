package nn

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// The activations as modules. Arguments PyTorch gives defaults are options;
// each layer's doc lists them. A layer with Inplace overwrites its input.

func inplaceRepr(inplace bool, sep string) string {
	if inplace {
		return sep + "inplace=True"
	}
	return ""
}

// pyNum prints a number as Python prints an int or float argument; the
// integral values PyTorch's defaults give as ints (Softplus's beta=1,
// threshold=20) print as ints.
func pyNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprint(int64(f))
	}
	return pyFloat(f)
}

// Threshold replaces values not above threshold by value (nn.Threshold).
// Options: Inplace.
type Threshold struct {
	Base
	Threshold, Value float64
	Inplace          bool
}

// NewThreshold makes nn.Threshold(threshold, value).
func NewThreshold(threshold, value float64, opts ...Option) *Threshold {
	k := parse("Threshold", opts, "inplace")
	m := &Threshold{Threshold: threshold, Value: value, Inplace: k.bool("inplace", false)}
	m.SetName("Threshold")
	return m
}

// Forward is F.threshold.
func (m *Threshold) Forward(x *T) *T {
	if m.Inplace {
		return x.Threshold_(m.Threshold, m.Value)
	}
	return x.Threshold(m.Threshold, m.Value)
}

// ExtraRepr is "threshold=0.1, value=20.0".
func (m *Threshold) ExtraRepr() string {
	return fmt.Sprintf("threshold=%s, value=%s", pyFloat(m.Threshold), pyFloat(m.Value)) + inplaceRepr(m.Inplace, ", ")
}

func (m *Threshold) String() string { return Repr(m) }

// ReLU is max(0, x) (nn.ReLU). Options: Inplace.
type ReLU struct {
	Base
	Inplace bool
}

// NewReLU makes nn.ReLU().
func NewReLU(opts ...Option) *ReLU {
	k := parse("ReLU", opts, "inplace")
	m := &ReLU{Inplace: k.bool("inplace", false)}
	m.SetName("ReLU")
	return m
}

// Forward is F.relu.
func (m *ReLU) Forward(x *T) *T {
	if m.Inplace {
		return x.Relu_()
	}
	return x.Relu()
}

// ExtraRepr is "" or "inplace=True".
func (m *ReLU) ExtraRepr() string { return inplaceRepr(m.Inplace, "") }

func (m *ReLU) String() string { return Repr(m) }

// Hardtanh clamps to [MinVal, MaxVal] (nn.Hardtanh). Options: MinVal (-1),
// MaxVal (1), Inplace.
type Hardtanh struct {
	Base
	MinVal, MaxVal float64
	Inplace        bool
	relu6          bool
}

// NewHardtanh makes nn.Hardtanh().
func NewHardtanh(opts ...Option) *Hardtanh {
	k := parse("Hardtanh", opts, "min_val", "max_val", "inplace")
	m := &Hardtanh{MinVal: k.float("min_val", -1), MaxVal: k.float("max_val", 1), Inplace: k.bool("inplace", false)}
	m.SetName("Hardtanh")
	if !(m.MaxVal > m.MinVal) {
		valueError("Hardtanh: max_val (%s) must be greater than min_val (%s)", pyFloat(m.MaxVal), pyFloat(m.MinVal))
	}
	return m
}

// Forward is F.hardtanh.
func (m *Hardtanh) Forward(x *T) *T {
	if m.Inplace {
		return x.Hardtanh_(gt.WithMinVal(m.MinVal), gt.WithMaxVal(m.MaxVal))
	}
	return x.Hardtanh(gt.WithMinVal(m.MinVal), gt.WithMaxVal(m.MaxVal))
}

// ExtraRepr is "min_val=-1.0, max_val=1.0".
func (m *Hardtanh) ExtraRepr() string {
	if m.relu6 {
		return inplaceRepr(m.Inplace, "")
	}
	return fmt.Sprintf("min_val=%s, max_val=%s", pyFloat(m.MinVal), pyFloat(m.MaxVal)) + inplaceRepr(m.Inplace, ", ")
}

func (m *Hardtanh) String() string { return Repr(m) }

// ReLU6 is min(max(0, x), 6) (nn.ReLU6, a Hardtanh(0, 6) as in PyTorch).
// Options: Inplace.
type ReLU6 struct{ Hardtanh }

// NewReLU6 makes nn.ReLU6().
func NewReLU6(opts ...Option) *ReLU6 {
	k := parse("ReLU6", opts, "inplace")
	m := &ReLU6{Hardtanh{MinVal: 0, MaxVal: 6, Inplace: k.bool("inplace", false), relu6: true}}
	m.SetName("ReLU6")
	return m
}

func (m *ReLU6) String() string { return Repr(m) }

// simple is an activation with no settings but Inplace.
type simple struct {
	Base
	Inplace bool
	f, f_   func(*T) *T
	repr    bool // whether the class has PyTorch's inplace extra_repr
}

func newSimple(cls string, opts []Option, inplace bool, f, f_ func(*T) *T) simple {
	var k kwargs
	if inplace {
		k = parse(cls, opts, "inplace")
	} else {
		k = parse(cls, opts)
	}
	m := simple{Inplace: k.bool("inplace", false), f: f, f_: f_}
	m.SetName(cls)
	return m
}

func (m *simple) Forward(x *T) *T {
	if m.Inplace {
		return m.f_(x)
	}
	return m.f(x)
}

func (m *simple) ExtraRepr() string {
	if m.repr {
		return inplaceRepr(m.Inplace, "")
	}
	return ""
}

// Sigmoid is 1/(1+exp(-x)) (nn.Sigmoid).
type Sigmoid struct{ simple }

// NewSigmoid makes nn.Sigmoid().
func NewSigmoid() *Sigmoid { return &Sigmoid{newSimple("Sigmoid", nil, false, (*T).Sigmoid, nil)} }

func (m *Sigmoid) String() string { return Repr(m) }

// Tanh is nn.Tanh.
type Tanh struct{ simple }

// NewTanh makes nn.Tanh().
func NewTanh() *Tanh { return &Tanh{newSimple("Tanh", nil, false, (*T).Tanh, nil)} }

func (m *Tanh) String() string { return Repr(m) }

// Hardsigmoid is nn.Hardsigmoid. Options: Inplace.
type Hardsigmoid struct{ simple }

// NewHardsigmoid makes nn.Hardsigmoid().
func NewHardsigmoid(opts ...Option) *Hardsigmoid {
	return &Hardsigmoid{newSimple("Hardsigmoid", opts, true, (*T).Hardsigmoid, (*T).Hardsigmoid_)}
}

func (m *Hardsigmoid) String() string { return Repr(m) }

// Hardswish is nn.Hardswish. Options: Inplace.
type Hardswish struct{ simple }

// NewHardswish makes nn.Hardswish().
func NewHardswish(opts ...Option) *Hardswish {
	return &Hardswish{newSimple("Hardswish", opts, true, (*T).Hardswish, (*T).Hardswish_)}
}

func (m *Hardswish) String() string { return Repr(m) }

// SiLU is x·sigmoid(x) (nn.SiLU). Options: Inplace.
type SiLU struct{ simple }

// NewSiLU makes nn.SiLU().
func NewSiLU(opts ...Option) *SiLU {
	m := &SiLU{newSimple("SiLU", opts, true, (*T).Silu, (*T).Silu_)}
	m.repr = true
	return m
}

func (m *SiLU) String() string { return Repr(m) }

// Mish is x·tanh(softplus(x)) (nn.Mish). Options: Inplace.
type Mish struct{ simple }

// NewMish makes nn.Mish().
func NewMish(opts ...Option) *Mish {
	m := &Mish{newSimple("Mish", opts, true, (*T).Mish, (*T).Mish_)}
	m.repr = true
	return m
}

func (m *Mish) String() string { return Repr(m) }

// SELU is nn.SELU. Options: Inplace.
type SELU struct{ simple }

// NewSELU makes nn.SELU().
func NewSELU(opts ...Option) *SELU {
	m := &SELU{newSimple("SELU", opts, true, (*T).Selu, (*T).Selu_)}
	m.repr = true
	return m
}

func (m *SELU) String() string { return Repr(m) }

// LogSigmoid is log(sigmoid(x)) (nn.LogSigmoid).
type LogSigmoid struct{ simple }

// NewLogSigmoid makes nn.LogSigmoid().
func NewLogSigmoid() *LogSigmoid {
	return &LogSigmoid{newSimple("LogSigmoid", nil, false, (*T).LogSigmoid, nil)}
}

func (m *LogSigmoid) String() string { return Repr(m) }

// Softsign is x/(1+|x|) (nn.Softsign).
type Softsign struct{ simple }

// NewSoftsign makes nn.Softsign().
func NewSoftsign() *Softsign {
	return &Softsign{newSimple("Softsign", nil, false, func(x *T) *T { return x.Div(x.Abs().AddScalar(1)) }, nil)}
}

func (m *Softsign) String() string { return Repr(m) }

// Tanhshrink is x - tanh(x) (nn.Tanhshrink).
type Tanhshrink struct{ simple }

// NewTanhshrink makes nn.Tanhshrink().
func NewTanhshrink() *Tanhshrink {
	return &Tanhshrink{newSimple("Tanhshrink", nil, false, func(x *T) *T { return x.Sub(x.Tanh()) }, nil)}
}

func (m *Tanhshrink) String() string { return Repr(m) }

// ELU is nn.ELU. Options: Alpha (1), Inplace.
type ELU struct {
	Base
	Alpha   float64
	Inplace bool
}

// NewELU makes nn.ELU().
func NewELU(opts ...Option) *ELU {
	k := parse("ELU", opts, "alpha", "inplace")
	m := &ELU{Alpha: k.float("alpha", 1), Inplace: k.bool("inplace", false)}
	m.SetName("ELU")
	return m
}

// Forward is F.elu.
func (m *ELU) Forward(x *T) *T {
	if m.Inplace {
		return x.Elu_(gt.WithAlpha(m.Alpha))
	}
	return x.Elu(gt.WithAlpha(m.Alpha))
}

// ExtraRepr is "alpha=1.0".
func (m *ELU) ExtraRepr() string { return "alpha=" + pyFloat(m.Alpha) + inplaceRepr(m.Inplace, ", ") }

func (m *ELU) String() string { return Repr(m) }

// CELU is nn.CELU. Options: Alpha (1), Inplace.
type CELU struct {
	Base
	Alpha   float64
	Inplace bool
}

// NewCELU makes nn.CELU().
func NewCELU(opts ...Option) *CELU {
	k := parse("CELU", opts, "alpha", "inplace")
	m := &CELU{Alpha: k.float("alpha", 1), Inplace: k.bool("inplace", false)}
	m.SetName("CELU")
	return m
}

// Forward is F.celu.
func (m *CELU) Forward(x *T) *T {
	if m.Inplace {
		return x.Celu_(gt.WithAlpha(m.Alpha))
	}
	return x.Celu(gt.WithAlpha(m.Alpha))
}

// ExtraRepr is "alpha=1.0".
func (m *CELU) ExtraRepr() string { return "alpha=" + pyFloat(m.Alpha) + inplaceRepr(m.Inplace, ", ") }

func (m *CELU) String() string { return Repr(m) }

// GLU is the gated linear unit a ⊗ σ(b), a and b the halves of the input
// along Dim (nn.GLU). Options: Dim (-1).
type GLU struct {
	Base
	Dim int
}

// NewGLU makes nn.GLU().
func NewGLU(opts ...Option) *GLU {
	k := parse("GLU", opts, "dim")
	m := &GLU{Dim: k.int("dim", -1)}
	m.SetName("GLU")
	return m
}

// Forward is F.glu.
func (m *GLU) Forward(x *T) *T { return x.Glu(gt.WithDim(m.Dim)) }

// ExtraRepr is "dim=-1".
func (m *GLU) ExtraRepr() string { return fmt.Sprintf("dim=%d", m.Dim) }

func (m *GLU) String() string { return Repr(m) }

// GELU is nn.GELU. Options: Approximate ("none" or "tanh").
type GELU struct {
	Base
	Approximate string
}

// NewGELU makes nn.GELU().
func NewGELU(opts ...Option) *GELU {
	k := parse("GELU", opts, "approximate")
	m := &GELU{Approximate: k.str("approximate", "none")}
	m.SetName("GELU")
	return m
}

// Forward is F.gelu.
func (m *GELU) Forward(x *T) *T { return x.Gelu(gt.WithApproximate(m.Approximate)) }

// ExtraRepr is "approximate='none'".
func (m *GELU) ExtraRepr() string { return "approximate='" + m.Approximate + "'" }

func (m *GELU) String() string { return Repr(m) }

// Hardshrink is x where |x| > λ, else 0 (nn.Hardshrink). Options: Lambd (0.5).
type Hardshrink struct {
	Base
	Lambd float64
}

// NewHardshrink makes nn.Hardshrink().
func NewHardshrink(opts ...Option) *Hardshrink {
	k := parse("Hardshrink", opts, "lambd")
	m := &Hardshrink{Lambd: k.float("lambd", 0.5)}
	m.SetName("Hardshrink")
	return m
}

// Forward is F.hardshrink.
func (m *Hardshrink) Forward(x *T) *T { return x.Hardshrink(gt.WithLambd(m.Lambd)) }

// ExtraRepr is "0.5".
func (m *Hardshrink) ExtraRepr() string { return pyFloat(m.Lambd) }

func (m *Hardshrink) String() string { return Repr(m) }

// Softshrink shrinks x towards 0 by λ (nn.Softshrink). Options: Lambd (0.5).
type Softshrink struct {
	Base
	Lambd float64
}

// NewSoftshrink makes nn.Softshrink().
func NewSoftshrink(opts ...Option) *Softshrink {
	k := parse("Softshrink", opts, "lambd")
	m := &Softshrink{Lambd: k.float("lambd", 0.5)}
	m.SetName("Softshrink")
	return m
}

// Forward is F.softshrink.
func (m *Softshrink) Forward(x *T) *T { return x.Softshrink(gt.WithLambd(m.Lambd)) }

// ExtraRepr is "0.5".
func (m *Softshrink) ExtraRepr() string { return pyFloat(m.Lambd) }

func (m *Softshrink) String() string { return Repr(m) }

// LeakyReLU is max(0, x) + slope·min(0, x) (nn.LeakyReLU). Options:
// NegativeSlope (0.01), Inplace.
type LeakyReLU struct {
	Base
	NegativeSlope float64
	Inplace       bool
}

// NewLeakyReLU makes nn.LeakyReLU().
func NewLeakyReLU(opts ...Option) *LeakyReLU {
	k := parse("LeakyReLU", opts, "negative_slope", "inplace")
	m := &LeakyReLU{NegativeSlope: k.float("negative_slope", 0.01), Inplace: k.bool("inplace", false)}
	m.SetName("LeakyReLU")
	return m
}

// Forward is F.leaky_relu.
func (m *LeakyReLU) Forward(x *T) *T {
	if m.Inplace {
		return x.LeakyRelu_(gt.WithNegativeSlope(m.NegativeSlope))
	}
	return x.LeakyRelu(gt.WithNegativeSlope(m.NegativeSlope))
}

// ExtraRepr is "negative_slope=0.01".
func (m *LeakyReLU) ExtraRepr() string {
	return "negative_slope=" + pyFloat(m.NegativeSlope) + inplaceRepr(m.Inplace, ", ")
}

func (m *LeakyReLU) String() string { return Repr(m) }

// Softplus is log(1+exp(βx))/β, linear above the threshold (nn.Softplus).
// Options: Beta (1), SoftplusThreshold (20).
type Softplus struct {
	Base
	Beta, Threshold float64
}

// NewSoftplus makes nn.Softplus().
func NewSoftplus(opts ...Option) *Softplus {
	k := parse("Softplus", opts, "beta", "threshold")
	m := &Softplus{Beta: k.float("beta", 1), Threshold: k.float("threshold", 20)}
	m.SetName("Softplus")
	return m
}

// Forward is F.softplus.
func (m *Softplus) Forward(x *T) *T {
	return x.Softplus(gt.WithBeta(m.Beta), gt.Kw("threshold", m.Threshold))
}

// ExtraRepr is "beta=1, threshold=20".
func (m *Softplus) ExtraRepr() string {
	return "beta=" + pyNum(m.Beta) + ", threshold=" + pyNum(m.Threshold)
}

func (m *Softplus) String() string { return Repr(m) }

// PReLU is a leaky ReLU with learnable slopes (nn.PReLU): weight has
// NumParameters entries (1, or one per channel), all Init. Options:
// NumParameters (1), Init (0.25), DType, Device.
type PReLU struct {
	Base
	NumParameters int
	Weight        *T
}

// NewPReLU makes nn.PReLU().
func NewPReLU(opts ...Option) *PReLU {
	k := parse("PReLU", opts, "num_parameters", "init", "device", "dtype")
	m := &PReLU{NumParameters: k.int("num_parameters", 1)}
	m.SetName("PReLU")
	m.Weight = m.RegisterParameter("weight", empty(k, m.NumParameters))
	m.Weight.Detach().Fill_(k.float("init", 0.25))
	k.place(m.Weight)
	return m
}

// Forward is F.prelu(x, weight).
func (m *PReLU) Forward(x *T) *T { return x.Prelu(m.Weight) }

// ExtraRepr is "num_parameters=1".
func (m *PReLU) ExtraRepr() string { return fmt.Sprintf("num_parameters=%d", m.NumParameters) }

func (m *PReLU) String() string { return Repr(m) }

// Softmax is exp(x)/Σexp(x) along Dim (nn.Softmax). PyTorch's dim=None
// (an implicit dim, deprecated) has no counterpart: the dim is required.
type Softmax struct {
	Base
	Dim int
}

// NewSoftmax makes nn.Softmax(dim).
func NewSoftmax(dim int) *Softmax {
	m := &Softmax{Dim: dim}
	m.SetName("Softmax")
	return m
}

// Forward is F.softmax(x, dim).
func (m *Softmax) Forward(x *T) *T { return x.Softmax(m.Dim) }

// ExtraRepr is "dim=1".
func (m *Softmax) ExtraRepr() string { return fmt.Sprintf("dim=%d", m.Dim) }

func (m *Softmax) String() string { return Repr(m) }

// Softmin is softmax(-x) along Dim (nn.Softmin); the dim is required.
type Softmin struct {
	Base
	Dim int
}

// NewSoftmin makes nn.Softmin(dim).
func NewSoftmin(dim int) *Softmin {
	m := &Softmin{Dim: dim}
	m.SetName("Softmin")
	return m
}

// Forward is F.softmin(x, dim).
func (m *Softmin) Forward(x *T) *T { return x.Neg().Softmax(m.Dim) }

// ExtraRepr is "dim=1".
func (m *Softmin) ExtraRepr() string { return fmt.Sprintf("dim=%d", m.Dim) }

func (m *Softmin) String() string { return Repr(m) }

// LogSoftmax is log(softmax(x)) along Dim (nn.LogSoftmax); the dim is
// required.
type LogSoftmax struct {
	Base
	Dim int
}

// NewLogSoftmax makes nn.LogSoftmax(dim).
func NewLogSoftmax(dim int) *LogSoftmax {
	m := &LogSoftmax{Dim: dim}
	m.SetName("LogSoftmax")
	return m
}

// Forward is F.log_softmax(x, dim).
func (m *LogSoftmax) Forward(x *T) *T { return x.LogSoftmax(m.Dim) }

// ExtraRepr is "dim=1".
func (m *LogSoftmax) ExtraRepr() string { return fmt.Sprintf("dim=%d", m.Dim) }

func (m *LogSoftmax) String() string { return Repr(m) }

// Softmax2d is a softmax over the channels of (N, C, H, W) or (C, H, W)
// inputs (nn.Softmax2d).
type Softmax2d struct{ Base }

// NewSoftmax2d makes nn.Softmax2d().
func NewSoftmax2d() *Softmax2d {
	m := &Softmax2d{}
	m.SetName("Softmax2d")
	return m
}

// Forward is F.softmax(x, -3).
func (m *Softmax2d) Forward(x *T) *T {
	if x.Dim() != 3 && x.Dim() != 4 {
		panic(&tensor.Error{Kind: tensor.ValueError, Msg: "Softmax2d requires a 3D or 4D tensor as input"})
	}
	return x.Softmax(-3)
}

func (m *Softmax2d) String() string { return Repr(m) }
