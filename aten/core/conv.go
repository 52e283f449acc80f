package core

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of convolution, convolution_backward and col2im, with the
// checks PyTorch 1.13 makes on the CPU, in its order: _convolution's own
// (weight rank, groups, parameter list lengths, check_shape_forward), then
// those of the backend it selects (slow_conv2d, slow_conv3d,
// slow_conv_dilated, slow_conv_transpose2d/3d), then the dtype dispatch.

// ConvParams is the geometry of a convolution after validation. Spatial
// lists have Dim entries (1, 2 or 3).
type ConvParams struct {
	Dim        int
	Transposed bool
	Groups     int
	Stride     []int
	Padding    []int
	Dilation   []int
	OutPadding []int
	N          int   // batch
	InC        int   // input channels
	OutC       int   // output channels
	In         []int // input spatial sizes
	Kernel     []int // kernel spatial sizes
	Out        []int // output spatial sizes
	Empty      bool  // zero batch or zero input channels: no backend runs

	lists [7 * 3]int // the spatial lists' elements, for up to 3 spatial dims
}

// list returns the i-th of p's spatial lists (dim long): a part of p for
// dims up to 3, so that parsing a convolution makes one object.
func (p *ConvParams) list(i, dim int) []int {
	if dim > 3 {
		return make([]int, dim)
	}
	return p.lists[3*i : 3*i+dim : 3*i+dim]
}

// linExpandParam is expand_param_if_needed, into out (dim long).
func linExpandParam(out, v []int, name string) []int {
	if len(v) == 1 {
		for i := range out {
			out[i] = v[0]
		}
		return out
	}
	if len(v) != len(out) {
		tensor.Panicf("expected %s to be a single integer value or a list of %d values to match the convolution dimensions, but got %s=%s", name, len(out), name, tensor.ShapeString(v))
	}
	copy(out, v)
	return out
}

func linAnyBelow(v []int, lim int) bool {
	for _, x := range v {
		if x < lim {
			return true
		}
	}
	return false
}

// ParseConv validates the arguments a of op, convolution or
// convolution_backward, and returns the convolution's geometry.
func ParseConv(op *tensor.Op, a []any) *ConvParams {
	if op.Schema.Name == "convolution_backward" {
		return parseConv(convOfBackward(args.ConvolutionBackwardOf(a)), true)
	}
	return parseConv(args.ConvolutionOf(a), false)
}

// convOfBackward is the convolution whose backward b computes, without bias.
func convOfBackward(b args.ConvolutionBackward) args.Convolution {
	return args.Convolution{Input: b.Input, Weight: b.Weight, Stride: b.Stride, Padding: b.Padding,
		Dilation: b.Dilation, Transposed: b.Transposed, OutputPadding: b.OutputPadding, Groups: b.Groups}
}

