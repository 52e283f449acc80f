package nninit

import (
	"math"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/internal/libm"
)

// TruncNormal_ fills t with values from N(mean, std²) truncated to [a, b]
// (torch.nn.init.trunc_normal_; PyTorch's defaults are mean 0, std 1,
// a -2, b 2). As PyTorch 1.13 does, it draws t uniform on
// [2Φ(α)-1, 2Φ(β)-1], α = (a-mean)/std, β = (b-mean)/std, from the default
// generator, maps each value u to mean + std·√2·erfinv(u) and clamps to
// [a, b]. The method works best for a ≤ mean ≤ b; PyTorch warns when mean
// is more than 2 std outside [a, b], goaten says nothing. float16, which
// ATen's erfinv lacks, panics (after the draws) with PyTorch's RuntimeError;
// std 0 with Python's ZeroDivisionError message, as a ValueError.
//
// The uniform draws are PyTorch's bit for bit. erfinv is ATen's
// calc_erfinv (a rational first guess and two Newton steps) with the
// contractions GCC makes in ATen's AVX2 build; it calls erf and exp, which
// here are Go's and there glibc's, so about one value in twenty differs from
// PyTorch's in its last bits: over 7·10⁶ float32 and 5·10⁶ float64 values in
// [-0.96, 0.96] (trunc_normal_'s range for a, b within 2 std) by at most
// 4 ulps.
func TruncNormal_(t *gt.Tensor, mean, std, a, b float64) *gt.Tensor {
	if std == 0 {
		valueError("float division by zero") // Python's ZeroDivisionError
	}
	l := normCDF((a - mean) / std)
	u := normCDF((b - mean) / std)
	w := noGrad(t)
	w.Uniform_(gt.WithFrom(2*l-1), gt.WithTo(2*u-1))
	if w.DType() == gt.Float16 {
		notImplemented("erfinv_vml_cpu", w.DType())
	}
	vals := w.Float64s()
	if w.DType() == gt.Float64 {
		for i, v := range vals {
			vals[i] = erfinv64(v)
		}
	} else {
		// float32, and bfloat16 as ATen computes it: in float32, rounded.
		for i, v := range vals {
			vals[i] = float64(erfinv32(float32(v)))
		}
	}
	write(w, vals)
	w.MulScalar_(std * math.Sqrt(2))
	w.AddScalar_(mean)
	w.Clamp_(gt.WithMin(a), gt.WithMax(b))
	return t
}

// normCDF is the standard normal CDF as trunc_normal_ computes it.
func normCDF(x float64) float64 { return (1 + math.Erf(x/math.Sqrt(2))) / 2 }

// The coefficients of calc_erfinv's rational approximations (ATen's
// Math.h, after Gary L. Pavlis's erfinv.c): |y| <= 0.7 in y², else in
// z = √(-log((1-|y|)/2)).
var (
	erfinvA = [4]float64{0.886226899, -1.645349621, 0.914624893, -0.140543331}
	erfinvB = [4]float64{-2.118377725, 1.442710462, -0.329097515, 0.012229801}
	erfinvC = [4]float64{-1.970840454, -1.624906493, 3.429567803, 1.641345311}
	erfinvD = [2]float64{3.543889200, 1.637067800}
)

// erfinv64 is calc_erfinv<double> with every a·b+c fused, as GCC compiles
// it with -mfma.
func erfinv64(y float64) float64 {
	ay := math.Abs(y)
	switch {
	case ay > 1 || y != y:
		return math.NaN()
	case ay == 1:
		return math.Copysign(math.Inf(1), y)
	}
	A, B, C, D := &erfinvA, &erfinvB, &erfinvC, &erfinvD
	var x float64
	if ay <= 0.7 {
		z := y * y
		num := math.FMA(math.FMA(math.FMA(A[3], z, A[2]), z, A[1]), z, A[0])
		dem := math.FMA(math.FMA(math.FMA(math.FMA(B[3], z, B[2]), z, B[1]), z, B[0]), z, 1)
		x = float64(y*num) / dem
	} else {
		z := math.Sqrt(-libm.Log((1 - ay) / 2))
		num := math.FMA(math.FMA(math.FMA(C[3], z, C[2]), z, C[1]), z, C[0])
		dem := math.FMA(math.FMA(D[1], z, D[0]), z, 1)
		x = math.Copysign(num, y) / dem
	}
	k := 2 / math.Sqrt(math.Pi)
	for range 2 { // Newton steps
		x -= (math.Erf(x) - y) / float64(k*math.Exp(float64(-x*x)))
	}
	return x
}

// erfinv32 is calc_erfinv<float>, fused as erfinv64; erff, expf and logf
// are Go's float64 functions rounded to float32.
func erfinv32(y float32) float32 {
	ay := float32(math.Abs(float64(y)))
	switch {
	case ay > 1 || y != y:
		return float32(math.NaN())
	case ay == 1:
		return float32(math.Copysign(math.Inf(1), float64(y)))
	}
	c := func(v float64) float32 { return float32(v) }
	f := libm.FMA32
	A, B, C, D := &erfinvA, &erfinvB, &erfinvC, &erfinvD
	var x float32
	if ay <= 0.7 {
		z := float32(y * y)
		num := f(f(f(c(A[3]), z, c(A[2])), z, c(A[1])), z, c(A[0]))
		dem := f(f(f(f(c(B[3]), z, c(B[2])), z, c(B[1])), z, c(B[0])), z, 1)
		x = float32(y*num) / dem
	} else {
		z := float32(math.Sqrt(float64(-float32(math.Log(float64((1 - ay) / 2))))))
		num := f(f(f(c(C[3]), z, c(C[2])), z, c(C[1])), z, c(C[0]))
		dem := f(f(c(D[1]), z, c(D[0])), z, 1)
		x = float32(math.Copysign(float64(num), float64(y))) / dem
	}
	k := float32(2) / float32(math.Sqrt(math.Pi))
	for range 2 {
		e := float32(math.Erf(float64(x)))
		ex := float32(math.Exp(float64(float32(-x * x))))
		x -= (e - y) / float32(k*ex)
	}
	return x
}
