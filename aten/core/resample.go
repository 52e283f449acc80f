package core

import (
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Resampling ops: upsample_nearest2d, upsample_bilinear2d and grid_sampler_2d,
// checked as PyTorch 1.13 does (UpSample.cpp/.h, GridSamplerUtils.h).

// Resample2d is the geometry of a 2-d upsampling call.
type Resample2d struct {
	N, C, InH, InW, OutH, OutW int
	// ScaleH and ScaleW are the scale factors passed by the caller, 0 when
	// output_size was given instead.
	ScaleH, ScaleW float64
	// ChannelsLast reports whether the input is channels-last contiguous,
	// which selects PyTorch's channels-last kernel (with its own rounding).
	ChannelsLast bool
}

// resampleChannelsLast reports whether a 4-d tensor's strides are
// row-major in (N, H, W, C) order, ignoring size-1 dims
// (is_contiguous(memory_format=torch.channels_last)).
func resampleChannelsLast(sizes, strides []int) bool {
	if len(sizes) != 4 {
		return false
	}
	expected := 1
	for _, d := range [4]int{1, 3, 2, 0} {
		if sizes[d] != 1 {
			if strides[d] != expected {
				return false
			}
			expected *= sizes[d]
		}
	}
	return true
}

// upsampleOutputSize is upsample's compute_output_size: the spatial output
// sizes from exactly one of output_size and scale_factors.
func upsampleOutputSize(in []int, osize []int, scales []float64, haveOsize, haveScales bool) []int {
	spatial := len(in) - 2
	switch {
	case haveOsize:
		tensor.Check(!haveScales, "Must specify exactly one of output_size and scale_factors")
		tensor.Check(len(osize) == spatial,
			"Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)")
		return osize
	case haveScales:
		tensor.Check(len(scales) == spatial,
			"Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)")
		out := make([]int, spatial)
		for i := range out {
			out[i] = int(float64(in[i+2]) * scales[i])
		}
		return out
	}
	tensor.Panicf("Must specify exactly one of output_size and scale_factors")
	return nil
}

// UpsampleGeometry validates an upsample_*2d.vec call and returns its geometry.
func UpsampleGeometry(op *tensor.Op, a []any) Resample2d {
	var x *tensor.Tensor
	var osize []int
	var scales []float64 // nil for None, as osize
	if op.Schema.Name == "upsample_bilinear2d" {
		p := args.UpsampleBilinear2dOf(a)
		x, osize, scales = p.Input, p.OutputSize, p.ScaleFactors
	} else {
		p := args.UpsampleNearest2dOf(a)
		x, osize, scales = p.Input, p.OutputSize, p.ScaleFactors
	}
	out := upsampleOutputSize(x.Sizes(), osize, scales, osize != nil, scales != nil)
	if scales != nil && len(scales) < 2 {
		// get_scale_value reads scale_factors[0] and [1] unchecked.
		tensor.Panicf("ArrayRef: invalid index Index = %d; Length = %d", len(scales), len(scales))
	}
	if len(out) != 2 {
		tensor.Panicf("It is expected output_size equals to 2, but got size %d", len(out))
	}
	if x.Dim() != 4 {
		tensor.Panicf("It is expected input_size equals to 4, but got size %d", x.Dim())
	}
	s := x.Sizes()
	r := Resample2d{N: s[0], C: s[1], InH: s[2], InW: s[3], OutH: out[0], OutW: out[1]}
	if r.InH <= 0 || r.InW <= 0 || r.OutH <= 0 || r.OutW <= 0 {
		tensor.Panicf("Input and output sizes should be greater than 0, but got input (H: %d, W: %d) output (H: %d, W: %d)",
			r.InH, r.InW, r.OutH, r.OutW)
	}
	if x.Numel() == 0 && tensor.Numel(s[1:]) == 0 {
		tensor.Panicf("Non-empty 4D data tensor expected but got a tensor with sizes %s", tensor.ShapeString(s))
	}
	if scales != nil {
		r.ScaleH, r.ScaleW = scales[0], scales[1]
	}
	r.ChannelsLast = resampleChannelsLast(s, x.Strides())
	return r
}

func upsampleNearest2dMeta(op *tensor.Op, a []any) any {
	x := args.UpsampleNearest2dOf(a).Input
	r := UpsampleGeometry(op, a)
	name := "compute_indices_weights_nearest"
	if r.ChannelsLast {
		name = "upsample_nearest2d_channels_last"
	}
	poolCheckDType(name, x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16, tensor.Uint8)
	return Contig(op, a, x.DType(), r.N, r.C, r.OutH, r.OutW)
}

func upsampleBilinear2dMeta(op *tensor.Op, a []any) any {
	x := args.UpsampleBilinear2dOf(a).Input
	r := UpsampleGeometry(op, a)
	name := "compute_indices_weights_linear"
	if r.ChannelsLast {
		name = "upsample_bilinear2d_channels_last"
	}
	poolCheckDType(name, x.DType(), tensor.Float32, tensor.Float64, tensor.BFloat16)
	return Contig(op, a, x.DType(), r.N, r.C, r.OutH, r.OutW)
}

// Grid sampler modes (GridSamplerInterpolation, GridSamplerPadding).
const (
	GridBilinear = 0
	GridNearest  = 1
	GridBicubic  = 2

	GridPadZeros      = 0
	GridPadBorder     = 1
	GridPadReflection = 2
)

func gridSampler2dMeta(op *tensor.Op, a []any) any {
	p := args.GridSampler2dOf(a)
	x, grid := p.Input, p.Grid
	mode, pad := p.InterpolationMode, p.PaddingMode
	if x.Dim() == 0 || grid.Dim() == 0 {
		tensor.IndexPanicf("Dimension specified as 0 but tensor has no dimensions")
	}
	if x.Size(0) != grid.Size(0) {
		tensor.Panicf("grid_sampler(): expected grid and input to have same batch size, but got input with sizes %s and grid with sizes %s",
			tensor.ShapeString(x.Sizes()), tensor.ShapeString(grid.Sizes()))
	}
	if grid.Size(-1) != x.Dim()-2 {
		tensor.Panicf("grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s",
			x.Dim()-2, tensor.ShapeString(grid.Sizes()))
	}
	for i := 2; i < x.Dim(); i++ {
		if x.Size(i) <= 0 {
			tensor.Panicf("grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %s with dimension %d being empty",
				tensor.ShapeString(x.Sizes()), i)
		}
	}
	if x.Dim() != 4 || x.Dim() != grid.Dim() {
		tensor.Panicf("grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes %s and grid with sizes %s",
			tensor.ShapeString(x.Sizes()), tensor.ShapeString(grid.Sizes()))
	}
	d := x.DType()
	if d != tensor.Float32 && d != tensor.Float64 {
		tensor.Panicf("grid_sampler_2d_cpu not implemented for %s", CTypeName(d))
	}
	poolCheckScalarType(grid, d)
	// PyTorch leaves the output uninitialised for an unknown mode; refuse instead.
	if mode < GridBilinear || mode > GridBicubic {
		tensor.Panicf("grid_sampler(): unknown interpolation mode %d (expected 0, 1 or 2)", mode)
	}
	if pad < GridPadZeros || pad > GridPadReflection {
		tensor.Panicf("grid_sampler(): unknown padding mode %d (expected 0, 1 or 2)", pad)
	}
	return Contig(op, a, d, x.Size(0), x.Size(1), grid.Size(1), grid.Size(2))
}

func init() {
	def("aten::upsample_nearest2d.vec", upsampleNearest2dMeta)
	def("aten::upsample_bilinear2d.vec", upsampleBilinear2dMeta)
	def("aten::grid_sampler_2d.default", gridSampler2dMeta)
}

// NearestIndices gives, for each of out output positions, the input index
// upsample_nearest reads along a dim of size in. scale is the caller's scale
// factor (0 if none); cl selects PyTorch's channels-last kernel, which
// copies for equal sizes and halves indices for a factor of 2.
func NearestIndices(in, out int, scale float64, cl bool, d tensor.DType) []int {
	idx := make([]int, out)
	if cl {
		switch {
		case out == in:
			for i := range idx {
				idx[i] = i
			}
			return idx
		case out == 2*in:
			for i := range idx {
				idx[i] = i >> 1
			}
			return idx
		}
		d = tensor.Float32
	}
	switch d {
	case tensor.Float64:
		s := float64(in) / float64(out)
		if scale > 0 {
			s = 1 / scale
		}
		for i := range idx {
			idx[i] = min(int(math.Floor(float64(float32(float64(i)*s)))), in-1)
		}
	case tensor.BFloat16:
		s := bf16Round(bf16Round(float32(in)) / bf16Round(float32(out)))
		if scale > 0 {
			s = bf16Round(float32(1 / scale))
		}
		for i := range idx {
			idx[i] = min(int(math.Floor(float64(float32(i)*s))), in-1)
		}
	default: // float32, and uint8, whose indices PyTorch computes in float32
		s := float32(in) / float32(out)
		if scale > 0 {
			s = float32(1 / scale)
		}
		for i := range idx {
			idx[i] = min(int(math.Floor(float64(float32(i)*s))), in-1)
		}
	}
	return idx
}

// bf16Round rounds a float32 to bfloat16 precision.
func bf16Round(v float32) float32 { return tensor.BF16ToFloat32(tensor.Float32ToBF16(v)) }