// parseConv validates a convolution (forward when backward is false, else
// convolution_backward's, which has no bias) and returns its geometry.
func parseConv(c args.Convolution, backward bool) *ConvParams {
	input, weight, bias := c.Input, c.Weight, c.Bias
	k := weight.Dim()
	dim := k - 2
	tensor.Check(dim > 0, "weight should have at least three dimensions")
	groups := c.Groups
	tensor.Check(groups > 0, "non-positive groups is not supported")
	p := &ConvParams{Dim: dim, Groups: groups, Transposed: c.Transposed}
	p.Stride = linExpandParam(p.list(0, dim), c.Stride, "stride")
	p.Padding = linExpandParam(p.list(1, dim), c.Padding, "padding")
	p.Dilation = linExpandParam(p.list(2, dim), c.Dilation, "dilation")
	p.OutPadding = linExpandParam(p.list(3, dim), c.OutputPadding, "output_padding")

	// check_shape_forward
	ws := weight.Sizes()
	tensor.Check(!linAnyBelow(p.Padding, 0), "negative padding is not supported")
	tensor.Check(!linAnyBelow(p.OutPadding, 0), "negative output_padding is not supported")
	tensor.Check(!linAnyBelow(p.Stride, 1), "non-positive stride is not supported")
	if input.Dim() != k {
		tensor.Panicf("Expected %d-dimensional input for %d-dimensional weight %s, but got %d-dimensional input of size %s instead",
			k, k, tensor.ShapeString(ws), input.Dim(), tensor.ShapeString(input.Sizes()))
	}
	if ws[0] < groups {
		tensor.Panicf("Given groups=%d, expected weight to be at least %d at dimension 0, but got weight of size %s instead", groups, groups, tensor.ShapeString(ws))
	}
	if ws[0]%groups != 0 {
		tensor.Panicf("Given groups=%d, expected weight to be divisible by %d at dimension 0, but got weight of size [%s] instead", groups, groups, tensor.ShapeString(ws))
	}
	p.N, p.InC = input.Size(0), input.Size(1)
	p.In = p.list(4, dim)
	copy(p.In, input.Sizes()[2:])
	p.Kernel = p.list(5, dim)
	copy(p.Kernel, ws[2:])
	if !p.Transposed {
		if p.InC != ws[1]*groups {
			tensor.Panicf("Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
				groups, tensor.ShapeString(ws), tensor.ShapeString(input.Sizes()), ws[1]*groups, p.InC)
		}
		if bias != nil && (bias.Dim() != 1 || bias.Size(0) != ws[0]) {
			tensor.Panicf("Given weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead",
				tensor.ShapeString(ws), ws[0], tensor.ShapeString(bias.Sizes()))
		}
		ok := true
		padded := make([]int, dim)
		kern := make([]int, dim)
		for i := range dim {
			// Saturating: parameters near the int64 limits give sizes that
			// fail the checks rather than wrapped ones that pass them.
			padded[i] = satAdd(p.In[i], satMul(2, p.Padding[i]))
			kern[i] = satAdd(satMul(p.Dilation[i], p.Kernel[i]-1), 1)
			if padded[i] < kern[i] {
				ok = false
			}
		}
		if !ok {
			tensor.Panicf("Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't be greater than actual input size",
				linJoin(padded, " x "), linJoin(kern, " x "))
		}
		p.OutC = ws[0]
	} else {
		if p.InC != ws[0] {
			tensor.Panicf("Given transposed=1, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
				tensor.ShapeString(ws), tensor.ShapeString(input.Sizes()), ws[0], p.InC)
		}
		if bias != nil && (bias.Dim() != 1 || bias.Size(0) != ws[1]*groups) {
			tensor.Panicf("Given transposed=1, weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead",
				tensor.ShapeString(ws), ws[1]*groups, tensor.ShapeString(bias.Sizes()))
		}
		p.OutC = ws[1] * groups
	}
	p.Out = p.list(6, dim)
	for i := range dim {
		// Saturating, as above: an output size past the int64 range is
		// refused when it is allocated (or as too small).
		dk := satMul(p.Dilation[i], p.Kernel[i]-1)
		if p.Transposed {
			p.Out[i] = satAdd(satMul(p.In[i]-1, p.Stride[i]), satMul(-2, p.Padding[i]), dk, p.OutPadding[i], 1)
		} else {
			p.Out[i] = satAdd(linDivRtn(satAdd(p.In[i], satMul(2, p.Padding[i]), satMul(-1, dk), -1), p.Stride[i]), 1)
		}
	}
	if backward && !p.Transposed {
		for _, op := range p.OutPadding {
			if op != 0 {
				tensor.Panicf("output_padding is not supported for non-transposed convolutions; got: %s", linJoin(p.OutPadding, " "))
			}
		}
	}
	// _select_conv_backend: empty inputs never reach a backend.
	if p.N == 0 || p.InC == 0 {
		p.Empty = true
		return p
	}
	if input.Numel() == 0 {
		tensor.Panicf("Only zero batch or zero channel inputs are supported, but got input shape: %s", tensor.ShapeString(p.view2d(input.Sizes())))
	}
	p.backendChecks(weight)
	return p
}

// view2d is the shape PyTorch gives a 1-d convolution's tensors: it runs them
// as 2-d with a height of 1 (and stride, padding, ... of 1, 0, ...).
func (p *ConvParams) view2d(s []int) []int {
	if p.Dim != 1 {
		return s
	}
	return []int{s[0], s[1], 1, s[2]}
}

func (p *ConvParams) view2dParam(v []int, fill int) []int {
	if p.Dim != 1 {
		return v
	}
	return []int{fill, v[0]}
}

// Dilated reports whether any dilation differs from 1.
func (p *ConvParams) Dilated() bool {
	for _, d := range p.Dilation {
		if d != 1 {
			return true
		}
	}
	return false
}

// backendName is the kernel name PyTorch's CPU backend dispatches under.
func (p *ConvParams) backendName(backward bool, mask []bool) string {
	sd := 2
	if p.Dim == 3 {
		sd = 3
	}
	switch {
	case p.Transposed && backward:
		return "slow_conv_transpose" + linItoa(sd) + "d_backward_out_cpu"
	case p.Transposed:
		return "slow_conv_transpose" + linItoa(sd) + "d_out_cpu"
	case p.Dilated():
		return "slow_conv_dilated<>"
	case backward && mask[0]:
		return "slow_conv" + linItoa(sd) + "d_cpu_grad_input"
	case backward:
		return "slow_conv" + linItoa(sd) + "d_cpu_grad_weight"
	case sd == 3:
		return "compute_columns3d"
	}
	return "slow_conv2d_cpu"
}

