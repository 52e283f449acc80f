// Package nninit fills tensors with the initial values torch.nn.init
// gives them, drawing from the default generator exactly as PyTorch 1.13
// does: after goaten.ManualSeed(s), KaimingUniform_ on a Linear layer's
// weight and Uniform_ on its bias give the numbers nn.Linear does after
// torch.manual_seed(s).
//
// Its import path is github.com/goaten/goaten/nn/init; Go reserves the name
// init, so the package is nninit. Each function writes its tensor in place
// without recording a gradient (torch.no_grad) and returns it.
//
// PyTorch's default layer initialisations, in these terms:
//
//	nn.Linear(in, out), nn.Conv*d: KaimingUniform_(w, Kaiming{A: math.Sqrt(5)}),
//	    then Uniform_(b, -1/√fan_in, 1/√fan_in) with fan_in from CalculateFanInAndFanOut(w)
//	nn.Embedding: Normal_(w, 0, 1)
package nninit

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// valueError panics as PyTorch's ValueError does.
func valueError(format string, args ...any) {
	panic(&gt.Error{Kind: tensor.ValueError, Msg: fmt.Sprintf(format, args...)})
}

// noGrad is the tensor to write: t detached, so that the write records no
// gradient, as torch.no_grad() in torch.nn.init.
func noGrad(t *gt.Tensor) *gt.Tensor { return t.Detach() }

// Uniform_ fills t with values uniform on [a, b) (torch.nn.init.uniform_).
func Uniform_(t *gt.Tensor, a, b float64) *gt.Tensor {
	noGrad(t).Uniform_(gt.WithFrom(a), gt.WithTo(b))
	return t
}

// Normal_ fills t with values from N(mean, std²) (torch.nn.init.normal_).
func Normal_(t *gt.Tensor, mean, std float64) *gt.Tensor {
	noGrad(t).Normal_(gt.WithMean(mean), gt.WithStd(std))
	return t
}

// Constant_ fills t with val (torch.nn.init.constant_).
func Constant_(t *gt.Tensor, val float64) *gt.Tensor {
	noGrad(t).Fill_(val)
	return t
}

// Ones_ fills t with ones (torch.nn.init.ones_).
func Ones_(t *gt.Tensor) *gt.Tensor { return Constant_(t, 1) }

// Zeros_ fills t with zeros (torch.nn.init.zeros_).
func Zeros_(t *gt.Tensor) *gt.Tensor {
	noGrad(t).Zero_()
	return t
}

// CalculateGain is the recommended gain for a nonlinearity
// (torch.nn.init.calculate_gain): 1 for linear, conv* and sigmoid, 5/3 for
// tanh, √2 for relu, √(2/(1+slope²)) for leaky_relu (param is the negative
// slope, 0.01 when omitted), 3/4 for selu. Other names panic with
// PyTorch's ValueError.
func CalculateGain(nonlinearity string, param ...float64) float64 {
	switch nonlinearity {
	case "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid":
		return 1
	case "tanh":
		return 5.0 / 3
	case "relu":
		return math.Sqrt(2.0)
	case "leaky_relu":
		slope := 0.01
		if len(param) > 0 {
			slope = param[0]
		}
		return math.Sqrt(2.0 / (1 + float64(slope*slope)))
	case "selu":
		return 3.0 / 4
	}
	valueError("Unsupported nonlinearity %s", nonlinearity)
	return 0
}

// CalculateFanInAndFanOut is torch.nn.init._calculate_fan_in_and_fan_out:
// for a weight of shape (out, in, k...) the fan-in is in·∏k and the
// fan-out out·∏k. Fewer than 2 dims panic with PyTorch's ValueError.
func CalculateFanInAndFanOut(t *gt.Tensor) (fanIn, fanOut int) {
	if t.Dim() < 2 {
		valueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
	}
	receptive := 1
	for _, s := range t.Sizes()[2:] {
		receptive *= s
	}
	return t.Size(1) * receptive, t.Size(0) * receptive
}

// XavierUniform_ fills t from U(-a, a), a = gain·√(6/(fan_in+fan_out))
// (torch.nn.init.xavier_uniform_; PyTorch's default gain is 1).
func XavierUniform_(t *gt.Tensor, gain float64) *gt.Tensor {
	in, out := CalculateFanInAndFanOut(t)
	std := gain * math.Sqrt(2.0/float64(in+out))
	a := math.Sqrt(3.0) * std
	return Uniform_(t, -a, a)
}

// XavierNormal_ fills t from N(0, std²), std = gain·√(2/(fan_in+fan_out))
// (torch.nn.init.xavier_normal_; PyTorch's default gain is 1).
func XavierNormal_(t *gt.Tensor, gain float64) *gt.Tensor {
	in, out := CalculateFanInAndFanOut(t)
	std := gain * math.Sqrt(2.0/float64(in+out))
	return Normal_(t, 0, std)
}

// Kaiming holds the arguments of KaimingUniform_ and KaimingNormal_. The
// zero value is PyTorch's default: a = 0, mode "fan_in", nonlinearity
// "leaky_relu".
type Kaiming struct {
	A            float64 // the negative slope of the rectifier after this layer (leaky_relu only)
	Mode         string  // "fan_in" (default) or "fan_out"
	Nonlinearity string  // a CalculateGain name; "leaky_relu" by default
}

// std is gain/√fan for t, or ok false for a tensor with no elements
// (which PyTorch leaves alone, with a warning).
func (k Kaiming) std(t *gt.Tensor) (std float64, ok bool) {
	for _, s := range t.Sizes() {
		if s == 0 {
			return 0, false
		}
	}
	mode, nl := k.Mode, k.Nonlinearity
	if mode == "" {
		mode = "fan_in"
	}
	if nl == "" {
		nl = "leaky_relu"
	}
	// _calculate_correct_fan lower-cases the mode first.
	var fan int
	switch lower(mode) {
	case "fan_in":
		fan, _ = CalculateFanInAndFanOut(t)
	case "fan_out":
		_, fan = CalculateFanInAndFanOut(t)
	default:
		valueError("Mode %s not supported, please use one of ['fan_in', 'fan_out']", lower(mode))
	}
	return CalculateGain(nl, k.A) / math.Sqrt(float64(fan)), true
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// KaimingUniform_ fills t from U(-bound, bound), bound = √3·gain/√fan
// (torch.nn.init.kaiming_uniform_, He et al. 2015).
func KaimingUniform_(t *gt.Tensor, k Kaiming) *gt.Tensor {
	std, ok := k.std(t)
	if !ok {
		return t
	}
	bound := math.Sqrt(3.0) * std
	return Uniform_(t, -bound, bound)
}

// KaimingNormal_ fills t from N(0, std²), std = gain/√fan
// (torch.nn.init.kaiming_normal_).
func KaimingNormal_(t *gt.Tensor, k Kaiming) *gt.Tensor {
	std, ok := k.std(t)
	if !ok {
		return t
	}
	return Normal_(t, 0, std)
}
