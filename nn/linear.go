package nn

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
)

// empty is an uninitialised parameter of the layer's dtype (torch.empty).
func empty(k kwargs, sizes ...int) *T { return gt.Empty(sizes, gt.WithDtype(k.dtype())) }

// bias registers the parameter "bias" of the given size, or None when the
// bias option is false, and returns it.
func registerBias(b *Base, k kwargs, size int) *T {
	if !k.bool("bias", true) {
		b.RegisterParameter("bias", nil)
		return nil
	}
	return b.RegisterParameter("bias", empty(k, size))
}

// optBias passes a possibly nil bias to an op.
func optBias(b *T) []gt.Option {
	if b == nil {
		return nil
	}
	return []gt.Option{gt.WithBias(b)}
}

// Identity returns its input (nn.Identity).
type Identity struct{ Base }

// NewIdentity makes an Identity.
func NewIdentity() *Identity {
	m := &Identity{}
	m.SetName("Identity")
	return m
}

// Forward returns x.
func (m *Identity) Forward(x *T) *T { return x }

func (m *Identity) String() string { return Repr(m) }

// Linear is y = x·Wᵀ + b (nn.Linear): weight (out, in) and bias (out),
// both drawn from U(-1/√in, 1/√in) (kaiming_uniform_ with a=√5 for the
// weight). Options: Bias, DType, Device.
type Linear struct {
	Base
	InFeatures, OutFeatures int
	Weight, Bias            *T // Bias is nil with Bias(false)
}

// NewLinear makes a Linear layer (nn.Linear(in, out)).
func NewLinear(in, out int, opts ...Option) *Linear {
	k := parse("Linear", opts, "bias", "device", "dtype")
	return newLinear("Linear", in, out, k, true)
}

// newLinear makes a Linear named cls; without init its parameters are left
// uninitialised (for clones, whose state is copied in, drawing nothing).
func newLinear(cls string, in, out int, k kwargs, init bool) *Linear {
	m := &Linear{InFeatures: in, OutFeatures: out}
	m.SetName(cls)
	m.Weight = m.RegisterParameter("weight", empty(k, out, in))
	m.Bias = registerBias(&m.Base, k, out)
	if init {
		m.ResetParameters()
	}
	k.place(m.Weight, m.Bias)
	return m
}

// ResetParameters draws the initial weight and bias again from the default
// generator (reset_parameters).
func (m *Linear) ResetParameters() { kaimingInit(m.Weight, m.Bias) }

// kaimingInit is Linear's and the convolutions' reset_parameters.
func kaimingInit(w, b *T) {
	nninit.KaimingUniform_(w, nninit.Kaiming{A: math.Sqrt(5)})
	if b != nil {
		fanIn, _ := nninit.CalculateFanInAndFanOut(w)
		bound := 0.0
		if fanIn > 0 {
			bound = 1 / math.Sqrt(float64(fanIn))
		}
		nninit.Uniform_(b, -bound, bound)
	}
}

// Forward is F.linear(x, weight, bias); x is (*, in).
func (m *Linear) Forward(x *T) *T { return gt.Linear(x, m.Weight, optBias(m.Bias)...) }

// ExtraRepr is "in_features=3, out_features=2, bias=True".
func (m *Linear) ExtraRepr() string {
	return fmt.Sprintf("in_features=%d, out_features=%d, bias=%s", m.InFeatures, m.OutFeatures, pyBool(m.Bias != nil))
}

func (m *Linear) String() string { return Repr(m) }

// Bilinear is y = x1ᵀ·A·x2 + b (nn.Bilinear): weight (out, in1, in2) and
// bias (out), drawn from U(-1/√in1, 1/√in1). Options: Bias, DType, Device.
type Bilinear struct {
	Base
	In1Features, In2Features, OutFeatures int
	Weight, Bias                          *T
}

// NewBilinear makes a Bilinear layer (nn.Bilinear(in1, in2, out)).
func NewBilinear(in1, in2, out int, opts ...Option) *Bilinear {
	k := parse("Bilinear", opts, "bias", "device", "dtype")
	m := &Bilinear{In1Features: in1, In2Features: in2, OutFeatures: out}
	m.SetName("Bilinear")
	m.Weight = m.RegisterParameter("weight", empty(k, out, in1, in2))
	m.Bias = registerBias(&m.Base, k, out)
	m.ResetParameters()
	k.place(m.Weight, m.Bias)
	return m
}

// ResetParameters draws the initial weight and bias again.
func (m *Bilinear) ResetParameters() {
	bound := 1 / math.Sqrt(float64(m.Weight.Size(1)))
	nninit.Uniform_(m.Weight, -bound, bound)
	if m.Bias != nil {
		nninit.Uniform_(m.Bias, -bound, bound)
	}
}

// Forward is F.bilinear(x1, x2, weight, bias); x1 is (*, in1), x2 (*, in2).
func (m *Bilinear) Forward(x1, x2 *T) *T {
	return gt.Bilinear(x1, x2, m.Weight, optBias(m.Bias)...)
}

// ExtraRepr is "in1_features=.., in2_features=.., out_features=.., bias=..".
func (m *Bilinear) ExtraRepr() string {
	return fmt.Sprintf("in1_features=%d, in2_features=%d, out_features=%d, bias=%s", m.In1Features, m.In2Features, m.OutFeatures, pyBool(m.Bias != nil))
}

func (m *Bilinear) String() string { return Repr(m) }
