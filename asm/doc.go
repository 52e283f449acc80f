// Package asm holds goaten's SIMD kernels: hand-written Go assembly for amd64
// (AVX2+FMA, and AVX-512 where the CPU has it) and arm64 (NEON), each with a pure-Go twin compiled on every
// platform. It works on plain slices, lengths and strides and knows nothing of
// tensors; device/cpu is its main user.
//
// The kernels: sgemm and dgemm (gemm.go); elementwise binary ops over
// float32/float64 slices with slice-by-scalar forms and the fused axpy, and
// float32 clamp, cube and the sigmoid and tanh backward in one pass
// (binary.go; on arm64 these run the NEON elementwise kernels a block at a
// time); addcmul, fma(v·t1, t2, x) with v·t1 rounded first
// (addcmul.go); unary float32 functions with documented ulp errors
// (unary.go); float64-accumulated sums, dot products, max/min with index
// and the softmax, log-softmax and layer-norm row kernels (reduce.go);
// float16/bfloat16 conversions (convert.go); the direct convolutions
// (conv.go: a depthwise plane; convsmall.go: a block of eight output
// channels and the weight gradient of nine taps; winograd.go: the input
// and output transforms of Winograd F(4×4, 3×3) convolutions; the last two
// AVX-512 only, device/cpu keeping the GEMM where they have no assembly). The elementwise twins give the
// assembly's results bit for bit. On amd64 the streaming elementwise kernels
// write results of half the last-level cache and more with non-temporal
// stores (binary.go, streamBytes).
//
// On arm64 Go's assembler has no vector float add, multiply, divide,
// square root, compare or conversion (and the style allows no raw
// encodings), so the NEON kernels build them from fused multiply-adds
// (VFMLA: x + 1·y, -0 + x·y, each rounded once as the plain operation) and
// integer operations: order keys for compares, minimum and maximum
// (floatkey_arm64.h), float32 widened to float64 by a shift and an exact
// multiply (and narrowed back by integer rounding), float16 rounded by
// integer arithmetic, quotients by Markstein's correction of a Newton
// reciprocal grown from an integer seed, square roots by Tuckerman's exact
// test. They run sgemm/dgemm, add/sub/mul and maximum/minimum (float32 and
// float64), addcmul, div (float32 and float64), the comparisons, where, threshold_backward,
// relu/abs/neg, exp/sigmoid/silu/tanh/log, gelu, sqrt/rsqrt/reciprocal,
// sin/cos, gelu_tanh and erf (in float64, as their twins), the reductions and row
// kernels, the float16/bfloat16 conversions and the depthwise convolution;
// a kernel that meets a value its trick cannot take (an Inf or NaN in a
// float64 sum, a divisor out of range, |x| ≥ 1e6 for sin) hands that vector
// or block to its twin or to the scalar instruction, so the results stay
// the twins'. Every kernel family but the small and Winograd convolutions
// runs NEON on arm64.
//
// The twins run when the CPU lacks a feature, on other architectures, when
// the package is built with -tags purego, or when the environment variable
// GOATEN_PUREGO=1 is set at start-up; GOATEN_NOAVX512=1 keeps an AVX-512
// machine on the AVX2 kernels. [Path] says which is active.
package asm
