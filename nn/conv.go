package nn

import (
	"fmt"
	"strconv"
	"strings"

	gt "github.com/goaten/goaten"
)

// convNd is what the convolutions share (PyTorch's _ConvNd). Its fields
// are the constructor's arguments as PyTorch keeps them; change them only
// before the first Forward.
type convNd struct {
	Base
	InChannels, OutChannels int
	KernelSize, Stride      []int
	Padding                 []int  // per spatial dim; zeros when PaddingString is set
	PaddingString           string // "same" or "valid" when given as a string, else ""
	Dilation, OutputPadding []int
	Groups                  int
	PaddingMode             string // "zeros", "reflect", "replicate" or "circular"
	Transposed              bool
	Weight, Bias            *T // Bias is nil with Bias(false)

	n       int   // spatial dims
	revPad2 []int // F.pad's argument for the non-zeros padding modes
}

var convKeywords = []string{"stride", "padding", "dilation", "groups", "bias", "padding_mode", "device", "dtype"}

// newConv is _ConvNd.__init__ with the arguments of class cls.
func newConv(cls string, n, in, out int, kernel []int, transposed bool, opts []Option) convNd {
	allowed := convKeywords
	if transposed {
		allowed = append([]string{"output_padding"}, convKeywords...)
	}
	k := parse(cls, opts, allowed...)
	c := convNd{InChannels: in, OutChannels: out, KernelSize: kernel, Transposed: transposed, n: n}
	c.SetName(cls)
	c.Stride = k.ints("stride", n, 1)
	c.Dilation = k.ints("dilation", n, 1)
	c.OutputPadding = k.ints("output_padding", n, 0)
	c.Groups = k.int("groups", 1)
	c.PaddingMode = k.str("padding_mode", "zeros")
	if p, ok := k.m["padding"].(string); ok {
		if transposed {
			k.typeErr("padding", "tuple of ints")
		}
		c.PaddingString = p
		c.Padding = repeat(0, n)
	} else {
		c.Padding = k.ints("padding", n, 0)
	}
	if transposed && c.PaddingMode != "zeros" {
		valueError("Only \"zeros\" padding mode is supported for %s", cls)
	}
	switch {
	case c.Groups <= 0:
		valueError("groups must be a positive integer")
	case in%c.Groups != 0:
		valueError("in_channels must be divisible by groups")
	case out%c.Groups != 0:
		valueError("out_channels must be divisible by groups")
	}
	if c.PaddingString != "" {
		if c.PaddingString != "same" && c.PaddingString != "valid" {
			valueError("Invalid padding string '%s', should be one of {'valid', 'same'}", c.PaddingString)
		}
		if c.PaddingString == "same" {
			for _, s := range c.Stride {
				if s != 1 {
					valueError("padding='same' is not supported for strided convolutions")
				}
			}
		}
	}
	switch c.PaddingMode {
	case "zeros", "reflect", "replicate", "circular":
	default:
		valueError("padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='%s'", c.PaddingMode)
	}
	// F.pad takes the last dim first: (left, right) per dim, reversed.
	c.revPad2 = make([]int, 2*n)
	for d := 0; d < n; d++ {
		i := n - 1 - d
		if c.PaddingString == "same" {
			total := c.Dilation[d] * (kernel[d] - 1)
			c.revPad2[2*i], c.revPad2[2*i+1] = total/2, total-total/2
		} else {
			c.revPad2[2*i], c.revPad2[2*i+1] = c.Padding[d], c.Padding[d]
		}
	}
	var wshape []int
	if transposed {
		wshape = append([]int{in, out / c.Groups}, kernel...)
	} else {
		wshape = append([]int{out, in / c.Groups}, kernel...)
	}
	c.Weight = c.RegisterParameter("weight", empty(k, wshape...))
	c.Bias = registerBias(&c.Base, k, out)
	c.ResetParameters()
	k.place(c.Weight, c.Bias)
	return c
}

// ResetParameters draws the initial weight and bias again from the default
// generator: kaiming_uniform_ with a=√5, then U(-1/√fan_in, 1/√fan_in).
func (c *convNd) ResetParameters() { kaimingInit(c.Weight, c.Bias) }

// ExtraRepr is PyTorch's: "3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1)".
func (c *convNd) ExtraRepr() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d, %d, kernel_size=%s, stride=%s", c.InChannels, c.OutChannels, tupleRepr(c.KernelSize), tupleRepr(c.Stride))
	if c.PaddingString != "" {
		b.WriteString(", padding=" + c.PaddingString)
	} else if !allEqual(c.Padding, 0) {
		b.WriteString(", padding=" + tupleRepr(c.Padding))
	}
	if !allEqual(c.Dilation, 1) {
		b.WriteString(", dilation=" + tupleRepr(c.Dilation))
	}
	if !allEqual(c.OutputPadding, 0) {
		b.WriteString(", output_padding=" + tupleRepr(c.OutputPadding))
	}
	if c.Groups != 1 {
		b.WriteString(", groups=" + strconv.Itoa(c.Groups))
	}
	if c.Bias == nil {
		b.WriteString(", bias=False")
	}
	if c.PaddingMode != "zeros" {
		b.WriteString(", padding_mode=" + c.PaddingMode)
	}
	return b.String()
}

