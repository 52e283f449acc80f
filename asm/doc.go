// Package asm holds goaten's SIMD kernels: hand-written Go assembly for amd64
// (AVX2+FMA, and AVX-512 where the CPU has it) and arm64 (NEON), each with a pure-Go twin compiled on every
// platform. It works on plain slices, lengths and strides and knows nothing of
// tensors; device/cpu is its main user.
//
// The kernels: sgemm and dgemm (gemm.go); elementwise binary ops over
// float32/float64 slices with slice-by-scalar forms and the fused axpy
// (binary.go); unary float32 functions with documented ulp errors
// (unary.go); float64-accumulated sums, dot products, max/min with index
// and the softmax, log-softmax and layer-norm row kernels (reduce.go);
// float16/bfloat16 conversions (convert.go). The elementwise twins give the
// assembly's results bit for bit. On amd64 the streaming elementwise kernels
// write results of half the last-level cache and more with non-temporal
// stores (binary.go, streamBytes).
//
// The twins run when the CPU lacks a feature, on other architectures, when
// the package is built with -tags purego, or when the environment variable
// GOATEN_PUREGO=1 is set at start-up; GOATEN_NOAVX512=1 keeps an AVX-512
// machine on the AVX2 kernels. [Path] says which is active.
package asm