// checkDType is the backend's dtype dispatch.
func (p *ConvParams) checkDType(d tensor.DType, backward bool, mask []bool) {
	name := p.backendName(backward, mask)
	ok := d == tensor.Float32 || d == tensor.Float64 || d == tensor.BFloat16
	switch {
	case backward && !p.Transposed && !p.Dilated():
	case p.Transposed && backward:
	case p.Transposed || p.Dilated():
		ok = ok || d == tensor.Int64
	default:
		ok = d != tensor.Bool && d != tensor.Float16
	}
	if !ok {
		linNotImplemented(name, d)
	}
}

// backendChecks are the shape checks of the selected slow CPU backend.
func (p *ConvParams) backendChecks(weight *tensor.Tensor) {
	kern := p.view2dParam(p.Kernel, 1)
	stride := p.view2dParam(p.Stride, 1)
	dil := p.view2dParam(p.Dilation, 1)
	names := []string{"height", "width"}
	if len(kern) == 3 {
		names = []string{"depth", "height", "width"}
	}
	named := func(what string, v []int) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = what + "_" + names[i] + ": " + linItoa(x)
		}
		return strings.Join(parts, " ")
	}
	switch {
	case p.Transposed:
		if linAnyBelow(kern, 1) {
			tensor.Panicf("kernel size should be greater than zero, but got %s", named("kernel", kern))
		}
		if linAnyBelow(stride, 1) {
			tensor.Panicf("stride should be greater than zero, but got %s", named("stride", stride))
		}
		if linAnyBelow(dil, 1) {
			tensor.Panicf("dilation should be greater than zero, but got %s", named("dilation", dil))
		}
		op := p.view2dParam(p.OutPadding, 0)
		for i := range op {
			if op[i] >= stride[i] && op[i] >= dil[i] {
				tensor.Panicf("output padding must be smaller than either stride or dilation, but got %s %s %s",
					named("output_padding", op), named("stride", stride), named("dilation", dil))
			}
		}
		if linAnyBelow(p.Out, 1) {
			tensor.Panicf("Given input size per channel: (%s). Calculated output size per channel: (%s). Output size is too small",
				linJoin(p.view2dParam(p.In, 1), " x "), linJoin(p.view2dParam(p.Out, 1), " x "))
		}
	case p.Dilated():
		if linAnyBelow(kern, 1) {
			tensor.Panicf("kernel size should be greater than zero, but got %s", tensor.ShapeString(kern))
		}
		if linAnyBelow(stride, 1) {
			tensor.Panicf("stride should be greater than zero, but got %s", tensor.ShapeString(stride))
		}
		if linAnyBelow(dil, 1) {
			tensor.Panicf("dilation should be greater than zero, but got %s", tensor.ShapeString(dil))
		}
		if linAnyBelow(p.Out, 1) {
			tensor.Panicf("calculated output size %s is too small (all sizes must be non-zero)", tensor.ShapeString(p.view2dParam(p.Out, 1)))
		}
	case len(kern) == 2:
		if linAnyBelow(kern, 1) {
			tensor.Panicf("kernel size should be greater than zero, but got kernel_height: %d kernel_width: %d", kern[0], kern[1])
		}
		if weight.Numel() <= 0 {
			tensor.Panicf("non-empty 2D or 4D weight tensor expected, but got: %s", tensor.ShapeString(p.view2d(weight.Sizes())))
		}
	default:
		if linAnyBelow(kern, 1) {
			tensor.Panicf("kernel size should be greater than zero, but got kT: %d kH: %d kW: %d", kern[0], kern[1], kern[2])
		}
		if weight.Numel() <= 0 {
			tensor.Panicf("non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x kernel_width) tensor for weight expected, but got: %s", tensor.ShapeString(weight.Sizes()))
		}
	}
}

