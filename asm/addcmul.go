package asm

// The addcmul kernels: dst[i] = fma(v·t1[i], t2[i], x[i]), v·t1[i] rounded
// to the element type first, then the multiply-add rounded once. That is
// aten::addcmul (self + value·tensor1·tensor2) as PyTorch 1.13's CPU
// kernel computes it (PointwiseOpsKernel.cpp, compiled with FMA
// contraction). The results are the twins' in addcmul_generic.go bit for
// bit (NaN payloads aside).
//
// All slices of one call must have the same length, or the call panics.
// dst may be the same slice as x, t1 or t2 (in place: addcmul_); other
// overlaps give unspecified results.

// addcmulTable holds the kernels of both element types.
type addcmulTable struct {
	f32 func(d, x, t1, t2 []float32, v float32)
	f64 func(d, x, t1, t2 []float64, v float64)
}

// acm is the table in use: assembly where the CPU has it
// (addcmul_amd64.go, addcmul_arm64.go), else the twins.
var acm = addcmulKernels()

// AddcmulF32 sets dst[i] = fma(v·t1[i], t2[i], x[i]) in float32, v·t1[i]
// rounded to float32 first.
func AddcmulF32(dst, x, t1, t2 []float32, v float32) {
	checkLen("AddcmulF32", len(dst), len(x), len(t1), len(t2))
	if len(dst) > 0 {
		acm.f32(dst, x, t1, t2, v)
	}
}

// AddcmulF64 sets dst[i] = fma(v·t1[i], t2[i], x[i]) in float64, v·t1[i]
// rounded first.
func AddcmulF64(dst, x, t1, t2 []float64, v float64) {
	checkLen("AddcmulF64", len(dst), len(x), len(t1), len(t2))
	if len(dst) > 0 {
		acm.f64(dst, x, t1, t2, v)
	}
}
