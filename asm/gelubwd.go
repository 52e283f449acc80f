package asm

// The constants of gelu_backward's decomposition, as its scalar operands
// reach a float32 kernel: rounded to float32.
const (
	geluSqrt1_2 = float32(0.70710678118654752440)
	geluAlpha   = float32(1.12837916709551257390 * 0.70710678118654752440 * 0.5)
)

// GeluBackwardF32 sets dst[i] = g[i]·(cdf + x[i]·pdf) with cdf =
// (erf(x[i]·√½) + 1)·½ and pdf = e^(x[i]·x[i]·-½)·α, α = 1/√(2π):
// gelu_backward(approximate='none') of the gradient g and the input x as
// its decomposition computes it, each float32 operation rounded, with
// ErfF32's and ExpF32's values: the same bits as those kernels and the
// elementwise ones in turn. With AVX-512 it is three passes over an
// L1-resident chunk (gelubwd_amd64.go; the eleven kernels a chunk took 2.1x
// the time on 4M elements); elsewhere those kernels run a chunk at a time.
func GeluBackwardF32(dst, g, x []float32) {
	checkLen("GeluBackwardF32", len(dst), len(g), len(x))
	if len(dst) == 0 {
		return
	}
	if geluBwdKernel != nil {
		geluBwdKernel(dst, g, x)
		return
	}
	geluBwdChunks(dst, g, x)
}

// geluBwdGo1 is GeluBackwardF32 of one element, in Go (the twin). Every
// product is converted to float32 explicitly, so that the compiler fuses
// none of them into an addition (arm64's does, across statements).
func geluBwdGo1(g, x float32) float32 {
	t := float32(float32(erfGo1(float32(x*geluSqrt1_2))+1) * 0.5)
	u := expGo1(float32(float32(x*x) * -0.5))
	u = float32(x * float32(u*geluAlpha))
	return float32(g * float32(t+u))
}

// geluBwdChunkLen is how many elements geluBwdChunks passes through its
// scratch at a time.
const geluBwdChunkLen = 512

// geluBwdChunks is GeluBackwardF32 as the elementwise kernels in use, a
// chunk at a time through two L1-resident scratch buffers.
func geluBwdChunks(dst, g, x []float32) {
	var buf [2][geluBwdChunkLen]float32
	for i := 0; i < len(dst); i += geluBwdChunkLen {
		j := min(i+geluBwdChunkLen, len(dst))
		d, gi, xi, t, u := dst[i:j], g[i:j], x[i:j], buf[0][:j-i], buf[1][:j-i]
		MulScalarF32(t, xi, geluSqrt1_2)
		ErfF32(t, t)
		AddScalarF32(t, t, 1)
		MulScalarF32(t, t, 0.5) // cdf
		MulF32(u, xi, xi)
		MulScalarF32(u, u, -0.5)
		ExpF32(u, u)
		MulScalarF32(u, u, geluAlpha) // pdf
		MulF32(u, xi, u)
		AddF32(t, t, u)
		MulF32(d, gi, t)
	}
}
