package core

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Meta functions of the normalization family: layer norm, group norm, batch
// norm (the three _native_batch_norm_legit overloads) and dropout, with the
// argument checks PyTorch 1.13's CPU kernels make, in their words.

// normFloat formats a double as a C++ ostream does by default (%g, 6 digits).
func normFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// normCheckKernelDType rejects dtypes a float-only CPU kernel (float, double,
// bfloat16) has no instance for, as AT_DISPATCH_FLOATING_TYPES_AND does.
func normCheckKernelDType(kernel string, d tensor.DType) {
	if d != tensor.Float32 && d != tensor.Float64 && d != tensor.BFloat16 {
		tensor.Panicf("%q not implemented for '%s'", kernel, CTypeName(d))
	}
}

// normCheckSameDType is the check data_ptr<scalar_t>() makes on the other
// tensors a kernel reads: they must have the dispatch dtype.
func normCheckSameDType(want tensor.DType, ts ...*tensor.Tensor) {
	for _, t := range ts {
		if t != nil && t.DType() != want {
			tensor.Panicf("expected scalar type %s but found %s", CTypeName(want), CTypeName(t.DType()))
		}
	}
}

// normNegative rejects a negative size with at::empty's message.
func normNegative(sizes []int) {
	for _, s := range sizes {
		if s < 0 {
			tensor.Panicf("Trying to create tensor with negative dimension %d: %s", s, tensor.ShapeString(sizes))
		}
	}
}

// LayerNormDims checks native_layer_norm's inputs (_check_layer_norm_inputs)
// and returns M (rows) and N (elements per row).
func LayerNormDims(input *tensor.Tensor, normalized []int, weight, bias *tensor.Tensor) (m, n int) {
	if len(normalized) < 1 {
		tensor.Panicf("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = %s",
			tensor.ShapeString(normalized))
	}
	if weight != nil && !slices.Equal(weight.Sizes(), normalized) {
		tensor.Panicf("Expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s",
			normShapeOf(weight), tensor.ShapeString(normalized))
	}
	if bias != nil && !slices.Equal(bias.Sizes(), normalized) {
		tensor.Panicf("Expected bias to be of same shape as normalized_shape, but got bias of shape %s and normalized_shape = %s",
			normShapeOf(bias), tensor.ShapeString(normalized))
	}
	sizes := input.Sizes()
	axis := len(sizes) - len(normalized)
	if axis < 0 || !slices.Equal(sizes[axis:], normalized) {
		var b strings.Builder
		b.WriteString("Given normalized_shape=")
		b.WriteString(tensor.ShapeString(normalized))
		b.WriteString(", expected input with shape [*")
		for _, s := range normalized {
			b.WriteString(", ")
			b.WriteString(strconv.Itoa(s))
		}
		b.WriteString("], but got input of size")
		b.WriteString(tensor.ShapeString(sizes))
		tensor.Panicf("%s", b.String())
	}
	return tensor.Numel(sizes[:axis]), tensor.Numel(normalized)
}

func normShapeOf(t *tensor.Tensor) string {
	if t == nil {
		return "[0]"
	}
	return tensor.ShapeString(t.Sizes())
}

// native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
// -> (out, mean, rstd); mean and rstd keep the normalized dims as size 1.
func layerNormMeta(op *tensor.Op, a []any) any {
	p := args.NativeLayerNormOf(a)
	x, normalized, w, b := p.Input, p.NormalizedShape, p.Weight, p.Bias
	LayerNormDims(x, normalized, w, b)
	normCheckKernelDType("LayerNormKernelImpl", x.DType())
	normCheckSameDType(x.DType(), w, b)
	axis := x.Dim() - len(normalized)
	stat := append([]int(nil), x.Sizes()[:axis]...)
	for range normalized {
		stat = append(stat, 1)
	}
	return []*tensor.Tensor{
		Like(op, a, x, tensor.Invalid),
		Contig(op, a, x.DType(), stat...),
		Contig(op, a, x.DType(), stat...),
	}
}

// normNoDevice is what empty_like of an undefined tensor says: a gradient was
// asked for a weight or bias that was not given.
func normNoDevice(cond bool) {
	tensor.Check(cond, "tensor does not have a device")
}

