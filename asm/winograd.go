package asm

import "fmt"

// The transforms of a Winograd convolution F(4×4, 3×3) (device/cpu's
// conv_winograd.go): a 6×6 tile of input becomes 36 values V = Bᵀ·d·B
// per channel, 36 products of the transformed weights by the transformed
// tiles are the GEMM's, and their 6×6 results M become a 4×4 tile of
// output Y = Aᵀ·M·A. Both transforms take a row of up to 16 tiles side by
// side (4 columns apart, overlapping by 2), one tile per lane: the inputs
// of a tile row are read as whole rows of the image and dealt into the
// tiles' columns by permutes, the outputs dealt back into whole rows. The
// ξ-th value of tile t of channel c is v[ξ·ldp + c·ldc + t].
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
// assembly kernel on this CPU (AVX-512, whose masked loads and two-table
// permutes deal rows into tiles); elsewhere they run their pure-Go twins,
// slower than the GEMM a convolution would use instead.
func WinogradFast() bool { return winoAsm }

// WinogradInF32 sets, for ξ < 36, c < n and t < lanes (at most 16),
//
//	v[ξ·ldp + c·ldc + t] = (Bᵀ·d_ct·B)[ξ/6][ξ%6],  d_ct[i][j] = x[xoff + c·cs + i·ldx + 4t + j]
//
// for the rows i whose bit is set in rows and the columns lo ≤ 4t + j <
// hi, 0 elsewhere (the padding around an image: those positions are not
// read, and xoff may be negative). It panics if a read position or a write
// falls outside x or v.
func WinogradInF32(v []float32, ldp, ldc int, x []float32, xoff, cs, ldx, n int, rows uint8, lo, hi, lanes int) {
	if n < 0 || cs < 0 || ldx < 0 || lanes < 0 || lanes > 16 || ldc < lanes || ldp < 0 {
		panic(fmt.Sprintf("asm.WinogradInF32: %d channels %d apart, rows %d apart, %d lanes into rows of %d", n, cs, ldx, lanes, ldc))
	}
	if n == 0 || lanes == 0 {
		return
	}
	if 35*ldp+(n-1)*ldc+lanes > len(v) {
		panic(fmt.Sprintf("asm.WinogradInF32: 36 planes %d apart of %d rows of %d, %d apart, do not fit a v of %d", ldp, n, lanes, ldc, len(v)))
	}
	var masks [48]uint16
	first, last := -1, -1
	for i := range 6 {
		if rows>>i&1 == 0 {
			continue
		}
		for k := range 8 {
			// Load k of a row: columns 16k … (k < 4), 16(k-4)+4 … (k ≥ 4).
			s := 16*(k%4) + 4*(k/4)
			for l := range 16 {
				if c := s + l; c >= lo && c < hi && c < 4*lanes+2 {
					masks[8*i+k] |= 1 << l
					o := i*ldx + c
					if first < 0 || o < first {
						first = o
					}
					last = max(last, o)
				}
			}
		}
	}
	if first >= 0 && (xoff+first < 0 || xoff+(n-1)*cs+last >= len(x)) {
		panic(fmt.Sprintf("asm.WinogradInF32: %d tiles at %d of %d channels %d apart, rows %d apart, read outside an x of %d", lanes, xoff, n, cs, ldx, len(x)))
	}
	winoInRun(v, ldp, ldc, x, xoff, cs, ldx, n, &masks, lanes)
}

// WinogradOutF32 sets, for c < n, t < lanes (at most 16), the rows i < 4
// whose bit is set in rows and the columns 4t + j < hi (j < 4),
//
//	y[yoff + c·cs + i·ldy + 4t + j] = (Aᵀ·M_ct·A)[i][j] (+ bias[c]),  M_ct[ξ/6][ξ%6] = m[ξ·ldp + c·ldc + t]
//
// bias added last when it is not nil; the other positions are not
// written. It reports whether every one of the 16·lanes·n outputs,
// written or not, is finite: an infinity or NaN in a tile's input spreads
// over the whole transformed tile, so that the caller can compute the
// convolution again exactly. It panics if a read or a written position
// falls outside m, bias or y.
func WinogradOutF32(y []float32, yoff, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, rows uint8, hi, lanes int) bool {
	if n < 0 || cs < 0 || ldy < 0 || lanes < 0 || lanes > 16 || ldc < lanes || ldp < 0 || (bias != nil && len(bias) < n) {
		panic(fmt.Sprintf("asm.WinogradOutF32: %d channels %d apart, rows %d apart, %d lanes from rows of %d, %d biases", n, cs, ldy, lanes, ldc, len(bias)))
	}
	if n == 0 || lanes == 0 {
		return true
	}
	if 35*ldp+(n-1)*ldc+lanes > len(m) {
		panic(fmt.Sprintf("asm.WinogradOutF32: 36 planes %d apart of %d rows of %d, %d apart, do not fit an m of %d", ldp, n, lanes, ldc, len(m)))
	}
	var masks [16]uint16
	first, last := -1, -1
	for i := range 4 {
		if rows>>i&1 == 0 {
			continue
		}
		for q := range 4 {
			for l := range 16 {
				if c := 16*q + l; c < hi && c < 4*lanes {
					masks[4*i+q] |= 1 << l
					o := i*ldy + c
					if first < 0 || o < first {
						first = o
					}
					last = max(last, o)
				}
			}
		}
	}
	if first >= 0 && (yoff+first < 0 || yoff+(n-1)*cs+last >= len(y)) {
		panic(fmt.Sprintf("asm.WinogradOutF32: %d tiles at %d of %d channels %d apart, rows %d apart, write outside a y of %d", lanes, yoff, n, cs, ldy, len(y)))
	}
	return winoOutRun(y, yoff, cs, ldy, m, ldp, ldc, n, bias, &masks, lanes)
}