// checkGradOutput validates convolution_backward's grad_output against the
// computed output shape, with the selected backend's message.
func (p *ConvParams) checkGradOutput(g *tensor.Tensor) {
	gs := p.view2d(g.Sizes())
	want := append([]int{p.N, p.OutC}, p.view2dParam(p.Out, 1)...)
	// Only the dilated backend checks the batch size; the others index
	// grad_output past its end (PyTorch raises from select() or crashes), so
	// every backend gets the dilated one's check.
	if gs[0] != p.N {
		tensor.Panicf("grad_output.size(0)=%d must be equal to input.size(0)=%d", gs[0], p.N)
	}
	if !p.Transposed && p.Dilated() {
		if gs[1] != p.OutC {
			tensor.Panicf("grad_output.size(1)=%d must be equal to weight.size(0)=%d", gs[1], p.OutC)
		}
		if !slices.Equal(gs[2:], want[2:]) {
			tensor.Panicf("grad_output[2:] shape%s must be equal to output size %s", tensor.ShapeString(gs[2:]), linJoin(want[2:], " "))
		}
		return
	}
	for d := 1; d < len(want); d++ {
		if gs[d] != want[d] {
			tensor.Panicf("Expected a tensor of dimension %d and tensor.size[%d] == %d but got: dimension %d and tensor.size[%d] = %d",
				len(want), d, want[d], len(gs), d, gs[d])
		}
	}
}

func convolutionMeta(op *tensor.Op, a []any) any {
	c := args.ConvolutionOf(a)
	input, weight, bias := c.Input, c.Weight, c.Bias
	p := parseConv(c, false)
	sizes := append([]int{p.N, p.OutC}, p.Out...)
	if p.Empty {
		if p.N > 0 && weight.Numel() == 0 {
			tensor.IndexPanicf("index 0 is out of bounds for dimension 0 with size 0")
		}
		// PyTorch computes weight.view(-1)[0] * input: a 0-d weight element.
		w0 := tensor.NewMetaContiguous(nil, weight.DType(), weight.Device())
		return Contig(op, a, tensor.ResultType(w0, input), sizes...)
	}
	p.checkDType(input.DType(), false, nil)
	linCheckScalarType(input.DType(), weight.DType())
	if p.Transposed && bias != nil {
		// slow_conv_transpose reads the bias as the input's scalar type (the
		// other convolutions add it with a cast).
		linCheckScalarType(input.DType(), bias.DType())
	}
	return Contig(op, a, input.DType(), sizes...)
}

func convolutionBackwardMeta(op *tensor.Op, a []any) any {
	b := args.ConvolutionBackwardOf(a)
	gout, input, weight := b.GradOutput, b.Input, b.Weight
	mask := b.OutputMask
	if len(mask) != 3 {
		tensor.Panicf("output_mask must have 3 entries, got %d", len(mask))
	}
	p := parseConv(convOfBackward(b), true)
	if input.Dim() != gout.Dim() {
		tensor.Panicf("Expected input and grad_output to have the same number of dimensions, but got: %d and %d", input.Dim(), gout.Dim())
	}
	dev := op.DeviceOf(a)
	out := make([]*tensor.Tensor, 3)
	if p.Empty {
		if mask[0] {
			out[0] = tensor.NewMetaContiguous(input.Sizes(), input.DType(), dev)
		}
		if mask[1] {
			out[1] = tensor.NewMetaContiguous(weight.Sizes(), weight.DType(), dev)
		}
		if mask[2] {
			bs := b.BiasSizes
			if bs == nil {
				bs = []int{p.OutC}
			}
			out[2] = Contig(op, a, weight.DType(), bs...)
		}
		return out
	}
	p.checkGradOutput(gout)
	if mask[0] || mask[1] {
		p.checkDType(input.DType(), true, mask)
		linCheckScalarType(input.DType(), gout.DType())
		linCheckScalarType(input.DType(), weight.DType())
	}
	if mask[0] {
		out[0] = tensor.NewMetaContiguous(input.Sizes(), input.DType(), dev)
	}
	if mask[1] {
		out[1] = tensor.NewMetaContiguous(weight.Sizes(), weight.DType(), dev)
	}
	if mask[2] {
		out[2] = Contig(op, a, gout.DType(), p.OutC)
	}
	return out
}

// Col2imParams is col2im's validated geometry.
type Col2imParams struct {
	Batched                            bool
	N, C                               int
	OutH, OutW, KH, KW, DH, DW, PH, PW int
	SH, SW                             int
	BlocksH, BlocksW                   int
}