// native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean,
// Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (grad_input, grad_weight, grad_bias)
func layerNormBackwardMeta(op *tensor.Op, a []any) any {
	p := args.NativeLayerNormBackwardOf(a)
	dy, x, normalized := p.GradOut, p.Input, p.NormalizedShape
	mean, rstd, w, b := p.Mean, p.Rstd, p.Weight, p.Bias
	mask := p.OutputMask
	m, n := LayerNormDims(x, normalized, w, b)
	normNoDevice(!mask[1] || w != nil)
	normNoDevice(!mask[2] || b != nil)
	tensor.Check(dy.Numel() == m*n, "Expected dY.numel() == M * N to be true, but got false.")
	tensor.Check(mean.Numel() == m, "Expected mean.numel() == M to be true, but got false.")
	tensor.Check(rstd.Numel() == m, "Expected rstd.numel() == M to be true, but got false.")
	if m > 0 && n > 0 {
		normCheckKernelDType("LayerNormBackwardKernelImpl", x.DType())
		normCheckSameDType(x.DType(), dy, mean, rstd, w)
		if mask[2] {
			normCheckSameDType(x.DType(), b)
		}
	}
	out := make([]*tensor.Tensor, 3)
	if mask[0] {
		out[0] = Like(op, a, x, tensor.Invalid)
	}
	if mask[1] {
		out[1] = Like(op, a, w, tensor.Invalid)
	}
	if mask[2] {
		out[2] = Like(op, a, b, tensor.Invalid)
	}
	return out
}

// checkGroupNormInputs is check_group_norm_inputs, including its habit of
// printing the weight's shape in the bias message.
func checkGroupNormInputs(x, w, b *tensor.Tensor, c, group int) {
	if group <= 0 {
		tensor.Panicf("Expected num groups to be greater than 0, got %d", group)
	}
	if c%group != 0 {
		tensor.Panicf("Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%d",
			tensor.ShapeString(x.Sizes()), group)
	}
	if !(w == nil || (w.Dim() == 1 && w.Numel() == c)) {
		tensor.Panicf("Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape %s and input of shape %s",
			normShapeOf(w), tensor.ShapeString(x.Sizes()))
	}
	if !(b == nil || (b.Dim() == 1 && b.Numel() == c)) {
		tensor.Panicf("Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape %s and input of shape %s",
			normShapeOf(w), tensor.ShapeString(x.Sizes()))
	}
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps)
// -> (out, mean [N, group], rstd [N, group]). The input is read as a flat N×C×HxW block.
func groupNormMeta(op *tensor.Op, a []any) any {
	p := args.NativeGroupNormOf(a)
	x, w, b := p.Input, p.Weight, p.Bias
	n, c, hw, group := p.N, p.C, p.HxW, p.Group
	checkGroupNormInputs(x, w, b, c, group)
	// native_group_norm takes X contiguous in its suggested memory format
	// (the group_norm composite makes it so).
	tensor.Check(x.IsContiguous() || IsContiguousFormat(x.Sizes(), x.Strides(), tensor.ChannelsLast) ||
		IsContiguousFormat(x.Sizes(), x.Strides(), tensor.ChannelsLast3d), "Expected X.is_contiguous(memory_format)"+normImprove)
	normNegative([]int{n, group})
	normCheckKernelDType("GroupNormKernelImpl", x.DType())
	nchw, ok := MulNoOverflow(n, c, hw)
	// 1.13 checks the product alone (an empty input with a negative HxW
	// passes); goaten also rejects negative sizes where there is work.
	tensor.Check((nchw == 0 || c >= 0 && hw >= 0) && ok && x.Numel() == nchw, "Expected X.numel() == N * C * HxW"+normImprove)
	normCheckSameDType(x.DType(), w, b)
	return []*tensor.Tensor{
		Like(op, a, x, tensor.Invalid),
		Contig(op, a, x.DType(), n, group),
		Contig(op, a, x.DType(), n, group),
	}
}

const normImprove = " to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"

