package core

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Pooling ops: average, max and adaptive-average pooling in one, two and three
// spatial dims, and the backward ops of the 2-d ones. The argument checks and
// their order follow PyTorch 1.13 (Pool.h, AveragePool2d/3d.cpp,
// DilatedMaxPool2d/3d.cpp, AdaptiveAveragePooling*.cpp), messages included.

// PoolWindow is the geometry of a pooling op over three spatial dims
// (D, H, W): 2-d ops have D = 1, and 1-d ops have H = 1 as well.
type PoolWindow struct {
	Planes          int    // product of the non-spatial dims (batch × channels)
	In, Out         [3]int // spatial sizes of the input and of the output
	Kernel, Stride  [3]int
	Pad, Dilation   [3]int
	CountIncludePad bool
	Divisor         int // divisor_override, 0 when None
}

// PoolGeometry validates the arguments of a pooling op (any of this file's
// ops) and returns its window geometry. Kernels call it to learn what the
// meta function checked.
func PoolGeometry(op *tensor.Op, a []any) PoolWindow {
	switch op.Schema.Name {
	case "avg_pool1d":
		return avgPool1dGeom(args.AvgPool1dOf(a))
	case "avg_pool2d":
		return avgPool2dGeom(args.AvgPool2dOf(a))
	case "avg_pool2d_backward":
		return avgPool2dBackwardGeom(args.AvgPool2dBackwardOf(a))
	case "avg_pool3d":
		return avgPool3dGeom(args.AvgPool3dOf(a))
	case "max_pool2d_with_indices":
		return maxPool2dGeom(args.MaxPool2dWithIndicesOf(a), nil)
	case "max_pool2d_with_indices_backward":
		return maxPool2dBackwardGeom(args.MaxPool2dWithIndicesBackwardOf(a))
	case "max_pool3d_with_indices":
		return maxPool3dGeom(args.MaxPool3dWithIndicesOf(a))
	case "adaptive_avg_pool1d":
		return adaptivePool1dGeom(args.AdaptiveAvgPool1dOf(a))
	case "_adaptive_avg_pool2d":
		p := args.InternalAdaptiveAvgPool2dOf(a)
		return adaptivePool2dGeom(p.Self, p.OutputSize)
	case "_adaptive_avg_pool2d_backward":
		return adaptivePool2dBackwardGeom(args.InternalAdaptiveAvgPool2dBackwardOf(a))
	case "_adaptive_avg_pool3d":
		return adaptivePool3dGeom(args.InternalAdaptiveAvgPool3dOf(a))
	}
	panic("core: PoolGeometry of " + op.Name)
}

// AdaptiveStart and AdaptiveEnd give the input range [start, end) that output
// index a of b reads from an input of size c, computed in float32 as PyTorch does.
func AdaptiveStart(a, b, c int) int {
	return int(math.Floor(float64(float32(a*c) / float32(b))))
}

// AdaptiveEnd is the exclusive end of AdaptiveStart's range.
func AdaptiveEnd(a, b, c int) int {
	return int(math.Ceil(float64(float32((a+1)*c) / float32(b))))
}

// TypeMetaName is caffe2::TypeMeta's name of a dtype ("expected dtype float ...").
func TypeMetaName(d tensor.DType) string {
	switch d {
	case tensor.Bool:
		return "bool"
	case tensor.Uint8:
		return "unsigned char"
	case tensor.Int8:
		return "signed char"
	case tensor.Int16:
		return "short int"
	case tensor.Int32:
		return "int"
	case tensor.Int64:
		return "long int"
	case tensor.Float16:
		return "c10::Half"
	case tensor.BFloat16:
		return "c10::BFloat16"
	case tensor.Float32:
		return "float"
	case tensor.Float64:
		return "double"
	}
	return d.String()
}

// poolCheckDType rejects a dtype outside ok with AT_DISPATCH's message for kernel name.
func poolCheckDType(name string, d tensor.DType, ok ...tensor.DType) {
	for _, o := range ok {
		if d == o {
			return
		}
	}
	tensor.Panicf("\"%s\" not implemented for '%s'", name, CTypeName(d))
}

// poolCheckScalarType is data_ptr<T>'s check that t has dtype want.
func poolCheckScalarType(t *tensor.Tensor, want tensor.DType) {
	if t.DType() != want {
		tensor.Panicf("expected scalar type %s but found %s", CTypeName(want), CTypeName(t.DType()))
	}
}

// poolDowncast is safe_downcast<int, int64_t>.
func poolDowncast(v int) int {
	tensor.Check(v >= math.MinInt32 && v <= math.MaxInt32, "integer out of range")
	return v
}

