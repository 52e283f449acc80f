package compile

import (
	"fmt"
	"sort"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// coreDecomps are Go counterparts of decompositions PyTorch's
// torch._decomp offers for ops that goaten's devices run whole (they have
// kernels): passed to Trace or Compile they replace the op by the ops it is
// written in, as make_fx's decomposition_table does. Each follows PyTorch
// 1.13's Python decomposition step by step, so a traced graph records the
// same ops with the same constants.
var coreDecomps = map[string]tensor.Kernel{
	"aten::gelu":         geluDecomp,
	"aten::_softmax":     softmaxDecomp,
	"aten::_log_softmax": logSoftmaxDecomp,
	"aten::addmm":        addmmDecomp,
}

// CoreDecompositionNames lists the ops Decompositions can replace.
func CoreDecompositionNames() []string {
	var out []string
	for n := range coreDecomps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// GetDecompositions returns the decompositions of the named ops
// (torch._decomp.get_decompositions); an op without one is an error.
func GetDecompositions(names ...string) (Decompositions, error) {
	out := Decompositions{}
	for _, n := range names {
		op, ok := tensor.LookupOp(n)
		if !ok {
			return nil, fmt.Errorf("compile.GetDecompositions: unknown op %q", n)
		}
		k, ok := coreDecomps[op.Name]
		if !ok {
			return nil, fmt.Errorf("compile.GetDecompositions: no decomposition of %s (have %v)", op.Name, CoreDecompositionNames())
		}
		out[op] = k
	}
	return out, nil
}

// num is a Python number in an op's Tensor argument (a * 0.5 in PyTorch's
// decompositions calls mul.Tensor with a wrapped number).
func num(v float64) *tensor.Tensor { return tensor.WrappedNumber(tensor.Float(v)) }

func inum(v int64) *tensor.Tensor { return tensor.WrappedNumber(tensor.Int(v)) }

// geluDecomp is torch._refs.nn.functional.gelu: a * 0.5 * (1 + erf(a *
// M_SQRT1_2)), or the tanh form.
func geluDecomp(op *tensor.Op, a []any) any {
	p := args.GeluOf(a)
	x := p.Self
	switch p.Approximate {
	case "tanh":
		const mSqrt2, m2SqrtPi = 1.41421356237309504880, 1.12837916709551257390
		kBeta := mSqrt2 * m2SqrtPi * 0.5
		cube := x.Mul(x).Mul(x)
		inner := x.Add(cube.Mul(num(0.044715))).Mul(num(kBeta))
		return x.Mul(num(0.5)).Mul(inner.Tanh().Add(inum(1)))
	case "none":
		return x.Mul(num(0.5)).Mul(x.Mul(num(0.70710678118654752440)).Erf().Add(inum(1)))
	}
	tensor.Panicf("approximate argument must be either none or tanh.")
	return nil
}

// contiguous is Tensor.contiguous() as PyTorch's C++ API runs it: the
// tensor itself, with no op, when it is contiguous already.
func contiguous(x *tensor.Tensor) *tensor.Tensor {
	if x.IsContiguous() {
		return x
	}
	return x.Contiguous()
}

// computeDType is elementwise_dtypes' computation dtype: reduced floats
// compute in float32.
func computeDType(d tensor.DType) tensor.DType {
	if d == tensor.Float16 || d == tensor.BFloat16 {
		return tensor.Float32
	}
	return d
}

// softmaxDecomp is torch._decomp's _softmax: exp(x - amax) / sum.
func softmaxDecomp(op *tensor.Op, a []any) any {
	p := args.InternalSoftmaxOf(a)
	x := contiguous(p.Self)
	rd := x.DType()
	x = x.To(computeDType(rd))
	un := x.Sub(x.Amax(tensor.WithDim([]int{p.Dim}), tensor.WithKeepdim(true))).Exp()
	res := un.Div(un.Sum([]int{p.Dim}, tensor.WithKeepdim(true)))
	if !p.HalfToFloat {
		res = res.To(rd)
	}
	return res
}

// logSoftmaxDecomp is torch._decomp's _log_softmax: shifted -
// log(sum(exp(shifted))).
func logSoftmaxDecomp(op *tensor.Op, a []any) any {
	p := args.InternalLogSoftmaxOf(a)
	x := contiguous(p.Self)
	rd := x.DType()
	x = x.To(computeDType(rd))
	shifted := x.Sub(x.Amax(tensor.WithDim([]int{p.Dim}), tensor.WithKeepdim(true)))
	res := shifted.Sub(shifted.Exp().Sum([]int{p.Dim}, tensor.WithKeepdim(true)).Log())
	if !p.HalfToFloat {
		res = res.To(rd)
	}
	return res
}

// addmmDecomp is torch._decomp's addmm: alpha * mm(mat1, mat2), plus beta
// * self unless beta is 0.
func addmmDecomp(op *tensor.Op, a []any) any {
	p := args.AddmmOf(a)
	beta, alpha := p.Beta, p.Alpha
	if !p.Self.DType().IsFloat() {
		beta, alpha = tensor.Int(beta.Int64()), tensor.Int(alpha.Int64())
	}
	// alpha * t in Python is t.__rmul__(alpha): mul.Tensor(t, alpha).
	out := p.Mat1.Mm(p.Mat2).Mul(tensor.WrappedNumber(alpha))
	if !beta.IsBool() && beta.Float64() == 0 {
		return out
	}
	return p.Self.Mul(tensor.WrappedNumber(beta)).Add(out)
}
