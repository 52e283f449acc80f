// Package libm reproduces, bit for bit, the few math routines PyTorch's CPU
// random samplers call, so that goaten's streams equal PyTorch's:
//
//   - Log, Sin and Cos: glibc's double-precision log (2.28 and later: Arm's
//     table-driven algorithm) and sin/cos (the IBM Accurate Mathematical
//     Library without its slow paths), as the x86-64 multiarch build runs
//     them on a CPU with FMA: compiled with -mfma -mavx2 and GCC's default
//     floating-point contraction, so every a*b+c that GCC fuses is a
//     math.FMA here and every product it leaves alone is rounded on its own
//     (an explicit float64 conversion keeps Go from fusing it on arm64).
//     Go's math package rounds differently in about one case in ten; these
//     agree with glibc on every vector in testdata.
//   - LogF32x8 and SinCosF32x8: one lane of avx_mathfun.h's log256_ps and
//     sincos256_ps (Cephes polynomials in float32), which ATen's AVX2
//     normal_fill uses, with the contractions GCC applies to them.
//   - FMA32: a float32 fused multiply-add, correctly rounded.
//
// None of these is a general replacement for package math: they exist to
// reproduce another library's roundings.
package libm
