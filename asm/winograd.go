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

// WinoTiles places the up to 16 tiles a transform takes, in four
// quarters of up to four tiles side by side: quarter q's tiles are lanes
// 4q … 4q+Tiles[q]-1, tile 4q+i's first column Off[q] + 4i of its first
// row. The tiles' columns of v (and m) follow each other, quarter after
// quarter, with no gaps: a row of 7 tiles can fill quarters 0, 1 and the
// next row quarters 2, 3 (14 columns).
type WinoTiles struct {
	Tiles  [4]int   // the tiles of each quarter, 0 to 4
	Off    [4]int   // each quarter's corner in x (y); may lie outside, where nothing is read
	Rows   [4]uint8 // each quarter's rows in the image: 6 bits of input rows, 4 of output
	Lo, Hi [4]int   // each quarter's columns in the image, from its corner: Lo ≤ col < Hi (Lo 0 for the output)
}

// WinogradInF32 sets, for ξ < 36, c < n and each tile (quarter q, i <
// Tiles[q], column t of v: the tiles of the quarters before it, then i),
//
//	v[ξ·ldp + c·ldc + t] = (Bᵀ·d·B)[ξ/6][ξ%6],  d[r][j] = x[Off[q] + c·cs + r·ldx + 4i + j]
//
// for the rows r of Rows[q] and the columns Lo[q] ≤ 4i + j < Hi[q], 0
// elsewhere (the padding around an image: those positions are not read).
// It panics if a read position or a write falls outside x or v.
func WinogradInF32(v []float32, ldp, ldc int, x []float32, cs, ldx, n int, tl *WinoTiles) {
	lanes := tl.count()
	if n < 0 || cs < 0 || ldx < 0 || ldc < lanes || ldp < 0 {
		panic(fmt.Sprintf("asm.WinogradInF32: %d channels %d apart, rows %d apart, %d tiles into rows of %d", n, cs, ldx, lanes, ldc))
	}
	if n == 0 || lanes == 0 {
		return
	}
	checkPlanes("WinogradInF32", "a v", len(v), ldp, ldc, n, lanes)
	var k winoKernelArgs
	for q := range 4 {
		k.offs[q], k.offs[4+q] = 4*tl.Off[q], 4*(tl.Off[q]+4)
		first, last := -1, -1
		for r := range 6 {
			if tl.Rows[q]>>r&1 == 0 {
				continue
			}
			for b := range 16 {
				for h, col := range [2]int{b, b + 4} { // loads q and 4+q
					if col >= tl.Lo[q] && col < tl.Hi[q] && col < 4*tl.Tiles[q]+2 {
						k.masks[8*r+4*h+q] |= 1 << b
						o := r*ldx + col
						if first < 0 || o < first {
							first = o
						}
						last = max(last, o)
					}
				}
			}
		}
		if first >= 0 && (tl.Off[q]+first < 0 || tl.Off[q]+(n-1)*cs+last >= len(x)) {
			panic(fmt.Sprintf("asm.WinogradInF32: %d tiles at %d of %d channels %d apart, rows %d apart, read outside an x of %d", tl.Tiles[q], tl.Off[q], n, cs, ldx, len(x)))
		}
	}
	k.setLanes(tl)
	winoInRun(v, ldp, ldc, x, cs, ldx, n, &k)
}

// WinogradOutF32 sets, for c < n, each tile (quarter q, i < Tiles[q],
// column t of m as in WinogradInF32) and the rows r < 4 of Rows[q] and
// columns 4i + j < Hi[q] (j < 4),
//
//	y[Off[q] + c·cs + r·ldy + 4i + j] = (Aᵀ·M·A)[r][j] (+ bias[c]),  M[ξ/6][ξ%6] = m[ξ·ldp + c·ldc + t]
//
// bias added last when it is not nil; the other positions are not
// written. It reports whether every one of the tiles' 16·n outputs,
// written or not, is finite: an infinity or NaN in a tile's input spreads
// over the whole transformed tile, so that the caller can compute the
// convolution again exactly. It panics if a read or a written position
// falls outside m, bias or y.
func WinogradOutF32(y []float32, cs, ldy int, m []float32, ldp, ldc, n int, bias []float32, tl *WinoTiles) bool {
	lanes := tl.count()
	if n < 0 || cs < 0 || ldy < 0 || ldc < lanes || ldp < 0 || (bias != nil && len(bias) < n) {
		panic(fmt.Sprintf("asm.WinogradOutF32: %d channels %d apart, rows %d apart, %d tiles from rows of %d, %d biases", n, cs, ldy, lanes, ldc, len(bias)))
	}
	if n == 0 || lanes == 0 {
		return true
	}
	checkPlanes("WinogradOutF32", "an m", len(m), ldp, ldc, n, lanes)
	k := outArgs(tl, ldy, n, cs, len(y), "WinogradOutF32", "write")
	return winoOutRun(y, cs, ldy, m, ldp, ldc, n, bias, &k)
}

