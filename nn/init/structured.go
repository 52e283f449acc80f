package nninit

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/tensor"
	"gonum.org/v1/gonum/mat"
)

// write copies vals, t's elements in row-major order, into w (t detached).
func write(w *gt.Tensor, vals []float64) {
	w.Copy_(gt.FromFloat64s(vals, w.Sizes()...))
}

// Eye_ fills the 2-dimensional t with the identity matrix, ones on the
// main diagonal and zeros elsewhere (torch.nn.init.eye_), so that a Linear
// layer passes on as many of its inputs as it can. Other ranks panic with
// PyTorch's ValueError, bfloat16 (which torch.eye lacks) with its
// RuntimeError.
func Eye_(t *gt.Tensor) *gt.Tensor {
	if t.Dim() != 2 {
		valueError("Only tensors with 2 dimensions are supported")
	}
	if t.DType() == gt.BFloat16 {
		notImplemented("eye", t.DType())
	}
	noGrad(t).Copy_(gt.EyeM(t.Size(0), t.Size(1), gt.WithDtype(t.DType())))
	return t
}

// Dirac_ fills the 3-, 4- or 5-dimensional t with the Dirac delta
// (torch.nn.init.dirac_): zeros but for a one at the centre of the kernel
// of weight[g·out+d, d] for each of the groups g and d < min(out, in),
// out = size(0)/groups, so that a convolution passes on as many of its
// input channels as it can. PyTorch's default groups is 1. Other ranks and
// a size(0) that groups does not divide panic with PyTorch's ValueError
// (groups 0 with Python's ZeroDivisionError message, as a ValueError:
// goaten has no ZeroDivisionError).
func Dirac_(t *gt.Tensor, groups int) *gt.Tensor {
	dims := t.Dim()
	if dims < 3 || dims > 5 {
		valueError("Only tensors with 3, 4, or 5 dimensions are supported")
	}
	sizes := t.Sizes()
	if groups == 0 {
		valueError("integer modulo by zero")
	}
	if sizes[0]%groups != 0 {
		valueError("dim 0 must be divisible by groups")
	}
	out := sizes[0] / groups // exact, so Go's and Python's division agree
	minDim := min(out, sizes[1])
	strides := make([]int, dims) // row-major strides of t's elements
	n := 1
	for i := dims - 1; i >= 0; i-- {
		strides[i] = n
		n *= sizes[i]
	}
	centre := 0
	for i := 2; i < dims; i++ {
		centre += sizes[i] / 2 * strides[i]
	}
	vals := make([]float64, n)
	for g := 0; g < groups; g++ {
		for d := 0; d < minDim; d++ {
			vals[(g*out+d)*strides[0]+d*strides[1]+centre] = 1
		}
	}
	write(noGrad(t), vals)
	return t
}

