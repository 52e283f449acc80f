package nn

import (
	"fmt"

	gt "github.com/goaten/goaten"
)

// argRepr prints an int-tuple argument as the user gave it: one value as
// an int, several as a tuple.
func argRepr(s []int) string {
	if len(s) == 1 {
		return fmt.Sprint(s[0])
	}
	return tupleRepr(s)
}

// poolArgs reads an int-or-tuple option as given (for the repr) and
// expanded to n dims (for the op); def is the default, nil for the kernel.
func poolArg(k kwargs, name string, n int, def []int) (given, expanded []int) {
	v, ok := k.m[name]
	if !ok || v == nil {
		if def == nil {
			return nil, nil
		}
		return def, expand(k.cls, name, def, n)
	}
	switch x := v.(type) {
	case int:
		given = []int{x}
	case []int:
		given = x
	default:
		k.typeErr(name, "int or tuple of ints")
	}
	return given, expand(k.cls, name, given, n)
}

// maxPool is what MaxPool1d and MaxPool2d share (PyTorch's _MaxPoolNd).
type maxPool struct {
	Base
	KernelSize, Stride, Padding, Dilation []int // expanded to one per spatial dim
	CeilMode                              bool
	repr                                  [4]string
}

func newMaxPool(cls string, n int, kernelRepr string, ks []int, opts []Option) maxPool {
	k := parse(cls, opts, "stride", "padding", "dilation", "ceil_mode")
	m := maxPool{KernelSize: ks, CeilMode: k.bool("ceil_mode", false)}
	m.SetName(cls)
	sg, s := poolArg(k, "stride", n, nil)
	if sg == nil {
		s, m.repr[1] = ks, kernelRepr
	} else {
		m.repr[1] = argRepr(sg)
	}
	var pg, dg []int
	pg, m.Padding = poolArg(k, "padding", n, []int{0})
	dg, m.Dilation = poolArg(k, "dilation", n, []int{1})
	m.Stride = s
	m.repr[0], m.repr[2], m.repr[3] = kernelRepr, argRepr(pg), argRepr(dg)
	return m
}

func (m *maxPool) opts() []gt.Option {
	return []gt.Option{gt.WithStride(m.Stride), gt.WithPadding(m.Padding), gt.WithDilation(m.Dilation), gt.WithCeilMode(m.CeilMode)}
}

// ExtraRepr is "kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False".
func (m *maxPool) ExtraRepr() string {
	return fmt.Sprintf("kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s", m.repr[0], m.repr[1], m.repr[2], m.repr[3], pyBool(m.CeilMode))
}

// MaxPool1d is a 1-d max pooling over (N, C, L) or (C, L) inputs
// (nn.MaxPool1d). Options: Stride (the kernel size), Padding (0), Dilation
// (1), CeilMode.
type MaxPool1d struct{ maxPool }

// NewMaxPool1d makes nn.MaxPool1d(kernel).
func NewMaxPool1d[K Size](kernel K, opts ...Option) *MaxPool1d {
	return &MaxPool1d{newMaxPool("MaxPool1d", 1, sizeArgRepr(kernel), sizeInts("MaxPool1d", "kernel_size", kernel, 1), opts)}
}

// Forward is F.max_pool1d.
func (m *MaxPool1d) Forward(x *T) *T { return x.MaxPool1d(m.KernelSize, m.opts()...) }

func (m *MaxPool1d) String() string { return Repr(m) }

// MaxPool2d is a 2-d max pooling over (N, C, H, W) or (C, H, W) inputs
// (nn.MaxPool2d). Options: Stride (the kernel size), Padding (0), Dilation
// (1), CeilMode. PyTorch's return_indices=True is ForwardWithIndices.
type MaxPool2d struct{ maxPool }

// NewMaxPool2d makes nn.MaxPool2d(kernel).
func NewMaxPool2d[K Size](kernel K, opts ...Option) *MaxPool2d {
	return &MaxPool2d{newMaxPool("MaxPool2d", 2, sizeArgRepr(kernel), sizeInts("MaxPool2d", "kernel_size", kernel, 2), opts)}
}

// Forward is F.max_pool2d.
func (m *MaxPool2d) Forward(x *T) *T { return x.MaxPool2d(m.KernelSize, m.opts()...) }

// ForwardWithIndices is forward with return_indices=True: the output and
// the flat index of each maximum in its input plane.
func (m *MaxPool2d) ForwardWithIndices(x *T) (out, indices *T) {
	return x.MaxPool2dWithIndices(m.KernelSize, m.opts()...)
}

func (m *MaxPool2d) String() string { return Repr(m) }

// avgPool is what AvgPool1d and AvgPool2d share.
type avgPool struct {
	Base
	KernelSize, Stride, Padding []int
	CeilMode, CountIncludePad   bool
	DivisorOverride             *int // AvgPool2d only
	repr                        [3]string
}