// WinogradGradF32 sets, for ξ < 36, c < n and each tile (quarter q, i <
// Tiles[q], column t of v as in WinogradInF32),
//
//	v[ξ·ldp + c·ldc + t] = (A·d·Aᵀ)[ξ/6][ξ%6],  d[r][j] = y[Off[q] + c·cs + r·ldy + 4i + j]
//
// for the rows r < 4 of Rows[q] and the columns 4i + j < Hi[q] (j < 4), 0
// elsewhere: the transform of a 4×4 tile of an output gradient, whose
// products with the transformed input tiles sum to the transformed weight
// gradient (A is Aᵀ transposed; the rows transformed first, then the
// columns, as winoAt computes them). It panics if a read position or a
// write falls outside y or v.
func WinogradGradF32(v []float32, ldp, ldc int, y []float32, cs, ldy, n int, tl *WinoTiles) {
	lanes := tl.count()
	if n < 0 || cs < 0 || ldy < 0 || ldc < lanes || ldp < 0 {
		panic(fmt.Sprintf("asm.WinogradGradF32: %d channels %d apart, rows %d apart, %d tiles into rows of %d", n, cs, ldy, lanes, ldc))
	}
	if n == 0 || lanes == 0 {
		return
	}
	checkPlanes("WinogradGradF32", "a v", len(v), ldp, ldc, n, lanes)
	k := outArgs(tl, ldy, n, cs, len(y), "WinogradGradF32", "read")
	winoGradRun(v, ldp, ldc, y, cs, ldy, n, &k)
}

// outArgs is the kernel arguments of a transform reading or writing the
// 4×4 tiles of tl in y; it panics (naming op and what it does) if a
// position falls outside y's ny elements.
func outArgs(tl *WinoTiles, ldy, n, cs, ny int, op, does string) (k winoKernelArgs) {
	for q := range 4 {
		k.offs[q] = 4 * tl.Off[q]
		first, last := -1, -1
		for r := range 4 {
			if tl.Rows[q]>>r&1 == 0 {
				continue
			}
			for b := range 16 {
				if b < tl.Hi[q] && b < 4*tl.Tiles[q] {
					k.masks[4*r+q] |= 1 << b
					o := r*ldy + b
					if first < 0 || o < first {
						first = o
					}
					last = max(last, o)
				}
			}
		}
		if first >= 0 && (tl.Off[q]+first < 0 || tl.Off[q]+(n-1)*cs+last >= ny) {
			panic(fmt.Sprintf("asm.%s: %d tiles at %d of %d channels %d apart, rows %d apart, %s outside a y of %d", op, tl.Tiles[q], tl.Off[q], n, cs, ldy, does, ny))
		}
	}
	k.setLanes(tl)
	return k
}

// count is the number of tiles; it panics unless each quarter has 0 to 4.
func (tl *WinoTiles) count() int {
	n := 0
	for _, t := range tl.Tiles {
		if t < 0 || t > 4 {
			panic(fmt.Sprintf("asm.WinoTiles: quarters of %v tiles (0 to 4 each)", tl.Tiles))
		}
		n += t
	}
	return n
}

// winoKernelArgs is what the kernels read of a WinoTiles: the byte offset
// of each load (input: 16 columns of quarter q from its corner, q < 4, and
// from its fifth column, 4+q) or store (output, q < 4), the masks of the
// columns in the image of each row's loads (8 a row) or stores (4 a row),
// and the lanes of the tiles (lanes) and of as many columns (packed).
type winoKernelArgs struct {
	offs          [8]int
	masks         [48]uint16
	lanes, packed uint16
}

func (k *winoKernelArgs) setLanes(tl *WinoTiles) {
	n := 0
	for q, t := range tl.Tiles {
		k.lanes |= (1<<t - 1) << (4 * q)
		n += t
	}
	k.packed = 1<<n - 1
}

// checkPlanes panics unless 36 planes ldp apart, each of n rows of lanes
// tiles ldc apart, fit the slice (of length size) a transform reads or
// writes them in.
func checkPlanes(name, what string, size, ldp, ldc, n, lanes int) {
	if 35*ldp+(n-1)*ldc+lanes > size {
		panic(fmt.Sprintf("asm.%s: 36 planes %d apart of %d rows of %d, %d apart, do not fit %s of %d", name, ldp, n, lanes, ldc, what, size))
	}
}
