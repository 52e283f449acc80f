package nn

import (
	"fmt"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
)

// P is a dropout probability (0.5 by default).
func P(p float64) Option { return Option{"p", p} }

// dropoutNd is what the dropout layers share (PyTorch's _DropoutNd).
type dropoutNd struct {
	Base
	P       float64
	Inplace bool
}

func newDropout(cls string, opts []Option) dropoutNd {
	k := parse(cls, opts, "p", "inplace")
	m := dropoutNd{P: k.float("p", 0.5), Inplace: k.bool("inplace", false)}
	m.SetName(cls)
	if m.P < 0 || m.P > 1 {
		valueError("dropout probability has to be between 0 and 1, but got %s", pyFloat(m.P))
	}
	return m
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *dropoutNd) ExtraRepr() string {
	return fmt.Sprintf("p=%s, inplace=%s", pyFloat(m.P), pyBool(m.Inplace))
}

// apply runs a functional dropout, writing the result into x with Inplace.
func (m *dropoutNd) apply(x *T, f func(x *T, p float64, train bool) *T) *T {
	y := f(x, m.P, m.Training())
	if m.Inplace {
		return x.Copy_(y)
	}
	return y
}

// Dropout zeroes each element with probability P in training and scales
// the rest by 1/(1-P); in eval it is the identity (nn.Dropout). The mask is
// drawn from the default generator as PyTorch draws it. Options: P (0.5),
// Inplace.
type Dropout struct{ dropoutNd }

// NewDropout makes nn.Dropout().
func NewDropout(opts ...Option) *Dropout { return &Dropout{newDropout("Dropout", opts)} }

// Forward is F.dropout(x, p, training).
func (m *Dropout) Forward(x *T) *T {
	if m.Inplace {
		return dropoutInplace(x, m.P, m.Training())
	}
	return gt.Dropout(x, m.P, m.Training())
}

// dropoutInplace is ATen's dropout_: x.mul_(noise), noise drawn as
// bernoulli_(1-p)/(1-p) on the default generator, so that the values and
// the gradient (zeros signed as G·0) are PyTorch's.
func dropoutInplace(x *T, p float64, train bool) *T {
	if p == 0 || !train || x.Numel() == 0 {
		return x
	}
	if p == 1 {
		return x.Mul_(gt.Full(0, []int{}, gt.WithDtype(x.DType())))
	}
	noise := x.Detach().EmptyLike().Bernoulli_(gt.WithP(1 - p))
	noise.DivScalar_(1 - p)
	return x.Mul_(noise)
}

func (m *Dropout) String() string { return Repr(m) }

// Dropout1d zeroes whole channels of (N, C, L) or (C, L) inputs
// (nn.Dropout1d), with Dropout's options.
type Dropout1d struct{ dropoutNd }

// NewDropout1d makes nn.Dropout1d().
func NewDropout1d(opts ...Option) *Dropout1d { return &Dropout1d{newDropout("Dropout1d", opts)} }

// Forward is F.dropout1d(x, p, training).
func (m *Dropout1d) Forward(x *T) *T {
	if x.Dim() != 2 && x.Dim() != 3 {
		tensor.Panicf("dropout1d: Expected 2D or 3D input, but received a %dD input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).", x.Dim())
	}
	if x.Dim() == 2 {
		return m.apply(x, func(x *T, p float64, train bool) *T {
			return gt.FeatureDropout(x.Unsqueeze(0), p, train).Squeeze(0)
		})
	}
	return m.apply(x, gt.FeatureDropout)
}

func (m *Dropout1d) String() string { return Repr(m) }

// Dropout2d zeroes whole channels of (N, C, H, W) inputs (nn.Dropout2d),
// with Dropout's options. As in PyTorch 1.13, a 3-d input is taken as
// (N, C, L).
type Dropout2d struct{ dropoutNd }

// NewDropout2d makes nn.Dropout2d().
func NewDropout2d(opts ...Option) *Dropout2d { return &Dropout2d{newDropout("Dropout2d", opts)} }

// Forward is F.dropout2d(x, p, training).
func (m *Dropout2d) Forward(x *T) *T { return m.apply(x, gt.FeatureDropout) }

func (m *Dropout2d) String() string { return Repr(m) }

// AlphaDropout keeps a SELU network's mean and variance (nn.AlphaDropout),
// with Dropout's options.
type AlphaDropout struct{ dropoutNd }

// NewAlphaDropout makes nn.AlphaDropout().
func NewAlphaDropout(opts ...Option) *AlphaDropout {
	return &AlphaDropout{newDropout("AlphaDropout", opts)}
}

// Forward is F.alpha_dropout(x, p, training).
func (m *AlphaDropout) Forward(x *T) *T { return m.apply(x, gt.AlphaDropout) }

func (m *AlphaDropout) String() string { return Repr(m) }
