package nn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// Option is a keyword argument of a layer's constructor, named after
// PyTorch's keyword: nn.NewConv2d(3, 16, 3, nn.Stride(2), nn.Padding(1),
// nn.Bias(false)) is nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False).
// A constructor given an option PyTorch's class does not take panics with
// PyTorch's TypeError ("Linear.__init__() got an unexpected keyword argument
// 'stride'"); of two options with the same name the last wins.
type Option struct {
	name  string
	value any
}

// Kw passes any keyword argument by its PyTorch name, for the few that have
// no constructor of their own here: nn.Kw("threshold", 10.0) is Softplus's
// threshold=10.
func Kw(name string, value any) Option { return Option{name, value} }

// Bias adds (true, the default) or leaves out the learnable bias of Linear,
// Bilinear and the convolutions.
func Bias(b bool) Option { return Option{"bias", b} }

// Stride is a convolution's or pooling's stride: one int for every spatial
// dim, or one per dim.
func Stride(s ...int) Option { return Option{"stride", s} }

// Padding is the implicit padding on both sides of each spatial dim: one
// int for all dims, or one per dim.
func Padding(p ...int) Option { return Option{"padding", p} }

// PaddingSame pads a stride-1 convolution so that the output has the
// input's size (padding='same'); the extra element of an odd total goes
// on the right, as in PyTorch.
func PaddingSame() Option { return Option{"padding", "same"} }

// PaddingValid is no padding (padding='valid').
func PaddingValid() Option { return Option{"padding", "valid"} }

// PaddingMode is how a convolution pads: "zeros" (the default), "reflect",
// "replicate" or "circular".
func PaddingMode(mode string) Option { return Option{"padding_mode", mode} }

// Dilation is the spacing between kernel elements.
func Dilation(d ...int) Option { return Option{"dilation", d} }

// Groups splits a convolution's channels into groups connected separately.
func Groups(g int) Option { return Option{"groups", g} }

// OutputPadding adds size to one side of a transposed convolution's output.
func OutputPadding(p ...int) Option { return Option{"output_padding", p} }

// Eps is the value a normalization adds to the variance for stability.
func Eps(eps float64) Option { return Option{"eps", eps} }

// Momentum is BatchNorm's running-statistics factor (0.1 by default).
func Momentum(m float64) Option { return Option{"momentum", m} }

// MomentumNone is BatchNorm's momentum=None: the running statistics are a
// cumulative moving average (1/num_batches_tracked each step).
func MomentumNone() Option { return Option{"momentum", nil} }

// Affine gives a normalization learnable per-channel weight and bias
// (true by default).
func Affine(b bool) Option { return Option{"affine", b} }

// TrackRunningStats makes BatchNorm keep running statistics (true by
// default); without them it normalizes with batch statistics in eval mode
// too.
func TrackRunningStats(b bool) Option { return Option{"track_running_stats", b} }

// ElementwiseAffine gives LayerNorm and RMSNorm a learnable weight (and
// LayerNorm a bias); true by default.
func ElementwiseAffine(b bool) Option { return Option{"elementwise_affine", b} }

// PaddingIdx is an embedding row that is zero at initialisation and gets
// no gradient; negative values count from the end.
func PaddingIdx(i int) Option { return Option{"padding_idx", i} }

// MaxNorm renormalises, in place at each forward, every embedding row
// looked up whose norm exceeds maxNorm.
func MaxNorm(maxNorm float64) Option { return Option{"max_norm", maxNorm} }

// NormType is the p of the norm MaxNorm computes (2 by default).
func NormType(p float64) Option { return Option{"norm_type", p} }

// ScaleGradByFreq scales an embedding's gradients by the inverse frequency
// of the words in the mini-batch.
func ScaleGradByFreq(b bool) Option { return Option{"scale_grad_by_freq", b} }

// Mode is EmbeddingBag's reduction of a bag: "sum", "mean" (default) or
// "max".
func Mode(mode string) Option { return Option{"mode", mode} }

// IncludeLastOffset makes EmbeddingBag's offsets end with the input's
// length (CSR format).
func IncludeLastOffset(b bool) Option { return Option{"include_last_offset", b} }

// Inplace makes an activation or dropout overwrite its input.
func Inplace(b bool) Option { return Option{"inplace", b} }

// Approximate is GELU's approximation: "none" (default) or "tanh".
func Approximate(a string) Option { return Option{"approximate", a} }

// NegativeSlope is LeakyReLU's slope for negative inputs (0.01 by default).
func NegativeSlope(s float64) Option { return Option{"negative_slope", s} }