// native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight,
// SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (grad_input, grad_weight, grad_bias)
func groupNormBackwardMeta(op *tensor.Op, a []any) any {
	p := args.NativeGroupNormBackwardOf(a)
	dy, x, mean, rstd, w := p.GradOut, p.Input, p.Mean, p.Rstd, p.Weight
	n, c, hw, group := p.N, p.C, p.HxW, p.Group
	mask := p.OutputMask
	normNoDevice(!mask[1] || w != nil)
	normNoDevice(!mask[2] || w != nil)
	normCheckKernelDType("GroupNormBackwardKernelImpl", x.DType())
	nchw, ok := MulNoOverflow(n, c, hw)
	tensor.Check(n >= 0 && (nchw == 0 || c >= 0 && hw >= 0) && ok && dy.Numel() == nchw, "Expected dY.numel() == N * C * HxW"+normImprove)
	tensor.Check(x.Numel() == nchw, "Expected X.numel() == N * C * HxW"+normImprove)
	ng, ok := MulNoOverflow(n, group)
	tensor.Check(ok && mean.Numel() == ng, "Expected mean.numel() == N * group"+normImprove)
	tensor.Check(rstd.Numel() == ng, "Expected rstd.numel() == N * group"+normImprove)
	tensor.Check(w == nil || w.Numel() == c, "Expected !gamma.defined() || gamma.numel() == C"+normImprove)
	if group <= 0 {
		tensor.Panicf("Expected num groups to be greater than 0, got %d", group)
	}
	if c%group != 0 {
		tensor.Panicf("Expected number of channels in input to be divisible by num_groups, but got input of shape %s and num_groups=%d",
			tensor.ShapeString(x.Sizes()), group)
	}
	normCheckSameDType(x.DType(), dy, mean, rstd, w)
	out := make([]*tensor.Tensor, 3)
	if mask[0] {
		out[0] = Like(op, a, x, tensor.Invalid)
	}
	if mask[1] {
		out[1] = Like(op, a, w, tensor.Invalid)
	}
	if mask[2] {
		out[2] = Like(op, a, w, tensor.Invalid)
	}
	return out
}

// BatchNormArgs are the arguments of the _native_batch_norm_legit overloads
// in one shape: _native_batch_norm_legit's (args.InternalNativeBatchNormLegit).
type BatchNormArgs struct {
	Input, Weight, Bias     *tensor.Tensor
	RunningMean, RunningVar *tensor.Tensor
	Training                bool
	Momentum, Eps           float64
}

// BatchNormArgsOf reads the arguments of any _native_batch_norm_legit overload
// or of native_batch_norm (the same arguments; its decomposition picks the
// overload).
func BatchNormArgsOf(op *tensor.Op, a []any) BatchNormArgs {
	switch {
	case op.Schema.Name == "native_batch_norm":
		return BatchNormArgs(args.NativeBatchNormOf(a))
	case op.Schema.Name == "_native_batch_norm_legit_no_training":
		p := args.InternalNativeBatchNormLegitNoTrainingOf(a)
		return BatchNormArgs{Input: p.Input, Weight: p.Weight, Bias: p.Bias,
			RunningMean: p.RunningMean, RunningVar: p.RunningVar, Momentum: p.Momentum, Eps: p.Eps}
	case op.Schema.Overload == "no_stats":
		p := args.InternalNativeBatchNormLegitNoStatsOf(a)
		return BatchNormArgs{Input: p.Input, Weight: p.Weight, Bias: p.Bias,
			Training: p.Training, Momentum: p.Momentum, Eps: p.Eps}
	}
	return BatchNormArgs(args.InternalNativeBatchNormLegitOf(a))
}

// Mixed reports PyTorch's is_mixed_type: the first parameter given (weight,
// bias, running_mean, running_var) has a dtype other than the input's.
func (a BatchNormArgs) Mixed() bool {
	for _, t := range []*tensor.Tensor{a.Weight, a.Bias, a.RunningMean, a.RunningVar} {
		if t != nil {
			return t.DType() != a.Input.DType()
		}
	}
	return false
}

