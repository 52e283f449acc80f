package decomp

import (
	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Normalization layers over the core native_layer_norm, native_group_norm
// and _native_batch_norm_legit* ops.

func init() {
	def("aten::layer_norm", layerNorm)
	def("aten::group_norm", groupNorm)
	def("aten::batch_norm", batchNorm)
	def("aten::instance_norm", instanceNorm)
	def("aten::native_batch_norm", nativeBatchNorm)
}

func layerNorm(op *tensor.Op, a []any) any {
	p := args.LayerNormOf(a)
	out, _, _ := tensor.NativeLayerNorm(p.Input, p.NormalizedShape, p.Weight, p.Bias, p.Eps)
	return out
}

func groupNorm(op *tensor.Op, a []any) any {
	p := args.GroupNormOf(a)
	x, g, w, b, eps := p.Input, p.NumGroups, p.Weight, p.Bias, p.Eps
	if x.Dim() < 2 {
		tensor.Panicf("Expected at least 2 dimensions for input tensor but received %d", x.Dim())
	}
	n, c := x.Size(0), x.Size(1)
	if g <= 0 || c%g != 0 {
		tensor.Panicf("Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%d", tensor.ShapeString(x.Sizes()), g)
	}
	if !(w == nil || (w.Dim() == 1 && w.Numel() == c)) {
		tensor.Panicf("Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape %s and input of shape %s", shapeOf(w), tensor.ShapeString(x.Sizes()))
	}
	if !(b == nil || (b.Dim() == 1 && b.Numel() == c)) {
		tensor.Panicf("Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape %s and input of shape %s", shapeOf(b), tensor.ShapeString(x.Sizes()))
	}
	out, _, _ := tensor.NativeGroupNorm(x, w, b, n, c, prod(x.Sizes()[2:]), g, eps)
	return out
}

func shapeOf(t *T) string {
	if t == nil {
		return "[]"
	}
	return tensor.ShapeString(t.Sizes())
}

// checkFeatures is check_dims_match_num_input_features.
func checkFeatures(name string, want int, t *T) {
	if t.Numel() != want {
		tensor.Panicf("%s should contain %d elements not %d", name, want, t.Numel())
	}
}

// nativeBatchNorm picks the functional core variant: with running stats in
// training (which it updates in place), without them, or in evaluation.
func nativeBatchNorm(op *tensor.Op, a []any) any {
	p := args.NativeBatchNormOf(a)
	x, w, b, rm, rv := p.Input, p.Weight, p.Bias, p.RunningMean, p.RunningVar
	training, momentum, eps := p.Training, p.Momentum, p.Eps
	var r []*T
	switch {
	case training && rm != nil && rv != nil:
		r = tensor.Call("aten::_native_batch_norm_legit", x, w, b, rm, rv, true, momentum, eps).([]*T)
	case training:
		r = tensor.Call("aten::_native_batch_norm_legit.no_stats", x, w, b, true, momentum, eps).([]*T)
	default:
		tensor.Check(rm != nil, "running_mean must be defined in evaluation mode")
		tensor.Check(rv != nil, "running_var must be defined in evaluation mode")
		r = tensor.Call("aten::_native_batch_norm_legit_no_training", x, w, b, rm, rv, momentum, eps).([]*T)
	}
	return r
}

func batchNorm(op *tensor.Op, a []any) any {
	p := args.BatchNormOf(a)
	x, w, b, rm, rv := p.Input, p.Weight, p.Bias, p.RunningMean, p.RunningVar
	training := p.Training
	if x.Dim() < 2 {
		tensor.Panicf("batch_norm: expected an input with at least 2 dimensions, got %d", x.Dim())
	}
	c := x.Size(1)
	if x.Numel() == 0 {
		out := x.Clone()
		if w != nil {
			out = out.Mul(w.Select(0, 0))
		}
		if b != nil {
			out = out.Add(b.Select(0, 0))
		}
		return out
	}
	if rm != nil {
		checkFeatures("running_mean", c, rm)
	} else {
		tensor.Check(training, "running_mean must be defined in evaluation mode")
	}
	if rv != nil {
		checkFeatures("running_var", c, rv)
	} else {
		tensor.Check(training, "running_var must be defined in evaluation mode")
	}
	if w != nil {
		checkFeatures("weight", c, w)
	}
	if b != nil {
		checkFeatures("bias", c, b)
	}
	return tensor.Call("aten::native_batch_norm", x, w, b, rm, rv, training, p.Momentum, p.Eps).([]*T)[0]
}

// instanceNorm is batch norm over a (1, N*C, ...) view, with the per-channel
// parameters repeated per sample and running stats averaged back.
func instanceNorm(op *tensor.Op, a []any) any {
	p := args.InstanceNormOf(a)
	x, w, b, rm, rv := p.Input, p.Weight, p.Bias, p.RunningMean, p.RunningVar
	useStats := p.UseInputStats
	tensor.Check(useStats || (rm != nil && rv != nil), "Expected running_mean and running_var to be defined when use_input_stats is false")
	if x.Dim() < 2 {
		tensor.Panicf("instance_norm: expected an input with at least 2 dimensions, got %d", x.Dim())
	}
	n, c := x.Size(0), x.Size(1)
	shape := x.Shape()
	shape[0], shape[1] = 1, n*c
	rep := func(t *T) *T {
		if t == nil {
			return nil
		}
		return t.Repeat([]int{n})
	}
	rm2, rv2 := rep(rm), rep(rv)
	out := call("aten::batch_norm", reshape(x, shape), rep(w), rep(b), rm2, rv2, useStats, p.Momentum, p.Eps, p.CudnnEnabled)
	if rm != nil {
		rm.Copy_(rm2.View([]int{n, c}).MeanDim([]int{0}))
	}
	if rv != nil {
		rv.Copy_(rv2.View([]int{n, c}).MeanDim([]int{0}))
	}
	return out.View(x.Shape())
}