// Alpha is ELU's and CELU's α (1 by default).
func Alpha(a float64) Option { return Option{"alpha", a} }

// MinVal and MaxVal are Hardtanh's bounds (-1 and 1 by default).
func MinVal(v float64) Option { return Option{"min_val", v} }

// MaxVal is Hardtanh's upper bound.
func MaxVal(v float64) Option { return Option{"max_val", v} }

// Beta is Softplus's β (1 by default) and SmoothL1Loss's β (1 by default).
func Beta(b float64) Option { return Option{"beta", b} }

// SoftplusThreshold is Softplus's threshold= (20 by default), above which
// it is the identity; nn.Threshold is the layer.
func SoftplusThreshold(t float64) Option { return Option{"threshold", t} }

// Lambd is Hardshrink's and Softshrink's λ (0.5 by default).
func Lambd(l float64) Option { return Option{"lambd", l} }

// Dim is the dim a GLU, Softmax-like or Unflatten layer works along.
func Dim(d int) Option { return Option{"dim", d} }

// NumParameters is PReLU's number of learnable slopes: 1 (default) or the
// number of input channels.
func NumParameters(n int) Option { return Option{"num_parameters", n} }

// Init is PReLU's initial slope (0.25 by default).
func Init(v float64) Option { return Option{"init", v} }

// StartDim and EndDim are the dims Flatten merges (1 and -1 by default).
func StartDim(d int) Option { return Option{"start_dim", d} }

// EndDim is the last dim Flatten merges.
func EndDim(d int) Option { return Option{"end_dim", d} }

// CeilMode makes pooling use ceil instead of floor for the output size.
func CeilMode(b bool) Option { return Option{"ceil_mode", b} }

// CountIncludePad makes average pooling count the zero padding in its
// divisor (true by default).
func CountIncludePad(b bool) Option { return Option{"count_include_pad", b} }

// DivisorOverride is the divisor AvgPool2d uses instead of the window size.
func DivisorOverride(d int) Option { return Option{"divisor_override", d} }

// Reduction is how a loss reduces: "mean" (default), "sum" or "none";
// KLDivLoss also takes "batchmean". Any other string panics with PyTorch's
// ValueError ("avg is not a valid value for reduction").
func Reduction(r string) Option { return Option{"reduction", r} }

// Weight is a loss's per-class (CrossEntropyLoss, NLLLoss) or per-element
// (BCELoss, BCEWithLogitsLoss) rescaling weight, registered as the buffer
// "weight" as PyTorch does.
func Weight(w *T) Option { return Option{"weight", w} }

// PosWeight is BCEWithLogitsLoss's weight of positive examples, one per
// class (the buffer "pos_weight").
func PosWeight(w *T) Option { return Option{"pos_weight", w} }

// IgnoreIndex is a target class that adds nothing to the loss or its
// gradient (-100 by default).
func IgnoreIndex(i int) Option { return Option{"ignore_index", i} }

// LabelSmoothing mixes the target with the uniform distribution
// (CrossEntropyLoss; 0 by default).
func LabelSmoothing(s float64) Option { return Option{"label_smoothing", s} }

// Delta is HuberLoss's δ (1 by default).
func Delta(d float64) Option { return Option{"delta", d} }

// LogTarget says KLDivLoss's target is given in log space.
func LogTarget(b bool) Option { return Option{"log_target", b} }

// DType is the element type of a layer's parameters and buffers (float32 by
// default, as torch.get_default_dtype()).
func DType(d tensor.DType) Option { return Option{"dtype", d} }

// Device is where a layer's parameters and buffers live. They are created
// and initialised on the CPU (so the random streams are the CPU's) and then
// moved.
func Device(d tensor.Device) Option { return Option{"device", d} }

// kwargs is a constructor's keyword arguments, checked against the names
// its PyTorch class takes.
type kwargs struct {
	cls string
	m   map[string]any
}

// parse checks opts against the keyword names class cls takes.
func parse(cls string, opts []Option, allowed ...string) kwargs {
	k := kwargs{cls: cls, m: map[string]any{}}
	for _, o := range opts {
		ok := false
		for _, a := range allowed {
			if a == o.name {
				ok = true
				break
			}
		}
		if !ok {
			tensor.TypePanicf("%s.__init__() got an unexpected keyword argument '%s'", cls, o.name)
		}
		k.m[o.name] = o.value
	}
	return k
}

func (k kwargs) has(name string) bool { _, ok := k.m[name]; return ok }