// poolDivRtn divides rounding towards negative infinity (div_rtn).
func poolDivRtn(x, y int) int {
	q, r := x/y, x%y
	if r != 0 && (r < 0) != (y < 0) {
		q--
	}
	return q
}

// poolOutputSize is pooling_output_shape: the output extent of one spatial
// dim, with the ceil_mode rule that the last window must start inside the
// input or the left padding.
func poolOutputSize(in, k, pad, stride, dil int, ceil bool) int {
	tensor.Check(stride != 0, "stride should not be zero")
	if pad < 0 {
		tensor.Panicf("pad must be non-negative, but got pad: %d", pad)
	}
	if pad > k/2 {
		tensor.Panicf("pad should be at most half of kernel size, but got pad=%d and kernel_size=%d", pad, k)
	}
	extra := 0
	if ceil {
		extra = stride - 1
	}
	out := poolDivRtn(in+2*pad-dil*(k-1)-1+extra, stride) + 1
	if ceil && (out-1)*stride >= in+pad {
		out--
	}
	return out
}

// poolCheckDimSize is check_dim_size: t must have rank dim and size n at dim d.
func poolCheckDimSize(t *tensor.Tensor, dim, d, n int) {
	if t.Dim() == dim && t.Size(d) == n {
		return
	}
	if t.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as %d but tensor has no dimensions", d)
	}
	got := t.Size(d) // IndexError when d is out of range, as in PyTorch
	tensor.Panicf("Expected a tensor of dimension %d and tensor.size[%d] == %d but got: dimension %d and tensor.size[%d] = %d",
		dim, d, n, t.Dim(), d, got)
}

// poolExpand reads an int list of length 1 or n as n values.
func poolExpand(v []int, n int) []int {
	if len(v) == 1 {
		out := make([]int, n)
		for i := range out {
			out[i] = v[0]
		}
		return out
	}
	return v
}

// poolWin2d holds the parsed kernel arguments of a 2-d pooling op.
type poolWin2d struct {
	kH, kW, dH, dW, pH, pW, dilH, dilW int
}

