package nn

import (
	"fmt"
	"strconv"
	"strings"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// batchNorm is what BatchNorm1d/2d/3d share (PyTorch's _BatchNorm).
type batchNorm struct {
	Base
	NumFeatures               int
	Eps                       float64
	Momentum                  *float64 // nil: cumulative moving average (momentum=None)
	Affine, TrackRunningStats bool
	Weight, Bias              *T // nil without Affine
	// The running statistics, nil without TrackRunningStats.
	RunningMean, RunningVar, NumBatchesTracked *T

	checkDim func(x *T)
}

func newBatchNorm(cls string, n int, opts []Option, checkDim func(*T)) batchNorm {
	k := parse(cls, opts, "eps", "momentum", "affine", "track_running_stats", "device", "dtype")
	m := batchNorm{NumFeatures: n, checkDim: checkDim}
	m.SetName(cls)
	m.Eps = k.float("eps", 1e-5)
	if !k.has("momentum") {
		mom := 0.1
		m.Momentum = &mom
	} else {
		m.Momentum = k.optFloat("momentum")
	}
	m.Affine = k.bool("affine", true)
	m.TrackRunningStats = k.bool("track_running_stats", true)
	m.Weight, m.Bias = m.affineParams(k, m.Affine, n)
	if m.TrackRunningStats {
		m.RunningMean = m.RegisterBuffer("running_mean", gt.Zeros(n).To(k.dtype()), true)
		m.RunningVar = m.RegisterBuffer("running_var", gt.Ones(n).To(k.dtype()), true)
		m.NumBatchesTracked = m.RegisterBuffer("num_batches_tracked", gt.Full(0, []int{}, gt.WithDtype(gt.Int64)), true)
	} else {
		m.RegisterBuffer("running_mean", nil, true)
		m.RegisterBuffer("running_var", nil, true)
		m.RegisterBuffer("num_batches_tracked", nil, true)
	}
	m.ResetParameters()
	k.place(m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked)
	return m
}

// ResetRunningStats zeroes the running mean and the batch count and sets
// the running variance to ones.
func (m *batchNorm) ResetRunningStats() {
	if m.TrackRunningStats {
		nninit.Zeros_(m.RunningMean)
		nninit.Ones_(m.RunningVar)
		nninit.Zeros_(m.NumBatchesTracked)
	}
}

// ResetParameters resets the running statistics, and the weight to ones and
// the bias to zeros.
func (m *batchNorm) ResetParameters() {
	m.ResetRunningStats()
	if m.Affine {
		nninit.Ones_(m.Weight)
		nninit.Zeros_(m.Bias)
	}
}

// forward is _BatchNorm.forward: batch statistics in training (updating the
// running ones in place), running statistics in eval.
func (m *batchNorm) forward(x *T) *T {
	m.checkDim(x)
	factor := 0.0
	if m.Momentum != nil {
		factor = *m.Momentum
	}
	if m.Training() && m.TrackRunningStats && m.NumBatchesTracked != nil {
		m.NumBatchesTracked.AddScalar_(1)
		if m.Momentum == nil {
			factor = 1 / float64(m.NumBatchesTracked.Item().Int64())
		}
	}
	bnTraining := m.Training() || (m.RunningMean == nil && m.RunningVar == nil)
	var rm, rv *T
	if !m.Training() || m.TrackRunningStats {
		rm, rv = m.RunningMean, m.RunningVar
	}
	if bnTraining {
		s := x.Sizes()
		prod := s[0]
		for _, v := range s[2:] {
			prod *= v
		}
		if prod == 1 {
			valueError("Expected more than 1 value per channel when training, got input size %s", sizeRepr(s))
		}
	}
	return gt.BatchNorm(x, m.Weight, m.Bias, rm, rv, bnTraining, factor, m.Eps, true)
}

// ExtraRepr is "4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True".
func (m *batchNorm) ExtraRepr() string {
	mom := "None"
	if m.Momentum != nil {
		mom = pyFloat(*m.Momentum)
	}
	return fmt.Sprintf("%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s", m.NumFeatures, pyFloat(m.Eps), mom, pyBool(m.Affine), pyBool(m.TrackRunningStats))
}

// BatchNorm1d normalizes (N, C) or (N, C, L) inputs per channel
// (nn.BatchNorm1d): with batch statistics in training, updating
// running_mean and running_var (unbiased) by momentum, and with the running
// statistics in eval. Its state is weight, bias, running_mean,
// running_var, num_batches_tracked, as PyTorch's. Options: Eps (1e-5),
// Momentum (0.1) or MomentumNone, Affine, TrackRunningStats, DType, Device.
type BatchNorm1d struct{ batchNorm }

// NewBatchNorm1d makes nn.BatchNorm1d(numFeatures).
func NewBatchNorm1d(numFeatures int, opts ...Option) *BatchNorm1d {
	return &BatchNorm1d{newBatchNorm("BatchNorm1d", numFeatures, opts, func(x *T) {
		if x.Dim() != 2 && x.Dim() != 3 {
			valueError("expected 2D or 3D input (got %dD input)", x.Dim())
		}
	})}
}

// Forward normalizes x.
func (m *BatchNorm1d) Forward(x *T) *T { return m.forward(x) }

func (m *BatchNorm1d) String() string { return Repr(m) }

// BatchNorm2d normalizes (N, C, H, W) inputs per channel (nn.BatchNorm2d),
// as BatchNorm1d.
type BatchNorm2d struct{ batchNorm }

// NewBatchNorm2d makes nn.BatchNorm2d(numFeatures).
func NewBatchNorm2d(numFeatures int, opts ...Option) *BatchNorm2d {
	return &BatchNorm2d{newBatchNorm("BatchNorm2d", numFeatures, opts, func(x *T) {
		if x.Dim() != 4 {
			valueError("expected 4D input (got %dD input)", x.Dim())
		}
	})}
}

// Forward normalizes x.
func (m *BatchNorm2d) Forward(x *T) *T { return m.forward(x) }

func (m *BatchNorm2d) String() string { return Repr(m) }

// BatchNorm3d normalizes (N, C, D, H, W) inputs per channel
// (nn.BatchNorm3d), as BatchNorm1d.
type BatchNorm3d struct{ batchNorm }

// NewBatchNorm3d makes nn.BatchNorm3d(numFeatures).
func NewBatchNorm3d(numFeatures int, opts ...Option) *BatchNorm3d {
	return &BatchNorm3d{newBatchNorm("BatchNorm3d", numFeatures, opts, func(x *T) {
		if x.Dim() != 5 {
			valueError("expected 5D input (got %dD input)", x.Dim())
		}
	})}
}

// Forward normalizes x.
func (m *BatchNorm3d) Forward(x *T) *T { return m.forward(x) }

func (m *BatchNorm3d) String() string { return Repr(m) }

// shapeInts reads a normalized_shape: an int is a 1-tuple.
func shapeInts[S Size](s S) []int {
	switch x := any(s).(type) {
	case int:
		return []int{x}
	case []int:
		return append([]int(nil), x...)
	}
	return nil
}

// LayerNorm normalizes over the last dims of its input, given by
// normalizedShape (nn.LayerNorm), with a weight (ones) and bias (zeros) of
// that shape. Options: Eps (1e-5), ElementwiseAffine, DType, Device.
type LayerNorm struct {
	Base
	NormalizedShape   []int
	Eps               float64
	ElementwiseAffine bool
	Weight, Bias      *T
}

// NewLayerNorm makes nn.LayerNorm(normalizedShape): an int or []int.
func NewLayerNorm[S Size](normalizedShape S, opts ...Option) *LayerNorm {
	k := parse("LayerNorm", opts, "eps", "elementwise_affine", "device", "dtype")
	m := &LayerNorm{NormalizedShape: shapeInts(normalizedShape)}
	m.SetName("LayerNorm")
	m.Eps = k.float("eps", 1e-5)
	m.ElementwiseAffine = k.bool("elementwise_affine", true)
	m.Weight, m.Bias = m.affineParams(k, m.ElementwiseAffine, m.NormalizedShape...)
	m.ResetParameters()
	k.place(m.Weight, m.Bias)
	return m
}

// ResetParameters sets the weight to ones and the bias to zeros.
func (m *LayerNorm) ResetParameters() {
	if m.ElementwiseAffine {
		nninit.Ones_(m.Weight)
		nninit.Zeros_(m.Bias)
	}
}

// Forward is F.layer_norm(x, normalized_shape, weight, bias, eps).
func (m *LayerNorm) Forward(x *T) *T {
	opts := []gt.Option{gt.WithEps(m.Eps)}
	if m.Weight != nil {
		opts = append(opts, gt.WithWeight(m.Weight), gt.WithBias(m.Bias))
	}
	return gt.LayerNorm(x, m.NormalizedShape, opts...)
}

// ExtraRepr is "(4,), eps=1e-05, elementwise_affine=True".
func (m *LayerNorm) ExtraRepr() string {
	return fmt.Sprintf("%s, eps=%s, elementwise_affine=%s", tupleRepr(m.NormalizedShape), pyFloat(m.Eps), pyBool(m.ElementwiseAffine))
}

func (m *LayerNorm) String() string { return Repr(m) }

// GroupNorm normalizes (N, C, *) inputs over groups of channels
// (nn.GroupNorm), with a per-channel weight (ones) and bias (zeros).
// Options: Eps (1e-5), Affine, DType, Device.
type GroupNorm struct {
	Base
	NumGroups, NumChannels int
	Eps                    float64
	Affine                 bool
	Weight, Bias           *T
}

// NewGroupNorm makes nn.GroupNorm(numGroups, numChannels).
func NewGroupNorm(numGroups, numChannels int, opts ...Option) *GroupNorm {
	k := parse("GroupNorm", opts, "eps", "affine", "device", "dtype")
	if numChannels%numGroups != 0 {
		valueError("num_channels must be divisible by num_groups")
	}
	m := &GroupNorm{NumGroups: numGroups, NumChannels: numChannels}
	m.SetName("GroupNorm")
	m.Eps = k.float("eps", 1e-5)
	m.Affine = k.bool("affine", true)
	m.Weight, m.Bias = m.affineParams(k, m.Affine, numChannels)
	m.ResetParameters()
	k.place(m.Weight, m.Bias)
	return m
}

// ResetParameters sets the weight to ones and the bias to zeros.
func (m *GroupNorm) ResetParameters() {
	if m.Affine {
		nninit.Ones_(m.Weight)
		nninit.Zeros_(m.Bias)
	}
}

// Forward is F.group_norm(x, num_groups, weight, bias, eps).
func (m *GroupNorm) Forward(x *T) *T {
	opts := []gt.Option{gt.WithEps(m.Eps)}
	if m.Weight != nil {
		opts = append(opts, gt.WithWeight(m.Weight), gt.WithBias(m.Bias))
	}
	return gt.GroupNorm(x, m.NumGroups, opts...)
}

// ExtraRepr is "2, 6, eps=1e-05, affine=True".
func (m *GroupNorm) ExtraRepr() string {
	return fmt.Sprintf("%d, %d, eps=%s, affine=%s", m.NumGroups, m.NumChannels, pyFloat(m.Eps), pyBool(m.Affine))
}

func (m *GroupNorm) String() string { return Repr(m) }

// RMSNorm is root-mean-square normalization over the last dims (nn.RMSNorm
// as PyTorch 2.4 defines it; PyTorch 1.13, goaten's reference, has no
// RMSNorm): y = x · rsqrt(mean(x², dims) + eps) · weight, with eps the
// machine epsilon of x's dtype (torch.finfo(x.dtype).eps) when not given,
// and a weight of ones (no bias). Options: Eps, ElementwiseAffine, DType,
// Device.
type RMSNorm struct {
	Base
	NormalizedShape   []int
	Eps               *float64 // nil: the dtype's machine epsilon
	ElementwiseAffine bool
	Weight            *T
}

// NewRMSNorm makes nn.RMSNorm(normalizedShape): an int or []int.
func NewRMSNorm[S Size](normalizedShape S, opts ...Option) *RMSNorm {
	k := parse("RMSNorm", opts, "eps", "elementwise_affine", "device", "dtype")
	m := &RMSNorm{NormalizedShape: shapeInts(normalizedShape)}
	m.SetName("RMSNorm")
	m.Eps = k.optFloat("eps")
	m.ElementwiseAffine = k.bool("elementwise_affine", true)
	if m.ElementwiseAffine {
		m.Weight = m.RegisterParameter("weight", empty(k, m.NormalizedShape...))
	} else {
		m.RegisterParameter("weight", nil)
	}
	m.ResetParameters()
	k.place(m.Weight)
	return m
}

// ResetParameters sets the weight to ones.
func (m *RMSNorm) ResetParameters() {
	if m.ElementwiseAffine {
		nninit.Ones_(m.Weight)
	}
}

// machineEps is std::numeric_limits<opmath_type<T>>::epsilon().
func machineEps(d tensor.DType) float64 {
	switch d {
	case gt.Float64:
		return 0x1p-52
	}
	return 0x1p-23 // float32, and the float32 opmath of float16 and bfloat16
}

// Forward is PyTorch 2.4's F.rms_norm: x.mul(rsqrt(pow(x, 2).mean(dims,
// keepdim=True).add_(eps))), then .mul(weight).
func (m *RMSNorm) Forward(x *T) *T {
	n := len(m.NormalizedShape)
	in := x.Sizes()
	if x.Dim() < n || !sameSizes(in[x.Dim()-n:], m.NormalizedShape) {
		var b strings.Builder
		fmt.Fprintf(&b, "Given normalized_shape=%s, expected input with shape [*", listRepr(m.NormalizedShape))
		for _, s := range m.NormalizedShape {
			b.WriteString(", " + strconv.Itoa(s))
		}
		fmt.Fprintf(&b, "], but got input of size%s", listRepr(in))
		tensor.Panicf("%s", b.String())
	}
	dims := make([]int, n)
	for i := range dims {
		dims[i] = x.Dim() - i - 1
	}
	eps := machineEps(x.DType())
	if m.Eps != nil {
		eps = *m.Eps
	}
	y := x.Mul(x.PowScalar(2).MeanDim(dims, gt.WithKeepdim(true)).AddScalar(eps).Rsqrt())
	if m.Weight != nil {
		y = y.Mul(m.Weight)
	}
	return y
}

// ExtraRepr is "(4,), eps=None, elementwise_affine=True".
func (m *RMSNorm) ExtraRepr() string {
	eps := "None"
	if m.Eps != nil {
		eps = pyFloat(*m.Eps)
	}
	return fmt.Sprintf("%s, eps=%s, elementwise_affine=%s", tupleRepr(m.NormalizedShape), eps, pyBool(m.ElementwiseAffine))
}

func (m *RMSNorm) String() string { return Repr(m) }

// affineParams registers a normalization's weight and bias of the given
// shape (left uninitialised for ResetParameters), or registers both as
// None when affine is off.
func (b *Base) affineParams(k kwargs, affine bool, shape ...int) (weight, bias *T) {
	if affine {
		return b.RegisterParameter("weight", empty(k, shape...)), b.RegisterParameter("bias", empty(k, shape...))
	}
	b.RegisterParameter("weight", nil)
	b.RegisterParameter("bias", nil)
	return nil, nil
}