func newAvgPool(cls string, n int, kernelRepr string, ks []int, opts []Option) avgPool {
	names := []string{"stride", "padding", "ceil_mode", "count_include_pad"}
	if n == 2 {
		names = append(names, "divisor_override")
	}
	k := parse(cls, opts, names...)
	m := avgPool{KernelSize: ks, CeilMode: k.bool("ceil_mode", false), CountIncludePad: k.bool("count_include_pad", true), DivisorOverride: k.optInt("divisor_override")}
	m.SetName(cls)
	sg, s := poolArg(k, "stride", n, nil)
	if sg == nil {
		s, m.repr[1] = ks, kernelRepr
	} else {
		m.repr[1] = argRepr(sg)
	}
	m.Stride = s
	var pg []int
	pg, m.Padding = poolArg(k, "padding", n, []int{0})
	m.repr[0], m.repr[2] = kernelRepr, argRepr(pg)
	if n == 1 { // AvgPool1d keeps _single(...) of its arguments
		m.repr = [3]string{tupleRepr(ks), tupleRepr(m.Stride), tupleRepr(m.Padding)}
	}
	return m
}

func (m *avgPool) opts() []gt.Option {
	o := []gt.Option{gt.WithStride(m.Stride), gt.WithPadding(m.Padding), gt.WithCeilMode(m.CeilMode), gt.WithCountIncludePad(m.CountIncludePad)}
	if m.DivisorOverride != nil {
		o = append(o, gt.WithDivisorOverride(*m.DivisorOverride))
	}
	return o
}

// ExtraRepr is "kernel_size=3, stride=2, padding=1".
func (m *avgPool) ExtraRepr() string {
	return fmt.Sprintf("kernel_size=%s, stride=%s, padding=%s", m.repr[0], m.repr[1], m.repr[2])
}

// AvgPool1d is a 1-d average pooling (nn.AvgPool1d). Options: Stride (the
// kernel size), Padding (0), CeilMode, CountIncludePad (true).
type AvgPool1d struct{ avgPool }

// NewAvgPool1d makes nn.AvgPool1d(kernel).
func NewAvgPool1d[K Size](kernel K, opts ...Option) *AvgPool1d {
	return &AvgPool1d{newAvgPool("AvgPool1d", 1, sizeArgRepr(kernel), sizeInts("AvgPool1d", "kernel_size", kernel, 1), opts)}
}

// Forward is F.avg_pool1d.
func (m *AvgPool1d) Forward(x *T) *T { return x.AvgPool1d(m.KernelSize, m.opts()...) }

func (m *AvgPool1d) String() string { return Repr(m) }

// AvgPool2d is a 2-d average pooling (nn.AvgPool2d). Options: Stride (the
// kernel size), Padding (0), CeilMode, CountIncludePad (true),
// DivisorOverride.
type AvgPool2d struct{ avgPool }

// NewAvgPool2d makes nn.AvgPool2d(kernel).
func NewAvgPool2d[K Size](kernel K, opts ...Option) *AvgPool2d {
	return &AvgPool2d{newAvgPool("AvgPool2d", 2, sizeArgRepr(kernel), sizeInts("AvgPool2d", "kernel_size", kernel, 2), opts)}
}

// Forward is F.avg_pool2d.
func (m *AvgPool2d) Forward(x *T) *T { return x.AvgPool2d(m.KernelSize, m.opts()...) }

func (m *AvgPool2d) String() string { return Repr(m) }

// AdaptiveAvgPool1d averages (N, C, L) inputs down to OutputSize
// (nn.AdaptiveAvgPool1d).
type AdaptiveAvgPool1d struct {
	Base
	OutputSize []int
	repr       string
}

// NewAdaptiveAvgPool1d makes nn.AdaptiveAvgPool1d(outputSize).
func NewAdaptiveAvgPool1d[K Size](outputSize K) *AdaptiveAvgPool1d {
	m := &AdaptiveAvgPool1d{OutputSize: sizeInts("AdaptiveAvgPool1d", "output_size", outputSize, 1), repr: sizeArgRepr(outputSize)}
	m.SetName("AdaptiveAvgPool1d")
	return m
}

// Forward is F.adaptive_avg_pool1d.
func (m *AdaptiveAvgPool1d) Forward(x *T) *T { return x.AdaptiveAvgPool1d(m.OutputSize) }

// ExtraRepr is "output_size=4".
func (m *AdaptiveAvgPool1d) ExtraRepr() string { return "output_size=" + m.repr }

func (m *AdaptiveAvgPool1d) String() string { return Repr(m) }

// AdaptiveAvgPool2d averages (N, C, H, W) or (C, H, W) inputs down to
// OutputSize (nn.AdaptiveAvgPool2d). PyTorch's None entries (keep the
// input's size) have no counterpart.
type AdaptiveAvgPool2d struct {
	Base
	OutputSize []int
	repr       string
}

// NewAdaptiveAvgPool2d makes nn.AdaptiveAvgPool2d(outputSize): an int or
// []int{h, w}.
func NewAdaptiveAvgPool2d[K Size](outputSize K) *AdaptiveAvgPool2d {
	m := &AdaptiveAvgPool2d{OutputSize: sizeInts("AdaptiveAvgPool2d", "output_size", outputSize, 2), repr: sizeArgRepr(outputSize)}
	m.SetName("AdaptiveAvgPool2d")
	return m
}

// Forward is F.adaptive_avg_pool2d.
func (m *AdaptiveAvgPool2d) Forward(x *T) *T { return x.AdaptiveAvgPool2d(m.OutputSize) }

// ExtraRepr is "output_size=(3, 2)".
func (m *AdaptiveAvgPool2d) ExtraRepr() string { return "output_size=" + m.repr }

func (m *AdaptiveAvgPool2d) String() string { return Repr(m) }