// StatDType is the dtype of save_mean/save_invstd: float32 in mixed type (a
// bfloat16 input with float32 parameters), else the input's.
func (a BatchNormArgs) StatDType() tensor.DType {
	if a.Mixed() {
		return tensor.Float32
	}
	return a.Input.DType()
}

// check validates the arguments as torch.batch_norm and batch_norm_cpu do.
func (a BatchNormArgs) check() {
	x := a.Input
	switch x.Dim() {
	case 0:
		tensor.IndexPanicf("Dimension specified as 1 but tensor has no dimensions")
	case 1:
		tensor.WrapDim(1, 1)
	}
	c := x.Size(1)
	feature := func(name string, t *tensor.Tensor, required bool) {
		if t == nil {
			if required {
				tensor.Panicf("%s must be defined in evaluation mode", name)
			}
			return
		}
		if t.Numel() != c {
			tensor.Panicf("%s should contain %d elements not %d", name, c, t.Numel())
		}
	}
	for _, t := range []*tensor.Tensor{a.RunningMean, a.RunningVar} {
		// 1.13's kernels read the running statistics through 1-d accessors.
		if t != nil && t.Dim() != 1 {
			tensor.Panicf("TensorAccessor expected 1 dims but tensor has %d", t.Dim())
		}
	}
	feature("running_mean", a.RunningMean, !a.Training)
	feature("running_var", a.RunningVar, !a.Training)
	feature("weight", a.Weight, false)
	feature("bias", a.Bias, false)
	normCheckKernelDType("batch_norm", x.DType())
	params := []*tensor.Tensor{a.Weight, a.Bias, a.RunningMean, a.RunningVar}
	if a.Mixed() {
		// Mixed type: a bfloat16 input with float32 parameters.
		for _, t := range params {
			tensor.Check(t == nil || t.DType() == tensor.Float32, "mixed dtype (CPU): expect parameter to have scalar type of Float")
		}
		tensor.Check(x.DType() == tensor.BFloat16, "mixed dtype (CPU): expect input to have scalar type of BFloat16")
		return
	}
	normCheckSameDType(x.DType(), params...)
}

// _native_batch_norm_legit*: -> (out, save_mean, save_invstd). In training
// the saved statistics have C elements; in evaluation they are empty ([0]).
func batchNormMeta(op *tensor.Op, a []any) any {
	p := BatchNormArgsOf(op, a)
	p.check()
	sd := p.StatDType()
	c := 0
	if p.Training {
		c = p.Input.Size(1)
	}
	return []*tensor.Tensor{
		Like(op, a, p.Input, tensor.Invalid),
		Contig(op, a, sd, c),
		Contig(op, a, sd, c),
	}
}

// native_dropout(Tensor input, float p, bool? train) -> (out, mask). train=None
// means training. An empty input gives a mask of the input's dtype.
func dropoutMeta(op *tensor.Op, a []any) any {
	v := args.NativeDropoutOf(a)
	x, p := v.Input, v.P
	train := v.Train.Or(true)
	mdt := tensor.Bool
	if x.Numel() == 0 {
		mdt = x.DType()
	} else if train {
		p1m := 1 - p
		if !(p1m >= 0 && p1m <= 1) {
			tensor.Panicf("bernoulli_ expects p to be in [0, 1], but got p=%s", normFloat(p1m))
		}
		if !x.DType().IsFloat() {
			tensor.Panicf("result type Float can't be cast to the desired output type %s", CTypeName(x.DType()))
		}
	}
	return []*tensor.Tensor{
		Like(op, a, x, tensor.Invalid),
		Like(op, a, x, mdt),
	}
}

func init() {
	def("aten::native_layer_norm.default", layerNormMeta)
	def("aten::native_layer_norm_backward.default", layerNormBackwardMeta)
	def("aten::native_group_norm.default", groupNormMeta)
	def("aten::native_group_norm_backward.default", groupNormBackwardMeta)
	defs(batchNormMeta,
		"aten::_native_batch_norm_legit.default",
		"aten::_native_batch_norm_legit.no_stats",
		"aten::_native_batch_norm_legit_no_training.default")
	def("aten::native_dropout.default", dropoutMeta)
}