// ParseCol2im validates col2im's arguments a (col2im_shape_check); input
// is its self.
func ParseCol2im(input *tensor.Tensor, a []any) *Col2imParams {
	p := args.Col2imOf(a)
	names := []string{"output_size", "kernel_size", "dilation", "padding", "stride"}
	v := [5][]int{p.OutputSize, p.KernelSize, p.Dilation, p.Padding, p.Stride}
	for i, n := range names {
		if len(v[i]) != 2 {
			tensor.Panicf("It is expected %s equals to 2, but got size %d", n, len(v[i]))
		}
	}
	c := &Col2imParams{OutH: v[0][0], OutW: v[0][1], KH: v[1][0], KW: v[1][1], DH: v[2][0], DW: v[2][1],
		PH: v[3][0], PW: v[3][1], SH: v[4][0], SW: v[4][1]}
	if c.KW <= 0 || c.KH <= 0 {
		tensor.Panicf("kernel size should be greater than zero, but got kernel_height: %d kernel_width: %d", c.KH, c.KW)
	}
	if c.SW <= 0 || c.SH <= 0 {
		tensor.Panicf("stride should be greater than zero, but got stride_height: %d stride_width: %d", c.SH, c.SW)
	}
	if c.DW <= 0 || c.DH <= 0 {
		tensor.Panicf("dilation should be greater than zero, but got dilation_height: %d dilation_width: %d", c.DH, c.DW)
	}
	if c.PW < 0 || c.PH < 0 {
		tensor.Panicf("padding should be non-negative, but got pad_height: %d pad_width: %d", c.PH, c.PW)
	}
	nd := input.Dim()
	s := input.Sizes()
	if !((nd == 2 && s[0] != 0 && s[1] != 0) || (nd == 3 && s[1] != 0 && s[2] != 0)) {
		tensor.Panicf("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %s", tensor.ShapeString(s))
	}
	c.Batched = nd == 3
	if !c.Batched {
		s = append([]int{1}, s...)
	}
	c.N = s[0]
	planes, length := s[1], s[2]
	// A product of kernel sizes past int64 would wrap (to 0 for 2^32 × 2^32);
	// it is larger than planes, so planes is not a multiple of it.
	if hi, kk := bits.Mul64(uint64(c.KW), uint64(c.KH)); hi != 0 || kk > uint64(planes) || planes%int(kk) != 0 {
		tensor.Panicf("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%d and kernel_size=(%d, %d).", planes, c.KH, c.KW)
	}
	c.C = planes / (c.KW * c.KH)
	// Saturating: parameters near the int64 limits give block counts that
	// fail the checks below rather than wrapped ones that pass them.
	c.BlocksH = satAdd(linDivRtn(satAdd(c.OutH, satMul(2, c.PH), -satMul(c.DH, c.KH-1), -1), c.SH), 1)
	c.BlocksW = satAdd(linDivRtn(satAdd(c.OutW, satMul(2, c.PW), -satMul(c.DW, c.KW-1), -1), c.SW), 1)
	desc := func() string {
		return "Given output_size=(" + linItoa(c.OutH) + ", " + linItoa(c.OutW) + "), kernel_size=(" + linItoa(c.KH) + ", " + linItoa(c.KW) +
			"), dilation=(" + linItoa(c.DH) + ", " + linItoa(c.DW) + "), padding=(" + linItoa(c.PH) + ", " + linItoa(c.PW) +
			"), stride=(" + linItoa(c.SH) + ", " + linItoa(c.SW) + "), "
	}
	if length != satMul(c.BlocksH, c.BlocksW) {
		tensor.Panicf("%sexpected size of input's dimension 2 to match the calculated number of sliding blocks %d * %d = %d, but got input.size(2)=%d.",
			desc(), c.BlocksH, c.BlocksW, satMul(c.BlocksH, c.BlocksW), length)
	}
	if c.BlocksH < 1 || c.BlocksW < 1 {
		tensor.Panicf("%scalculated shape of the array of sliding blocks as (%d, %d), which is too small (non-positive)", desc(), c.BlocksH, c.BlocksW)
	}
	if c.OutW < 1 || c.OutH < 1 {
		tensor.Panicf("Expected output spatial size to be positive, but got: output_size=(%d, %d).", c.OutH, c.OutW)
	}
	return c
}

func col2imMeta(op *tensor.Op, a []any) any {
	x := args.Col2imOf(a).Self
	c := ParseCol2im(x, a)
	if d := x.DType(); !d.IsFloat() {
		linNotImplemented("col2im_out_cpu", d)
	}
	if c.Batched {
		return Contig(op, a, x.DType(), c.N, c.C, c.OutH, c.OutW)
	}
	return Contig(op, a, x.DType(), c.C, c.OutH, c.OutW)
}

// linDivRtn divides rounding toward negative infinity.
func linDivRtn(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func linJoin(v []int, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = linItoa(x)
	}
	return strings.Join(parts, sep)
}

func linItoa(x int) string { return strconv.Itoa(x) }

func init() {
	def("aten::convolution.default", convolutionMeta)
	def("aten::convolution_backward.default", convolutionBackwardMeta)
	def("aten::col2im.default", col2imMeta)
}