func allEqual(s []int, v int) bool {
	for _, x := range s {
		if x != v {
			return false
		}
	}
	return true
}

// forward is _ConvNd's _conv_forward: the non-zeros padding modes pad with
// F.pad and convolve without padding.
func (c *convNd) forward(x *T) *T {
	opts := append(optBias(c.Bias), gt.WithStride(c.Stride), gt.WithDilation(c.Dilation), gt.WithGroups(c.Groups))
	if c.PaddingMode != "zeros" {
		x = x.Pad(c.revPad2, gt.WithMode(c.PaddingMode))
		return c.conv(x, append(opts, gt.WithPadding(repeat(0, c.n)))...)
	}
	if c.PaddingString != "" {
		return c.convPadding(x, append(opts, gt.WithPadding(c.PaddingString))...)
	}
	return c.conv(x, append(opts, gt.WithPadding(c.Padding))...)
}

func (c *convNd) conv(x *T, opts ...gt.Option) *T {
	switch c.n {
	case 1:
		return gt.Conv1d(x, c.Weight, opts...)
	case 2:
		return gt.Conv2d(x, c.Weight, opts...)
	}
	return gt.Conv3d(x, c.Weight, opts...)
}

func (c *convNd) convPadding(x *T, opts ...gt.Option) *T {
	switch c.n {
	case 1:
		return gt.Conv1dPadding(x, c.Weight, opts...)
	case 2:
		return gt.Conv2dPadding(x, c.Weight, opts...)
	}
	return gt.Conv3dPadding(x, c.Weight, opts...)
}

// forwardTransposed is _ConvTransposeNd's forward, with an optional output
// size that picks the output padding.
func (c *convNd) forwardTransposed(x *T, outputSize []int) *T {
	op := c.outputPadding(x, outputSize)
	opts := append(optBias(c.Bias), gt.WithStride(c.Stride), gt.WithPadding(c.Padding), gt.WithOutputPadding(op),
		gt.WithGroups(c.Groups), gt.WithDilation(c.Dilation))
	switch c.n {
	case 1:
		return gt.ConvTranspose1d(x, c.Weight, opts...)
	case 2:
		return gt.ConvTranspose2d(x, c.Weight, opts...)
	}
	return gt.ConvTranspose3d(x, c.Weight, opts...)
}

// outputPadding is _ConvTransposeNd._output_padding.
func (c *convNd) outputPadding(x *T, outputSize []int) []int {
	if outputSize == nil {
		return c.OutputPadding
	}
	n := c.n
	nonSpatial := 1
	if x.Dim() == n+2 {
		nonSpatial = 2
	}
	if len(outputSize) == nonSpatial+n {
		outputSize = outputSize[nonSpatial:]
	}
	if len(outputSize) != n {
		valueError("ConvTranspose%dD: for %dD input, output_size must have %d or %d elements (got %d)", n, x.Dim(), n, nonSpatial+n, len(outputSize))
	}
	minS, maxS := make([]int, n), make([]int, n)
	for d := 0; d < n; d++ {
		minS[d] = (x.Size(d+nonSpatial)-1)*c.Stride[d] - 2*c.Padding[d] + c.Dilation[d]*(c.KernelSize[d]-1) + 1
		maxS[d] = minS[d] + c.Stride[d] - 1
	}
	for i, s := range outputSize {
		if s < minS[i] || s > maxS[i] {
			var in []int
			if x.Dim() > 2 {
				in = x.Sizes()[2:]
			}
			valueError("requested an output size of %s, but valid sizes range from %s to %s (for an input of %s)",
				listRepr(outputSize), listRepr(minS), listRepr(maxS), sizeRepr(in))
		}
	}
	res := make([]int, n)
	for d := range res {
		res[d] = outputSize[d] - minS[d]
	}
	return res
}

