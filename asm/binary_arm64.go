//go:build !purego

package asm

// The NEON binary kernels (binary_arm64.s): add, sub, mul and axpy, and
// maximum and minimum (integer compares of order keys); float32 and float64
// div (Markstein's quotient from a Newton reciprocal, divKernelsNEON and
// divKernelsNEON64 in div_arm64.go: Go's arm64 assembler has no vector
// FDIV). No binary op runs its twin.

//go:noescape
func addVV32(d, x, y []float32)

//go:noescape
func subVV32(d, x, y []float32)

//go:noescape
func mulVV32(d, x, y []float32)

//go:noescape
func addVS32(d, x []float32, s float32)

//go:noescape
func subVS32(d, x []float32, s float32)

//go:noescape
func mulVS32(d, x []float32, s float32)

//go:noescape
func subSV32(d []float32, s float32, y []float32)

//go:noescape
func axpy32(d []float32, a float32, x, y []float32)

//go:noescape
func maxVV32(d, x, y []float32)

//go:noescape
func minVV32(d, x, y []float32)

//go:noescape
func maxVS32(d, x []float32, s float32)

//go:noescape
func minVS32(d, x []float32, s float32)

//go:noescape
func maxSV32(d []float32, s float32, y []float32)

//go:noescape
func minSV32(d []float32, s float32, y []float32)

//go:noescape
func addVV64(d, x, y []float64)

//go:noescape
func subVV64(d, x, y []float64)

//go:noescape
func mulVV64(d, x, y []float64)

//go:noescape
func addVS64(d, x []float64, s float64)

//go:noescape
func subVS64(d, x []float64, s float64)

//go:noescape
func mulVS64(d, x []float64, s float64)

//go:noescape
func subSV64(d []float64, s float64, y []float64)

//go:noescape
func axpy64(d []float64, a float64, x, y []float64)

//go:noescape
func maxVV64(d, x, y []float64)

//go:noescape
func minVV64(d, x, y []float64)

//go:noescape
func maxVS64(d, x []float64, s float64)

//go:noescape
func minVS64(d, x []float64, s float64)

//go:noescape
func maxSV64(d []float64, s float64, y []float64)

//go:noescape
func minSV64(d []float64, s float64, y []float64)

func binKernels32() *binTable[float32] {
	if !useNEON {
		return &binGo32
	}
	t := binGo32
	t.vv[opAdd], t.vv[opSub], t.vv[opMul] = addVV32, subVV32, mulVV32
	t.vs[opAdd], t.vs[opSub], t.vs[opMul] = addVS32, subVS32, mulVS32
	t.sv[opSub], t.axpy = subSV32, axpy32
	t.vv[opMax], t.vv[opMin] = maxVV32, minVV32
	t.vs[opMax], t.vs[opMin] = maxVS32, minVS32
	t.sv[opMax], t.sv[opMin] = maxSV32, minSV32
	divKernelsNEON(&t)
	return &t
}

func binKernels64() *binTable[float64] {
	if !useNEON {
		return &binGo64
	}
	t := binGo64
	t.vv[opAdd], t.vv[opSub], t.vv[opMul] = addVV64, subVV64, mulVV64
	t.vs[opAdd], t.vs[opSub], t.vs[opMul] = addVS64, subVS64, mulVS64
	t.sv[opSub], t.axpy = subSV64, axpy64
	t.vv[opMax], t.vv[opMin] = maxVV64, minVV64
	t.vs[opMax], t.vs[opMin] = maxVS64, minVS64
	t.sv[opMax], t.sv[opMin] = maxSV64, minSV64
	divKernelsNEON64(&t)
	return &t
}