// Orthogonal_ fills t with a (semi-)orthogonal matrix, times gain
// (torch.nn.init.orthogonal_, Saxe et al. 2013; PyTorch's default gain is
// 1). t has 2 or more dimensions, the trailing ones flattened: rows =
// size(0), cols = numel/rows. As PyTorch does, it draws a rows×cols matrix
// from N(0, 1) in t's dtype from the default generator (transposed when
// rows < cols), factors it as QR, multiplies each column of Q by the sign
// of R's diagonal, which makes Q unique (and uniform over the orthogonal
// group), and transposes back.
//
// PyTorch's linalg.qr is LAPACK's Householder geqrf and orgqr in t's dtype;
// here it is gonum's Householder QR (mat.QR) in float64, rounded to t's
// dtype. After the sign fix both are the same unique factor, so they agree
// to rounding: the draws are PyTorch's bit for bit, Q's elements within a
// few ulps of 1 in t's dtype (the tests hold them to 8ε: 1e-6 in float32,
// 2e-15 in float64).
// Fewer than 2 dimensions panic with PyTorch's ValueError, float16 and
// bfloat16 (after the draws) with its RuntimeError; a tensor with no
// elements is left alone, drawing nothing.
func Orthogonal_(t *gt.Tensor, gain float64) *gt.Tensor {
	if t.Dim() < 2 {
		valueError("Only tensors with 2 or more dimensions are supported")
	}
	if t.Numel() == 0 {
		return t
	}
	rows := t.Size(0)
	cols := t.Numel() / rows
	flat := gt.Empty(rows, cols, gt.WithDtype(t.DType())).Normal_(gt.WithMean(0.0), gt.WithStd(1.0))
	if d := t.DType(); d != gt.Float32 && d != gt.Float64 {
		notImplemented("geqrf_cpu", d) // LAPACK has no half-precision QR
	}
	a := mat.NewDense(rows, cols, flat.Float64s())
	m, n := rows, cols
	if rows < cols {
		a = mat.DenseCopyOf(a.T())
		m, n = cols, rows
	}
	var qr mat.QR
	qr.Factorize(a)
	var q, r mat.Dense
	qr.QTo(&q)
	qr.RTo(&r)
	vals := make([]float64, rows*cols)
	for j := 0; j < n; j++ { // the reduced Q: Q's first n columns
		s := sign(r.At(j, j))
		for i := 0; i < m; i++ {
			v := q.At(i, j) * s
			if rows < cols {
				vals[j*cols+i] = v // Qᵀ
			} else {
				vals[i*cols+j] = v
			}
		}
	}
	w := noGrad(t)
	w.View([]int{rows, cols}).Copy_(gt.FromFloat64s(vals, rows, cols))
	w.MulScalar_(gain)
	return t
}

// notImplemented panics with ATen's RuntimeError for a kernel that has no
// version for d.
func notImplemented(kernel string, d gt.DType) {
	name := map[gt.DType]string{gt.Float16: "Half", gt.BFloat16: "BFloat16"}[d]
	if name == "" {
		name = d.String()
	}
	panic(&gt.Error{Kind: tensor.RuntimeError, Msg: fmt.Sprintf("%q not implemented for '%s'", kernel, name)})
}

// sign is torch.sign: -1, 0 or 1 (NaN stays NaN).
func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x
}

// Sparse_ fills the 2-dimensional t as a sparse matrix
// (torch.nn.init.sparse_, Martens 2010): every element from N(0, std²)
// (PyTorch's default std is 0.01), then in each column the
// ⌈sparsity·rows⌉ rows first in a fresh randperm(rows) set to zero, the
// draws in PyTorch's order from the default generator. Other ranks panic
// with PyTorch's ValueError, as does a NaN or infinite sparsity·rows
// (Python's int() errors).
func Sparse_(t *gt.Tensor, sparsity, std float64) *gt.Tensor {
	if t.Dim() != 2 {
		valueError("Only tensors with 2 dimensions are supported")
	}
	rows, cols := t.Size(0), t.Size(1)
	z := math.Ceil(sparsity * float64(rows))
	switch { // Python's int(z), its OverflowError as a ValueError
	case math.IsNaN(z):
		valueError("cannot convert float NaN to integer")
	case math.IsInf(z, 0):
		valueError("cannot convert float infinity to integer")
	}
	numZeros := int(max(min(z, math.MaxInt32), math.MinInt32))
	if numZeros < 0 { // Python's row_indices[:num_zeros] counts from the end
		numZeros = max(rows+numZeros, 0)
	}
	numZeros = min(numZeros, rows)
	w := noGrad(t)
	w.Normal_(gt.WithMean(0.0), gt.WithStd(std))
	vals := w.Float64s()
	for col := 0; col < cols; col++ {
		perm := gt.Randperm(rows).Int64s()
		for _, row := range perm[:numZeros] {
			vals[int(row)*cols+col] = 0
		}
	}
	write(w, vals)
	return t
}
