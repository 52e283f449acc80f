package asm

import (
	"slices"

	"github.com/goaten/goaten/internal/parallel"
)

// Sgemv is Sgemm for products of a few rows (m ≤ 4 or so: one decoder step's
// x·W): it reads op(B) in place, once per block of columns, with no packing.
// A GEMM packs all of B before its micro-kernel runs, which for one row
// reads B twice and writes it once; here each element of B is read once
// (a block of columns is reread from L2 for each further row of A).
//
// Each C[i][j] is a sum over k in its own order, not the GEMM's: with B
// row-major (transB false) one fused multiply-add per step, in order,
// from 0, B's rows streamed through a block of columns (gemvNGo); with B transposed (an nn.Linear weight, n×k) each
// row of B streams through 32 lanes, added into eight, which are folded
// pairwise, then the last steps in order (gemvTLanesGo, gemvFold). Then C[i][j] = alpha·sum, or beta·C[i][j]
// + alpha·sum when beta is not 0. The arguments and the rest of the
// semantics are Sgemm's; columns split across goroutines when B is large,
// with the same bits on any number of them.
func Sgemv(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("Sgemv", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	// The rows of op(A), each k contiguous elements (on the stack for a
	// few rows).
	var rowBuf [4][]float32
	rows := rowBuf[:0]
	if m > len(rowBuf) {
		rows = make([][]float32, 0, m)
	}
	if transA {
		x := make([]float32, m*k)
		for i := range m {
			for p := range k {
				x[i*k+p] = a[p*lda+i]
			}
			rows = append(rows, x[i*k:i*k+k])
		}
	} else {
		for i := range m {
			rows = append(rows, a[i*lda:i*lda+k])
		}
	}
	// A piece streams at least 1 MiB of B: less is over before a second
	// goroutine has started.
	grain := max(64, (1<<18)/k)
	if parallel.Pieces(n, grain) > 1 {
		// The goroutines' closures take g to the heap: a copy of the rows
		// goes with it.
		g := &gemvArgs{rows: slices.Clone(rows), b: b, ldb: ldb, alpha: alpha, beta: beta, c: c, ldc: ldc}
		if transB {
			parallel.Range(n, grain, 1, g.colsT)
		} else {
			parallel.Range(n, grain, 8, g.colsN)
		}
		return
	}
	g := gemvArgs{rows: rows, b: b, ldb: ldb, alpha: alpha, beta: beta, c: c, ldc: ldc}
	if transB {
		g.colsT(0, n)
	} else {
		g.colsN(0, n)
	}
}

// gemvArgs is one Sgemv: the rows of op(A), B as stored, and C.
type gemvArgs struct {
	rows        [][]float32
	b           []float32
	ldb         int
	alpha, beta float32
	c           []float32
	ldc         int
}

const (
	gemvBlockN = 4096 // columns of row-major B a block for one row of A: y in L1
	gemvBlockT = 64   // rows of transposed B a block
)

// colsN computes columns [lo, hi) of C for row-major B (k×n): for each
// block of columns, the kernel streams B's rows through it in order. With
// one row of A a block is as wide as fits L1, so each row of B is read in
// long runs; with more, narrow enough that the block (k rows of it) stays
// in L2 for the rows of A after the first.
func (g *gemvArgs) colsN(lo, hi int) {
	k := len(g.rows[0])
	if len(g.rows) == 1 && g.beta == 0 && hi-lo >= 8 {
		// C's row is the sums' buffer: B's rows stream through whole (a
		// wide B in 16 KiB pieces 200 KiB apart, as blocks would read it,
		// took a page walk a piece), C's row from L2.
		row := g.c[lo:hi]
		gemvNCols(row, g.rows[0], g.b[lo:(k-1)*g.ldb+hi], g.ldb)
		if g.alpha != 1 {
			for j, v := range row {
				row[j] = g.alpha * v
			}
		}
		return
	}
	var t [gemvBlockN]float32
	bw := gemvBlockN
	if len(g.rows) > 1 {
		bw = min(gemvBlockN, max(32, (1<<17)/k&^7))
	}
	for j0 := lo; j0 < hi; j0 += bw {
		w := min(bw, hi-j0)
		wb := g.b[j0 : (k-1)*g.ldb+j0+w]
		for i, x := range g.rows {
			if w < 8 {
				gemvNGo(t[:w], x, wb, g.ldb)
			} else {
				gemvNCols(t[:w], x, wb, g.ldb)
			}
			g.store(i, j0, t[:w])
		}
	}
}

// gemvNCols is gemvN for any len(y) ≥ 8: the kernel on the whole eights,
// then on the last eight columns again, the same bits where they overlap.
func gemvNCols(y, x, b []float32, ldb int) {
	w := len(y)
	gemvN(y[:w&^7], x, b, ldb)
	if r := w & 7; r != 0 {
		var l [8]float32
		gemvN(l[:], x, b[w-8:], ldb)
		copy(y[w-r:], l[8-r:])
	}
}

// colsT computes columns [lo, hi) of C for transposed B (n×k, row j of it
// is column j of op(B)).
func (g *gemvArgs) colsT(lo, hi int) {
	var lanes [gemvBlockT * 8]float32
	var t [gemvBlockT]float32
	k := len(g.rows[0])
	for j0 := lo; j0 < hi; j0 += gemvBlockT {
		w := min(gemvBlockT, hi-j0)
		wb := g.b[j0*g.ldb : (j0+w-1)*g.ldb+k]
		for i, x := range g.rows {
			gemvTLanes(lanes[:w*8], x, wb, g.ldb)
			for j := range w {
				t[j] = gemvFold(lanes[j*8:j*8+8], x, wb[j*g.ldb:j*g.ldb+k])
			}
			g.store(i, j0, t[:w])
		}
	}
}

// store sets C[i][j0+j] from the sums t[j]: alpha·t[j], plus beta·C[i][j0+j]
// unless beta is 0.
func (g *gemvArgs) store(i, j0 int, t []float32) {
	row := g.c[i*g.ldc+j0 : i*g.ldc+j0+len(t)]
	al, be := g.alpha, g.beta
	switch {
	case be == 0 && al == 1:
		copy(row, t)
	case be == 0:
		for j, v := range t {
			row[j] = al * v
		}
	default:
		for j, v := range t {
			cv := row[j]
			if be != 1 {
				cv *= be
			}
			row[j] = cv + float32(al*v) // the conversion keeps arm64 from fusing
		}
	}
}