func (k kwargs) typeErr(name, want string) {
	tensor.TypePanicf("%s.__init__(): argument '%s' must be %s, not %T", k.cls, name, want, k.m[name])
}

func (k kwargs) bool(name string, def bool) bool {
	v, ok := k.m[name]
	if !ok {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		k.typeErr(name, "bool")
	}
	return b
}

func (k kwargs) int(name string, def int) int {
	v, ok := k.m[name]
	if !ok {
		return def
	}
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	}
	k.typeErr(name, "int")
	return 0
}

func (k kwargs) float(name string, def float64) float64 {
	v, ok := k.m[name]
	if !ok {
		return def
	}
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	}
	k.typeErr(name, "float")
	return 0
}

// optFloat is an Optional[float]: nil when absent or given as nil.
func (k kwargs) optFloat(name string) *float64 {
	v, ok := k.m[name]
	if !ok || v == nil {
		return nil
	}
	f := k.float(name, 0)
	return &f
}

func (k kwargs) optInt(name string) *int {
	v, ok := k.m[name]
	if !ok || v == nil {
		return nil
	}
	i := k.int(name, 0)
	return &i
}

func (k kwargs) str(name, def string) string {
	v, ok := k.m[name]
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		k.typeErr(name, "str")
	}
	return s
}

func (k kwargs) tensor(name string) *T {
	v, ok := k.m[name]
	if !ok || v == nil {
		return nil
	}
	t, ok := v.(*T)
	if !ok {
		k.typeErr(name, "Tensor")
	}
	return t
}

// ints reads an int-tuple argument for n spatial dims: one int repeats
// (PyTorch's _single/_pair), n ints are taken as they are.
func (k kwargs) ints(name string, n int, def int) []int {
	v, ok := k.m[name]
	if !ok {
		return repeat(def, n)
	}
	var s []int
	switch x := v.(type) {
	case int:
		s = []int{x}
	case []int:
		s = x
	default:
		k.typeErr(name, "int or tuple of ints")
	}
	return expand(k.cls, name, s, n)
}

func expand(cls, name string, s []int, n int) []int {
	switch len(s) {
	case n:
		return append([]int(nil), s...)
	case 1:
		return repeat(s[0], n)
	}
	tensor.TypePanicf("%s.__init__(): %s must be an int or a tuple of %d ints, got %d values", cls, name, n, len(s))
	return nil
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func (k kwargs) dtype() tensor.DType {
	v, ok := k.m["dtype"]
	if !ok || v == nil {
		return tensor.Float32
	}
	d, ok := v.(tensor.DType)
	if !ok {
		k.typeErr("dtype", "torch.dtype")
	}
	return d
}

// place moves freshly initialised tensors to the device option, if any.
func (k kwargs) place(ts ...*T) {
	v, ok := k.m["device"]
	if !ok || v == nil {
		return
	}
	dev, ok := v.(tensor.Device)
	if !ok {
		k.typeErr("device", "torch.device")
	}
	for _, t := range ts {
		if t != nil && t.Device() != dev {
			t.SetData(t.Detach().ToDevice(dev))
		}
	}
}

// Size is a kernel or output size: one int for every spatial dim, or one
// per dim (PyTorch's int-or-tuple arguments).
type Size interface{ int | []int }

func sizeInts[S Size](cls, name string, s S, n int) []int {
	switch x := any(s).(type) {
	case int:
		return repeat(x, n)
	case []int:
		return expand(cls, name, x, n)
	}
	return nil
}

// sizeRepr prints a size argument as PyTorch keeps it: an int as given, a
// tuple as a tuple.
func sizeArgRepr[S Size](s S) string {
	switch x := any(s).(type) {
	case int:
		return strconv.Itoa(x)
	case []int:
		return tupleRepr(x)
	}
	return ""
}

// tupleRepr prints ints as a Python tuple: (3,), (3, 3).
func tupleRepr(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// pyFloat prints f as Python's repr(float) does: 0.1, 1.0, 1e-05, 1e+16.
func pyFloat(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.IndexByte(e, 'e')
	if i < 0 { // inf, nan
		switch {
		case f > 0:
			return "inf"
		case f < 0:
			return "-inf"
		}
		return "nan"
	}
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// pyBool prints a Go bool as Python does.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// valueError panics as PyTorch's ValueError does.
func valueError(format string, args ...any) {
	panic(&tensor.Error{Kind: tensor.ValueError, Msg: fmt.Sprintf(format, args...)})
}