// listRepr prints ints as a Python list: [3, 4].
func listRepr(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Conv1d is a 1-d convolution over (N, C_in, L) or (C_in, L) inputs
// (nn.Conv1d). Options: Stride, Padding (or PaddingSame, PaddingValid),
// Dilation, Groups, Bias, PaddingMode, DType, Device.
type Conv1d struct{ convNd }

// NewConv1d makes nn.Conv1d(in, out, kernel).
func NewConv1d[K Size](in, out int, kernel K, opts ...Option) *Conv1d {
	return &Conv1d{newConv("Conv1d", 1, in, out, sizeInts("Conv1d", "kernel_size", kernel, 1), false, opts)}
}

// Forward convolves x.
func (m *Conv1d) Forward(x *T) *T { return m.forward(x) }

func (m *Conv1d) String() string { return Repr(m) }

// Conv2d is a 2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs
// (nn.Conv2d). Options: Stride, Padding (or PaddingSame, PaddingValid),
// Dilation, Groups, Bias, PaddingMode, DType, Device.
type Conv2d struct{ convNd }

// NewConv2d makes nn.Conv2d(in, out, kernel); kernel is an int or []int{kh, kw}.
func NewConv2d[K Size](in, out int, kernel K, opts ...Option) *Conv2d {
	return &Conv2d{newConv("Conv2d", 2, in, out, sizeInts("Conv2d", "kernel_size", kernel, 2), false, opts)}
}

// Forward convolves x.
func (m *Conv2d) Forward(x *T) *T { return m.forward(x) }

func (m *Conv2d) String() string { return Repr(m) }

// Conv3d is a 3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W)
// inputs (nn.Conv3d), with Conv2d's options.
type Conv3d struct{ convNd }

// NewConv3d makes nn.Conv3d(in, out, kernel).
func NewConv3d[K Size](in, out int, kernel K, opts ...Option) *Conv3d {
	return &Conv3d{newConv("Conv3d", 3, in, out, sizeInts("Conv3d", "kernel_size", kernel, 3), false, opts)}
}

// Forward convolves x.
func (m *Conv3d) Forward(x *T) *T { return m.forward(x) }

func (m *Conv3d) String() string { return Repr(m) }

// ConvTranspose1d is the gradient of Conv1d with respect to its input
// (nn.ConvTranspose1d); weight is (in, out/groups, k). Options: Stride,
// Padding, OutputPadding, Groups, Bias, Dilation, DType, Device; the padding
// mode can only be "zeros".
type ConvTranspose1d struct{ convNd }

// NewConvTranspose1d makes nn.ConvTranspose1d(in, out, kernel).
func NewConvTranspose1d[K Size](in, out int, kernel K, opts ...Option) *ConvTranspose1d {
	return &ConvTranspose1d{newConv("ConvTranspose1d", 1, in, out, sizeInts("ConvTranspose1d", "kernel_size", kernel, 1), true, opts)}
}

// Forward applies the transposed convolution.
func (m *ConvTranspose1d) Forward(x *T) *T { return m.forwardTransposed(x, nil) }

// ForwardOutputSize is forward(x, output_size): the output padding is
// chosen to give that size (the spatial sizes, or the whole shape).
func (m *ConvTranspose1d) ForwardOutputSize(x *T, outputSize []int) *T {
	return m.forwardTransposed(x, outputSize)
}

func (m *ConvTranspose1d) String() string { return Repr(m) }

// ConvTranspose2d is the gradient of Conv2d with respect to its input
// (nn.ConvTranspose2d), with ConvTranspose1d's options.
type ConvTranspose2d struct{ convNd }

// NewConvTranspose2d makes nn.ConvTranspose2d(in, out, kernel).
func NewConvTranspose2d[K Size](in, out int, kernel K, opts ...Option) *ConvTranspose2d {
	return &ConvTranspose2d{newConv("ConvTranspose2d", 2, in, out, sizeInts("ConvTranspose2d", "kernel_size", kernel, 2), true, opts)}
}

// Forward applies the transposed convolution.
func (m *ConvTranspose2d) Forward(x *T) *T { return m.forwardTransposed(x, nil) }

// ForwardOutputSize is forward(x, output_size).
func (m *ConvTranspose2d) ForwardOutputSize(x *T, outputSize []int) *T {
	return m.forwardTransposed(x, outputSize)
}

func (m *ConvTranspose2d) String() string { return Repr(m) }

// ConvTranspose3d is the gradient of Conv3d with respect to its input
// (nn.ConvTranspose3d), with ConvTranspose1d's options.
type ConvTranspose3d struct{ convNd }

// NewConvTranspose3d makes nn.ConvTranspose3d(in, out, kernel).
func NewConvTranspose3d[K Size](in, out int, kernel K, opts ...Option) *ConvTranspose3d {
	return &ConvTranspose3d{newConv("ConvTranspose3d", 3, in, out, sizeInts("ConvTranspose3d", "kernel_size", kernel, 3), true, opts)}
}

// Forward applies the transposed convolution.
func (m *ConvTranspose3d) Forward(x *T) *T { return m.forwardTransposed(x, nil) }

// ForwardOutputSize is forward(x, output_size).
func (m *ConvTranspose3d) ForwardOutputSize(x *T, outputSize []int) *T {
	return m.forwardTransposed(x, outputSize)
}

func (m *ConvTranspose3d) String() string { return Repr(m) }
