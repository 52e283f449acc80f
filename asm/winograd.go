package asm

import "fmt"

// The transforms of a Winograd convolution F(4×4, 3×3) (device/cpu's
// conv_winograd.go): a 6×6 tile of input becomes 36 values V = Bᵀ·d·B
// per channel, 36 products of the transformed weights by the transformed
// tiles are the GEMM's, and their 6×6 results M become a 4×4 tile of
// output Y = Aᵀ·M·A. Both transforms take a tile of every channel at
// once, a vector of channels at a time (one channel plane cs elements
// apart from the next), so that the GEMM's operands are rows of channels:
// the transformed tile's ξ-th value of channel c goes to v[ξ·ldv + c].
//
// With points 0, ±1, ±2 and ∞ (Lavin and Gray, 2015):
//
//	Bᵀ = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//	Aᵀ = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
//
// each applied as winoB and winoA compute it (the same operations, in the
// same order, in the assembly), the rows of a tile first, then its
// columns.

// winoUseAsm says whether the kernels in use are the assembly ones
// (winograd_amd64.go) or the twins (winograd_generic.go); tests switch it.
var winoUseAsm = winoAsm

// WinogradFast reports whether WinogradInF32 and WinogradOutF32 run an
// assembly kernel on this CPU (AVX-512, whose gathers and scatters take a
// vector of channels a plane apart); elsewhere they run their pure-Go
// twins, slower than the GEMM a convolution would use instead.
func WinogradFast() bool { return winoAsm }

// WinogradInF32 sets, for ξ < 36 and c < n,
//
//	v[ξ·ldv + c] = (Bᵀ·d_c·B)[ξ/6][ξ%6],  d_c[i][j] = x[xoff + c·cs + i·ldx + j]
//
// for the positions i·6 + j whose bit is set in valid, 0 for the others
// (the padding around an image: those positions are not read, and xoff
// may be negative). It panics if a read position or a write falls outside
// x or v.
func WinogradInF32(v []float32, ldv int, x []float32, xoff, cs, ldx, n int, valid uint64) {
	if n < 0 || cs < 0 || ldx < 0 || ldv < n {
		panic(fmt.Sprintf("asm.WinogradInF32: %d channels %d apart, rows %d apart, into rows of %d", n, cs, ldx, ldv))
	}
	if n == 0 {
		return
	}
	if 35*ldv+n > len(v) {
		panic(fmt.Sprintf("asm.WinogradInF32: 36 rows of %d, %d apart, do not fit a v of %d", n, ldv, len(v)))
	}
	valid &= 1<<36 - 1
	if valid != 0 {
		lo, hi := tileSpan(valid, 6, ldx)
		if xoff+lo < 0 || xoff+(n-1)*cs+hi >= len(x) {
			panic(fmt.Sprintf("asm.WinogradInF32: a tile at %d of %d channels %d apart, rows %d apart, reads outside an x of %d", xoff, n, cs, ldx, len(x)))
		}
	}
	winoInRun(v, ldv, x, xoff, cs, ldx, n, valid)
}

// WinogradOutF32 sets, for the positions i·4 + j (i, j < 4) whose bit is
// set in valid and c < n,
//
//	y[yoff + c·cs + i·ldy + j] = (Aᵀ·M_c·A)[i][j] (+ bias[c]),  M_c[ξ/6][ξ%6] = m[ξ·ldm + c]
//
// bias added last when it is not nil; the other positions are not
// written. It reports whether every one of the 16·n outputs, written or
// not, is finite: an infinity or NaN in a tile's input spreads over the
// whole transformed tile, so that the caller can compute the convolution
// again exactly. It panics if a read or a written position falls outside
// m, bias or y.
func WinogradOutF32(y []float32, yoff, cs, ldy int, m []float32, ldm, n int, bias []float32, valid uint16) bool {
	if n < 0 || cs < 0 || ldy < 0 || ldm < n || (bias != nil && len(bias) < n) {
		panic(fmt.Sprintf("asm.WinogradOutF32: %d channels %d apart, rows %d apart, from rows of %d, %d biases", n, cs, ldy, ldm, len(bias)))
	}
	if n == 0 {
		return true
	}
	if 35*ldm+n > len(m) {
		panic(fmt.Sprintf("asm.WinogradOutF32: 36 rows of %d, %d apart, do not fit an m of %d", n, ldm, len(m)))
	}
	if valid != 0 {
		lo, hi := tileSpan(uint64(valid), 4, ldy)
		if yoff+lo < 0 || yoff+(n-1)*cs+hi >= len(y) {
			panic(fmt.Sprintf("asm.WinogradOutF32: a tile at %d of %d channels %d apart, rows %d apart, writes outside a y of %d", yoff, n, cs, ldy, len(y)))
		}
	}
	return winoOutRun(y, yoff, cs, ldy, m, ldm, n, bias, valid)
}

// tileSpan is the lowest and highest offset i·ld + j of the positions
// i·size + j set in valid (not 0).
func tileSpan(valid uint64, size, ld int) (lo, hi int) {
	lo, hi = int(^uint(0)>>1), -1
	for k := range size * size {
		if valid>>k&1 != 0 {
			o := k/size*ld + k%size
			lo, hi = min(lo, o), max(hi, o)
		}
	}
	return lo, hi
}