// avgPool2dArgs parses avg_pool2d's kernel_size, stride and padding.
func avgPool2dArgs(kernel, stride, padding []int) poolWin2d {
	tensor.Check(len(kernel) == 1 || len(kernel) == 2,
		"avg_pool2d: kernel_size must either be a single int, or a tuple of two ints")
	tensor.Check(len(stride) <= 2,
		"avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
	tensor.Check(len(padding) == 1 || len(padding) == 2,
		"avg_pool2d: padding must either be a single int, or a tuple of two ints")
	k := poolExpand(kernel, 2)
	s := k
	if len(stride) > 0 {
		s = poolExpand(stride, 2)
	}
	p := poolExpand(padding, 2)
	return poolWin2d{kH: k[0], kW: k[1], dH: s[0], dW: s[1], pH: p[0], pW: p[1], dilH: 1, dilW: 1}
}

// maxPool2dArgs parses max_pool2d's kernel_size, stride, padding and dilation.
func maxPool2dArgs(kernel, stride, padding, dilation []int) poolWin2d {
	tensor.Check(len(kernel) == 1 || len(kernel) == 2,
		"max_pool2d: kernel_size must either be a single int, or a tuple of two ints")
	k := poolExpand(kernel, 2)
	tensor.Check(len(stride) <= 2,
		"max_pool2d: stride must either be omitted, a single int, or a tuple of two ints")
	s := k
	if len(stride) > 0 {
		s = poolExpand(stride, 2)
	}
	tensor.Check(len(padding) == 1 || len(padding) == 2,
		"max_pool2d: padding must be either be a single int, or a tuple of two ints")
	p := poolExpand(padding, 2)
	tensor.Check(len(dilation) == 1 || len(dilation) == 2,
		"max_pool2d: dilation must be either a single int, or a tuple of two ints")
	d := poolExpand(dilation, 2)
	w := poolWin2d{kH: k[0], kW: k[1], dH: s[0], dW: s[1], pH: p[0], pW: p[1], dilH: d[0], dilW: d[1]}
	for _, v := range []int{w.kH, w.kW, w.dH, w.dW, w.pH, w.pW, w.dilH, w.dilW} {
		poolDowncast(v)
	}
	return w
}

// pool2dShapeCheck is pool2d_shape_check for contiguous-format inputs (a
// channels-last input is never empty, so its variant never fires differently).
func pool2dShapeCheck(x *tensor.Tensor, w poolWin2d, planes, inH, inW, outH, outW int) {
	if w.kW <= 0 || w.kH <= 0 {
		tensor.Panicf("kernel size should be greater than zero, but got kH: %d kW: %d", w.kH, w.kW)
	}
	if w.dW <= 0 || w.dH <= 0 {
		tensor.Panicf("stride should be greater than zero, but got dH: %d dW: %d", w.dH, w.dW)
	}
	if w.dilH <= 0 || w.dilW <= 0 {
		tensor.Panicf("dilation should be greater than zero, but got dilationH: %d dilationW: %d", w.dilH, w.dilW)
	}
	n := x.Dim()
	valid := n >= 3 && x.Size(1) != 0 && x.Size(2) != 0
	if !((n == 3 && x.Size(0) != 0 && valid) || (n == 4 && valid && x.Size(3) != 0)) {
		tensor.Panicf("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", tensor.ShapeString(x.Sizes()))
	}
	if outW < 1 || outH < 1 {
		tensor.Panicf("Given input size: (%dx%dx%d). Calculated output size: (%dx%dx%d). Output size is too small",
			planes, inH, inW, planes, outH, outW)
	}
}

// poolGeom2d fills a PoolWindow for a 2-d op over x.
func poolGeom2d(x *tensor.Tensor, w poolWin2d, outH, outW int) PoolWindow {
	inH, inW := x.Size(-2), x.Size(-1)
	planes := 1
	for _, s := range x.Sizes()[:x.Dim()-2] {
		planes *= s
	}
	return PoolWindow{
		Planes:   planes,
		In:       [3]int{1, inH, inW},
		Out:      [3]int{1, outH, outW},
		Kernel:   [3]int{1, w.kH, w.kW},
		Stride:   [3]int{1, w.dH, w.dW},
		Pad:      [3]int{0, w.pH, w.pW},
		Dilation: [3]int{1, w.dilH, w.dilW},
	}
}

// avgPool2dGeom checks avg_pool2d's arguments.
func avgPool2dGeom(p args.AvgPool2d) PoolWindow {
	x := p.Self
	w := avgPool2dArgs(p.KernelSize, p.Stride, p.Padding)
	ceil, cip := p.CeilMode, p.CountIncludePad
	div := p.DivisorOverride.Or(0)
	tensor.Check(!p.DivisorOverride.Ok || div != 0, "divisor must be not zero")
	planes, inH, inW := x.Size(-3), x.Size(-2), x.Size(-1)
	outH := poolOutputSize(inH, w.kH, w.pH, w.dH, 1, ceil)
	outW := poolOutputSize(inW, w.kW, w.pW, w.dW, 1, ceil)
	pool2dShapeCheck(x, w, planes, inH, inW, outH, outW)
	g := poolGeom2d(x, w, outH, outW)
	g.CountIncludePad, g.Divisor = cip, div
	return g
}

func avgPool1dGeom(p args.AvgPool1d) PoolWindow {
	x := p.Self
	kernel, stride, padding := p.KernelSize, p.Stride, p.Padding
	if len(stride) == 0 {
		stride = kernel
	}
	if x.Dim() < 2 || x.Dim() >= 4 {
		tensor.Panicf("Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)", x.Dim())
	}
	poolCheck1d("avg_pool1d", "kernel_size", kernel)
	poolCheck1d("avg_pool1d", "stride", stride)
	poolCheck1d("avg_pool1d", "padding", padding)
	x2 := poolUnsqueeze(x, x.Dim()-1)
	return avgPool2dGeom(args.AvgPool2d{Self: x2, KernelSize: []int{1, kernel[0]}, Stride: []int{1, stride[0]}, Padding: []int{0, padding[0]},
		CeilMode: p.CeilMode, CountIncludePad: p.CountIncludePad})
}

func poolCheck1d(fn, arg string, v []int) {
	if len(v) != 1 {
		tensor.Panicf("%s() argument '%s' should contain one int (got %d)", fn, arg, len(v))
	}
}

// poolUnsqueeze is the metadata of x.unsqueeze(d) (d < x.Dim()), with
// PyTorch's stride for the new dim.
func poolUnsqueeze(x *tensor.Tensor, d int) *tensor.Tensor {
	sizes := append([]int(nil), x.Sizes()[:d]...)
	sizes = append(sizes, 1)
	sizes = append(sizes, x.Sizes()[d:]...)
	strides := append([]int(nil), x.Strides()[:d]...)
	strides = append(strides, x.Size(d)*x.Stride(d))
	strides = append(strides, x.Strides()[d:]...)
	return tensor.NewMeta(sizes, strides, x.StorageOffset(), x.DType(), x.Device())
}

// poolChannelsLast reports whether suggest_memory_format() is
// channels_last for a tensor: 4-d, non-empty, with strides ordered like
// NHWC (is_channels_last_strides_2d).
func poolChannelsLast(t *tensor.Tensor) bool { return stridesOrdered(t, 1, 3, 2, 0) }

// poolChannelsLast3d reports whether suggest_memory_format() is
// channels_last_3d: 5-d, non-empty, strides ordered like NDHWC.
func poolChannelsLast3d(t *tensor.Tensor) bool { return stridesOrdered(t, 1, 4, 3, 2, 0) }

// stridesOrdered reports whether t has len(order) dims, none empty, and
// strides that grow along order (innermost first) as PyTorch's
// is_channels_last_strides_2d/3d test them.
func stridesOrdered(t *tensor.Tensor, order ...int) bool {
	if t.Dim() != len(order) {
		return false
	}
	sizes, strides := t.Sizes(), t.Strides()
	if strides[1] == 0 {
		return false
	}
	lo := 0
	for _, d := range order {
		if sizes[d] == 0 || strides[d] < lo {
			return false
		}
		if d == 0 && lo == strides[1] {
			return false
		}
		lo = strides[d]
		if sizes[d] > 1 {
			lo *= sizes[d]
		}
	}
	return true
}

// poolKernelName is a 2-d pooling kernel's dispatch name: PyTorch dispatches
// channels-last tensors to a kernel named with a "_channels_last" suffix.
func poolKernelName(name string, t *tensor.Tensor) string {
	if poolChannelsLast(t) {
		return name + "_channels_last"
	}
	return name
}

func avgPool2dBackwardGeom(p args.AvgPool2dBackward) PoolWindow {
	g, x := p.GradOutput, p.Self
	w := avgPool2dArgs(p.KernelSize, p.Stride, p.Padding)
	ceil, cip := p.CeilMode, p.CountIncludePad
	div := p.DivisorOverride.Or(0)
	tensor.Check(!p.DivisorOverride.Ok || div != 0, "divisor must be not zero")
	planes, inH, inW := x.Size(-3), x.Size(-2), x.Size(-1)
	outW := poolOutputSize(inW, w.kW, w.pW, w.dW, 1, ceil)
	outH := poolOutputSize(inH, w.kH, w.pH, w.dH, 1, ceil)
	pool2dShapeCheck(x, w, planes, inH, inW, outH, outW)
	n := x.Dim()
	poolCheckDimSize(g, n, n-3, planes)
	poolCheckDimSize(g, n, n-2, outH)
	poolCheckDimSize(g, n, n-1, outW)
	if x.DType() != g.DType() {
		tensor.Panicf("expected dtype %s for `gradOutput` but got dtype %s", TypeMetaName(x.DType()), TypeMetaName(g.DType()))
	}
	geo := poolGeom2d(x, w, outH, outW)
	geo.Planes = poolPlanes(g, 2) // PyTorch counts planes on grad_output
	geo.CountIncludePad, geo.Divisor = cip, div
	return geo
}

// poolPlanes is the product of t's sizes but the last k.
func poolPlanes(t *tensor.Tensor, k int) int {
	p := 1
	for _, s := range t.Sizes()[:t.Dim()-k] {
		p *= s
	}
	return p
}

// poolCheckGradPlanes refuses a grad_output with more planes than self, which
// PyTorch's backward kernels would write past the end of grad_input for.
func poolCheckGradPlanes(fn string, g, x *tensor.Tensor) {
	if poolPlanes(g, 2) > poolPlanes(x, 2) {
		tensor.Panicf("%s(): grad_output with sizes %s has more planes than self with sizes %s",
			fn, tensor.ShapeString(g.Sizes()), tensor.ShapeString(x.Sizes()))
	}
}

// maxPool2dGeom checks max_pool2d_with_indices' arguments; g is the
// backward's grad_output, nil for the forward.
func maxPool2dGeom(p args.MaxPool2dWithIndices, g *tensor.Tensor) PoolWindow {
	x := p.Self
	w := maxPool2dArgs(p.KernelSize, p.Stride, p.Padding, p.Dilation)
	ceil := p.CeilMode
	if g != nil {
		if x.DType() != g.DType() {
			tensor.Panicf("expected dtype %s for `gradOutput` but got dtype %s", TypeMetaName(x.DType()), TypeMetaName(g.DType()))
		}
	}
	tensor.Check(!poolChannelsLast3d(x), "Unsupport memory format. Supports only ChannelsLast, Contiguous")
	tensor.Check(x.Dim() == 3 || x.Dim() == 4, "non-empty 3D or 4D (batch mode) tensor expected for input")
	planes, inH, inW := x.Size(-3), x.Size(-2), x.Size(-1)
	outH := poolOutputSize(inH, w.kH, w.pH, w.dH, w.dilH, ceil)
	outW := poolOutputSize(inW, w.kW, w.pW, w.dW, w.dilW, ceil)
	pool2dShapeCheck(x, w, planes, inH, inW, outH, outW)
	return poolGeom2d(x, w, outH, outW)
}

func maxPool2dBackwardGeom(p args.MaxPool2dWithIndicesBackward) PoolWindow {
	g, x, idx := p.GradOutput, p.Self, p.Indices
	geo := maxPool2dGeom(args.MaxPool2dWithIndices{Self: x, KernelSize: p.KernelSize, Stride: p.Stride, Padding: p.Padding,
		Dilation: p.Dilation, CeilMode: p.CeilMode}, g)
	n := x.Dim()
	planes, outH, outW := x.Size(-3), geo.Out[1], geo.Out[2]
	for _, t := range []*tensor.Tensor{g, idx} {
		poolCheckDimSize(t, n, n-3, planes)
		poolCheckDimSize(t, n, n-2, outH)
		poolCheckDimSize(t, n, n-1, outW)
	}
	geo.Planes = poolPlanes(g, 2) // PyTorch counts planes on grad_output
	return geo
}

// poolWin3d holds the parsed kernel arguments of a 3-d pooling op (T, H, W).
type poolWin3d struct {
	k, d, p, dil [3]int
}

func poolTo3(v []int) [3]int {
	v = poolExpand(v, 3)
	return [3]int{poolDowncast(v[0]), poolDowncast(v[1]), poolDowncast(v[2])}
}

// pool3dShapeCheck is pool3d_shape_check.
func pool3dShapeCheck(x *tensor.Tensor, w poolWin3d, planes int, in, out [3]int, fn string, checkInputSize bool) {
	k, d, dil := w.k, w.d, w.dil
	if k[0] <= 0 || k[2] <= 0 || k[1] <= 0 {
		tensor.Panicf("kernel size should be greater than zero, but got kT: %d kH: %d kW: %d", k[0], k[1], k[2])
	}
	if d[0] <= 0 || d[2] <= 0 || d[1] <= 0 {
		tensor.Panicf("stride should be greater than zero, but got dT: %d dH: %d dW: %d", d[0], d[1], d[2])
	}
	if dil[0] <= 0 || dil[2] <= 0 || dil[1] <= 0 {
		tensor.Panicf("dilation should be greater than zero, but got dilationT: %d dilationH: %d dilationW: %d", dil[0], dil[1], dil[2])
	}
	n := x.Dim()
	if n != 4 && n != 5 {
		tensor.Panicf("%s: Expected 4D or 5D tensor for input, but got: %s", fn, tensor.ShapeString(x.Sizes()))
	}
	for i := 0; i < n; i++ {
		if n == 5 && i == 0 {
			continue
		}
		if x.Size(i) <= 0 {
			tensor.Panicf("%s: Expected input's non-batch dimensions to have positive length, but input has a shape of %s and non-batch dimension %d has length zero!",
				fn, tensor.ShapeString(x.Sizes()), x.Size(i))
		}
	}
	if checkInputSize {
		if in[0] < k[0] || in[1] < k[1] || in[2] < k[2] {
			tensor.Panicf("input image (T: %d H: %d W: %d) smaller than kernel size (kT: %d kH: %d kW: %d)", in[0], in[1], in[2], k[0], k[1], k[2])
		}
	}
	if out[0] < 1 || out[2] < 1 || out[1] < 1 {
		tensor.Panicf("Given input size: (%dx%dx%dx%d). Calculated output size: (%dx%dx%dx%d). Output size is too small",
			planes, in[0], in[1], in[2], planes, out[0], out[1], out[2])
	}
}

// poolGeom3d fills a PoolWindow for a 3-d op over x.
func poolGeom3d(x *tensor.Tensor, w poolWin3d, out [3]int) PoolWindow {
	n := x.Dim()
	planes := 1
	for _, s := range x.Sizes()[:n-3] {
		planes *= s
	}
	return PoolWindow{
		Planes:   planes,
		In:       [3]int{x.Size(-3), x.Size(-2), x.Size(-1)},
		Out:      out,
		Kernel:   w.k,
		Stride:   w.d,
		Pad:      w.p,
		Dilation: w.dil,
	}
}

func avgPool3dGeom(p args.AvgPool3d) PoolWindow {
	x := p.Self
	kernel, stride, padding := p.KernelSize, p.Stride, p.Padding
	ceil, cip := p.CeilMode, p.CountIncludePad
	tensor.Check(len(kernel) == 1 || len(kernel) == 3, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints")
	var w poolWin3d
	w.k = poolTo3(kernel)
	tensor.Check(len(stride) == 0 || len(stride) == 1 || len(stride) == 3, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints")
	w.d = w.k
	if len(stride) > 0 {
		w.d = poolTo3(stride)
	}
	tensor.Check(len(padding) == 1 || len(padding) == 3, "avg_pool3d: padding must be a single int, or a tuple of three ints")
	w.p = poolTo3(padding)
	w.dil = [3]int{1, 1, 1}
	tensor.Check(x.Dim() == 4 || x.Dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input")
	div := p.DivisorOverride.Or(0)
	tensor.Check(!p.DivisorOverride.Ok || div != 0, "divisor must be not zero")
	planes := x.Size(-4)
	in := [3]int{x.Size(-3), x.Size(-2), x.Size(-1)}
	var out [3]int
	for i := range out {
		out[i] = poolOutputSize(in[i], w.k[i], w.p[i], w.d[i], 1, ceil)
	}
	pool3dShapeCheck(x, w, planes, in, out, "avg_pool3d()", true)
	g := poolGeom3d(x, w, out)
	g.CountIncludePad, g.Divisor = cip, div
	return g
}

func maxPool3dGeom(p args.MaxPool3dWithIndices) PoolWindow {
	x := p.Self
	kernel, stride, padding, dilation := p.KernelSize, p.Stride, p.Padding, p.Dilation
	ceil := p.CeilMode
	var w poolWin3d
	tensor.Check(len(kernel) == 1 || len(kernel) == 3, "max_pool3d: kernel_size must either be a single int, or a tuple of three ints")
	w.k = poolTo3(kernel)
	tensor.Check(len(stride) == 0 || len(stride) == 1 || len(stride) == 3, "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints")
	w.d = w.k
	if len(stride) > 0 {
		w.d = poolTo3(stride)
	}
	tensor.Check(len(padding) == 1 || len(padding) == 3, "max_pool3d: padding must be either be a single int, or a tuple of three ints")
	w.p = poolTo3(padding)
	tensor.Check(len(dilation) == 1 || len(dilation) == 3, "max_pool3d: dilation must be either a single int, or a tuple of three ints")
	w.dil = poolTo3(dilation)
	tensor.Check(x.Dim() == 4 || x.Dim() == 5, "non-empty 4D or 5D (batch mode) tensor expected for input")
	planes := x.Size(-4)
	in := [3]int{x.Size(-3), x.Size(-2), x.Size(-1)}
	var out [3]int
	for i := range out {
		out[i] = poolOutputSize(in[i], w.k[i], w.p[i], w.d[i], w.dil[i], ceil)
	}
	pool3dShapeCheck(x, w, planes, in, out, "max_pool3d_with_indices_out_cpu_template()", false)
	return poolGeom3d(x, w, out)
}

// poolCheckOutputSizes mimics resize_ of a negative output size, whose
// unsigned numel overflows before any other check.
func poolCheckOutputSizes(sizes []int) {
	for _, s := range sizes {
		tensor.Check(s >= 0, "numel: integer multiplication overflow")
	}
}

// adaptivePool2dGeom checks _adaptive_avg_pool2d's arguments.
func adaptivePool2dGeom(x *tensor.Tensor, osize []int) PoolWindow {
	tensor.Check(len(osize) == 2, "adaptive_avg_pool2d: output_size must be 2")
	n := x.Dim()
	if n != 3 && n != 4 {
		tensor.Panicf("adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", tensor.ShapeString(x.Sizes()))
	}
	for _, i := range []int{-2, -1} {
		if x.Size(i) <= 0 {
			tensor.Panicf("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with dimension %d being empty",
				tensor.ShapeString(x.Sizes()), i+n)
		}
	}
	poolCheckOutputSizes(osize)
	planes := 1
	for _, s := range x.Sizes()[:n-2] {
		planes *= s
	}
	return PoolWindow{Planes: planes, In: [3]int{1, x.Size(-2), x.Size(-1)}, Out: [3]int{1, osize[0], osize[1]}}
}

func adaptivePool1dGeom(p args.AdaptiveAvgPool1d) PoolWindow {
	x, osize := p.Self, p.OutputSize
	if x.Dim() < 2 || x.Dim() >= 4 {
		tensor.Panicf("Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)", x.Dim())
	}
	poolCheck1d("adaptive_avg_pool1d", "output_size", osize)
	if osize[0] < 0 {
		tensor.Panicf("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {1, %d}", osize[0])
	}
	if osize[0] == 1 {
		// adaptive_avg_pool2d turns a 1x1 output into a mean over the spatial dims.
		planes := 1
		for _, s := range x.Sizes()[:x.Dim()-1] {
			planes *= s
		}
		return PoolWindow{Planes: planes, In: [3]int{1, 1, x.Size(-1)}, Out: [3]int{1, 1, 1}}
	}
	return adaptivePool2dGeom(poolUnsqueeze(x, x.Dim()-1), []int{1, osize[0]})
}

func adaptivePool2dBackwardGeom(p args.InternalAdaptiveAvgPool2dBackward) PoolWindow {
	g, x := p.GradOutput, p.Self
	n := g.Dim()
	for i := 1; i < n; i++ {
		if g.Size(i) <= 0 {
			tensor.Panicf("adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output has sizes %s with dimension %d being empty",
				tensor.ShapeString(g.Sizes()), i)
		}
	}
	if n != 3 && n != 4 {
		tensor.Panicf("adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got %s", tensor.ShapeString(x.Sizes()))
	}
	if x.DType() != g.DType() {
		tensor.Panicf("expected dtype %s for `grad_output` but got dtype %s", TypeMetaName(x.DType()), TypeMetaName(g.DType()))
	}
	inH, inW := x.Size(-2), x.Size(-1)
	gPlanes := poolPlanes(g, 2)
	return PoolWindow{Planes: gPlanes, In: [3]int{1, inH, inW}, Out: [3]int{1, g.Size(-2), g.Size(-1)}}
}

func adaptivePool3dGeom(p args.InternalAdaptiveAvgPool3d) PoolWindow {
	x, osize := p.Self, p.OutputSize
	tensor.Check(len(osize) == 3, "adaptive_avg_pool3d: output_size must be 3")
	n := x.Dim()
	for i := 1; i < n; i++ {
		if x.Size(i) <= 0 {
			tensor.Panicf("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes %s with dimension %d being empty",
				tensor.ShapeString(x.Sizes()), i)
		}
	}
	if n != 4 && n != 5 {
		tensor.Panicf("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got %s", tensor.ShapeString(x.Sizes()))
	}
	poolCheckOutputSizes(osize)
	planes := 1
	for _, s := range x.Sizes()[:n-3] {
		planes *= s
	}
	return PoolWindow{Planes: planes, In: [3]int{x.Size(-3), x.Size(-2), x.Size(-1)}, Out: [3]int{osize[0], osize[1], osize[2]}}
}

// pooledShape replaces the last k dims of sizes with out's last k entries.
func pooledShape(sizes []int, out [3]int, k int) []int {
	s := append([]int(nil), sizes[:len(sizes)-k]...)
	return append(s, out[3-k:]...)
}

func avgPool1dMeta(op *tensor.Op, a []any) any {
	p := args.AvgPool1dOf(a)
	x := p.Self
	g := avgPool1dGeom(p)
	poolCheckDType(poolKernelName("avg_pool2d", poolUnsqueeze(x, x.Dim()-1)), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16, tensor.Int64)
	return Contig(op, a, x.DType(), pooledShape(x.Sizes(), g.Out, 1)...)
}

func avgPool2dMeta(op *tensor.Op, a []any) any {
	p := args.AvgPool2dOf(a)
	x := p.Self
	g := avgPool2dGeom(p)
	poolCheckDType(poolKernelName("avg_pool2d", x), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16, tensor.Int64)
	return Contig(op, a, x.DType(), pooledShape(x.Sizes(), g.Out, 2)...)
}

func avgPool2dBackwardMeta(op *tensor.Op, a []any) any {
	p := args.AvgPool2dBackwardOf(a)
	x := p.Self
	avgPool2dBackwardGeom(p)
	poolCheckDType(poolKernelName("avg_pool2d_backward", p.GradOutput), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16, tensor.Int64)
	poolCheckGradPlanes("avg_pool2d_backward", p.GradOutput, x)
	return Like(op, a, x, tensor.Invalid)
}

func avgPool3dMeta(op *tensor.Op, a []any) any {
	p := args.AvgPool3dOf(a)
	x := p.Self
	g := avgPool3dGeom(p)
	poolCheckDType("avg_pool3d_out_frame", x.DType(), tensor.Float32, tensor.Float64, tensor.Int64)
	return Contig(op, a, x.DType(), pooledShape(x.Sizes(), g.Out, 3)...)
}

func maxPool2dMeta(op *tensor.Op, a []any) any {
	p := args.MaxPool2dWithIndicesOf(a)
	x := p.Self
	g := maxPool2dGeom(p, nil)
	poolCheckDType(poolKernelName("max_pool2d", x), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	shape := pooledShape(x.Sizes(), g.Out, 2)
	return []*tensor.Tensor{Contig(op, a, x.DType(), shape...), Contig(op, a, tensor.Int64, shape...)}
}

func maxPool2dBackwardMeta(op *tensor.Op, a []any) any {
	p := args.MaxPool2dWithIndicesBackwardOf(a)
	x, g, idx := p.Self, p.GradOutput, p.Indices
	maxPool2dBackwardGeom(p)
	poolCheckDType(poolKernelName("max_pool2d_backward", g), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	poolCheckScalarType(idx, tensor.Int64)
	poolCheckGradPlanes("max_pool2d_with_indices_backward", g, x)
	if poolPlanes(idx, 2) < poolPlanes(g, 2) {
		tensor.Panicf("max_pool2d_with_indices_backward(): indices with sizes %s do not match grad_output with sizes %s",
			tensor.ShapeString(idx.Sizes()), tensor.ShapeString(g.Sizes()))
	}
	return Like(op, a, x, tensor.Invalid)
}

func maxPool3dMeta(op *tensor.Op, a []any) any {
	p := args.MaxPool3dWithIndicesOf(a)
	x := p.Self
	g := maxPool3dGeom(p)
	poolCheckDType("max_pool3d_with_indices_cpu", x.DType(), tensor.Float32, tensor.Float64)
	shape := pooledShape(x.Sizes(), g.Out, 3)
	return []*tensor.Tensor{Contig(op, a, x.DType(), shape...), Contig(op, a, tensor.Int64, shape...)}
}

func adaptivePool1dMeta(op *tensor.Op, a []any) any {
	p := args.AdaptiveAvgPool1dOf(a)
	x := p.Self
	g := adaptivePool1dGeom(p)
	shape := pooledShape(x.Sizes(), g.Out, 1)
	if g.Out[2] == 1 {
		if !x.DType().IsFloat() {
			tensor.Panicf("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", CTypeName(x.DType()))
		}
	} else if tensor.Numel(shape) > 0 {
		poolCheckDType(poolKernelName("adaptive_avg_pool2d", poolUnsqueeze(x, x.Dim()-1)), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	}
	return Contig(op, a, x.DType(), shape...)
}

func adaptivePool2dMeta(op *tensor.Op, a []any) any {
	p := args.InternalAdaptiveAvgPool2dOf(a)
	x := p.Self
	g := adaptivePool2dGeom(x, p.OutputSize)
	shape := pooledShape(x.Sizes(), g.Out, 2)
	if tensor.Numel(shape) > 0 {
		poolCheckDType(poolKernelName("adaptive_avg_pool2d", x), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	}
	return Contig(op, a, x.DType(), shape...)
}

func adaptivePool2dBackwardMeta(op *tensor.Op, a []any) any {
	p := args.InternalAdaptiveAvgPool2dBackwardOf(a)
	x := p.Self
	adaptivePool2dBackwardGeom(p)
	poolCheckDType(poolKernelName("adaptive_avg_pool2d_backward", p.GradOutput), x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	poolCheckGradPlanes("adaptive_avg_pool2d_backward", p.GradOutput, x)
	return Like(op, a, x, tensor.Invalid)
}

func adaptivePool3dMeta(op *tensor.Op, a []any) any {
	p := args.InternalAdaptiveAvgPool3dOf(a)
	x := p.Self
	g := adaptivePool3dGeom(p)
	poolCheckDType("adaptive_avg_pool3d_cpu", x.DType(), tensor.Float32, tensor.Float64, tensor.Float16)
	return Contig(op, a, x.DType(), pooledShape(x.Sizes(), g.Out, 3)...)
}

func init() {
	def("aten::avg_pool1d.default", avgPool1dMeta)
	def("aten::avg_pool2d.default", avgPool2dMeta)
	def("aten::avg_pool2d_backward.default", avgPool2dBackwardMeta)
	def("aten::avg_pool3d.default", avgPool3dMeta)
	def("aten::max_pool2d_with_indices.default", maxPool2dMeta)
	def("aten::max_pool2d_with_indices_backward.default", maxPool2dBackwardMeta)
	def("aten::max_pool3d_with_indices.default", maxPool3dMeta)
	def("aten::adaptive_avg_pool1d.default", adaptivePool1dMeta)
	def("aten::_adaptive_avg_pool2d.default", adaptivePool2dMeta)
	def("aten::_adaptive_avg_pool2d_backward.default", adaptivePool2dBackwardMeta)
	def("aten::_adaptive_avg_pool3d.default", adaptivePool3dMeta)
}
