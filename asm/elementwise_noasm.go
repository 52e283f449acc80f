//go:build purego || !(amd64 || arm64)

package asm

// Without assembly the elementwise kernels are the pure-Go twins.

func binKernels32() *binTable[float32] { return &binGo32 }
func binKernels64() *binTable[float64] { return &binGo64 }

func unaryKernels() *[numUnaryOps]func(d, x []float32) { return &unaryGo }

func unaryStreamKernels() *[numUnaryOps]func(d, x []float32) { return nil }

func reduceKernels() *reduceTable { return &reduceGo }

func cvtKernels() *cvtTable { return &cvtGo }

func addcmulKernels() *addcmulTable { return &addcmulGo }

// fmaF32 is FMAF32's kernel: the twin.
func fmaF32(a, b, c float32) float32 { return fma32(a, b, c) }
