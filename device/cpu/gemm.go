package cpu

import (
	"runtime"

	"github.com/goaten/goaten/internal/parallel"
)

// A blocked GEMM over plain slices, shaped the GotoBLAS way so that an
// assembly micro-kernel can later replace gemmMicro: C (row-major) is
// updated with alpha·A·B, where A and B are strided views read through
// packed panels. float32 accumulates in float32 (as MKL/OpenBLAS sgemm do),
// float64 in float64, int64 exactly with wrap-around.

type gemmNum interface{ ~float32 | ~float64 | ~int64 }

// gmat is a strided matrix in a slice: element (i, j) is data[off+i*rs+j*cs].
type gmat[T gemmNum] struct {
	data        []T
	off, rs, cs int
}

func (a gmat[T]) at(i, j int) T { return a.data[a.off+i*a.rs+j*a.cs] }

// sub returns the view starting at row i, column j.
func (a gmat[T]) sub(i, j int) gmat[T] {
	a.off += i*a.rs + j*a.cs
	return a
}

// t returns the transposed view.
func (a gmat[T]) t() gmat[T] {
	a.rs, a.cs = a.cs, a.rs
	return a
}

const (
	gemmMR = 4    // micro-tile rows
	gemmNR = 4    // micro-tile columns
	gemmKC = 256  // depth of a packed block
	gemmMC = 128  // rows of a packed A block
	gemmNC = 2048 // columns of a packed B block

	gemmSmall    = 24 * 24 * 24 // below this many multiply-adds, no packing
	gemmParallel = 1 << 20      // from this many multiply-adds, use every core
	// gemmWake is the assembly GEMM's threshold for sharing one product
	// (asm's parallelMin, about 50 µs of work): below it a batch of
	// products asks only spinning helpers (parallel.ForSmall).
	gemmWake = 160 * 160 * 160
)

// gemm adds alpha·A·B to the m×n row-major matrix c (leading dimension ldc),
// where A is m×k and B is k×n. It uses every core on large products.
func gemm[T gemmNum](m, n, k int, alpha T, a, b gmat[T], c []T, ldc int) {
	if m == 0 || n == 0 || k == 0 {
		return
	}
	if gemmBLAS(m, n, k, alpha, a, b, c, ldc) {
		return // the SIMD kernels, parallel on large products
	}
	w := runtime.GOMAXPROCS(0)
	if w == 1 || m*n*k < gemmParallel {
		gemmSerial(m, n, k, alpha, a, b, c, ldc)
		return
	}
	// Split the longer side of C into one chunk per worker.
	if m >= n {
		chunk := roundUp((m+w-1)/w, gemmMR)
		parallel.For((m+chunk-1)/chunk, func(i int) {
			i0 := i * chunk
			gemmSerial(min(chunk, m-i0), n, k, alpha, a.sub(i0, 0), b, c[i0*ldc:], ldc)
		})
		return
	}
	chunk := roundUp((n+w-1)/w, gemmNR)
	parallel.For((n+chunk-1)/chunk, func(j int) {
		j0 := j * chunk
		gemmSerial(m, min(chunk, n-j0), k, alpha, a, b.sub(0, j0), c[j0:], ldc)
	})
}

func roundUp(x, m int) int { return (x + m - 1) / m * m }

// gemmBatched runs bs independent products C += alpha·A·B; A, B and C
// advance by their batch strides (sa, sb and m·n for C). Many small products
// run in parallel across the batch. With over, C's prior contents are
// ignored: each batch's C is written whole, by the assembly GEMM with
// beta = 0 or cleared by the goroutine that then adds into it (the bits of
// a zeroed C either way).
func gemmBatched[T gemmNum](bs, m, n, k int, alpha T, a gmat[T], sa int, b gmat[T], sb int, c []T, over bool) {
	if bs == 0 || m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if over {
			clear(c[:bs*m*n])
		}
		return
	}
	g := batch[T]{m, n, k, alpha, a, sa, b, sb, c, over}
	w := runtime.GOMAXPROCS(0)
	switch {
	case w == 1 || bs*m*n*k < gemmParallel:
		for i := range bs {
			g.run(i, true)
		}
	case bs >= w:
		// Each product is one index, taken by whichever goroutine is free
		// (not a fixed share per goroutine): on a machine whose other core
		// is busy the caller does the products a late helper would have.
		// A batch under gemmWake multiply-adds in all (tens of µs) asks only
		// a helper that is still spinning: waking a parked one costs more.
		// (The goroutines' closure takes its own copy of g to the heap, so
		// that the serial cases allocate nothing.)
		gp := g
		if bs*m*n*k < gemmWake {
			parallel.ForSmall(bs, func(i int) { gp.run(i, true) })
		} else {
			parallel.For(bs, func(i int) { gp.run(i, true) })
		}
	default:
		for i := range bs {
			g.run(i, false)
		}
	}
}

// batch is one gemmBatched call: product i reads a and b from i·sa and
// i·sb on and writes c[i·m·n:(i+1)·m·n].
type batch[T gemmNum] struct {
	m, n, k int
	alpha   T
	a       gmat[T]
	sa      int
	b       gmat[T]
	sb      int
	c       []T
	over    bool
}

// run computes product i, on this goroutine alone when serial is set.
func (g *batch[T]) run(i int, serial bool) {
	m, n := g.m, g.n
	ai, bi := g.a, g.b
	ai.off += i * g.sa
	bi.off += i * g.sb
	ci := g.c[i*m*n : (i+1)*m*n]
	if g.over {
		if gemmBLASBeta(m, n, g.k, g.alpha, 0, ai, bi, ci, n) {
			return
		}
		clear(ci) // on the goroutine that then adds into it
	}
	if serial {
		gemmSerial(m, n, g.k, g.alpha, ai, bi, ci, n)
	} else {
		gemm(m, n, g.k, g.alpha, ai, bi, ci, n)
	}
}

// parallelFor runs f(0..n-1) on up to w of the pool's goroutines, each
// taking every w-th index.
func parallelFor(n, w int, f func(i int)) {
	w = min(w, n)
	parallel.For(w, func(t int) {
		for i := t; i < n; i += w {
			f(i)
		}
	})
}

// gemmSerial is gemm on the calling goroutine.
func gemmSerial[T gemmNum](m, n, k int, alpha T, a, b gmat[T], c []T, ldc int) {
	if gemmBLAS(m, n, k, alpha, a, b, c, ldc) {
		return
	}
	if m*n*k <= gemmSmall {
		gemmDirect(m, n, k, alpha, a, b, c, ldc)
		return
	}
	kcMax := min(k, gemmKC)
	bufA := make([]T, roundUp(min(m, gemmMC), gemmMR)*kcMax)
	bufB := make([]T, roundUp(min(n, gemmNC), gemmNR)*kcMax)
	var tile [gemmMR * gemmNR]T
	for j0 := 0; j0 < n; j0 += gemmNC {
		nc := min(gemmNC, n-j0)
		for p0 := 0; p0 < k; p0 += gemmKC {
			kc := min(gemmKC, k-p0)
			gemmPackB(bufB, b.sub(p0, j0), kc, nc)
			for i0 := 0; i0 < m; i0 += gemmMC {
				mc := min(gemmMC, m-i0)
				gemmPackA(bufA, a.sub(i0, p0), mc, kc)
				for jr := 0; jr < nc; jr += gemmNR {
					nr := min(gemmNR, nc-jr)
					bp := bufB[jr*kc : (jr+gemmNR)*kc]
					for ir := 0; ir < mc; ir += gemmMR {
						mr := min(gemmMR, mc-ir)
						ap := bufA[ir*kc : (ir+gemmMR)*kc]
						co := (i0+ir)*ldc + j0 + jr
						if mr == gemmMR && nr == gemmNR {
							gemmMicro(kc, ap, bp, c[co:], ldc, alpha)
							continue
						}
						clear(tile[:])
						gemmMicro(kc, ap, bp, tile[:], gemmNR, alpha)
						for i := range mr {
							for j := range nr {
								c[co+i*ldc+j] += tile[i*gemmNR+j]
							}
						}
					}
				}
			}
		}
	}
}

// gemmPackA copies the mc×kc block of a into row panels of gemmMR rows:
// panel by panel, column by column, zero-padded at the bottom edge.
func gemmPackA[T gemmNum](dst []T, a gmat[T], mc, kc int) {
	d := 0
	for ir := 0; ir < mc; ir += gemmMR {
		mr := min(gemmMR, mc-ir)
		for p := range kc {
			o := a.off + ir*a.rs + p*a.cs
			for i := range mr {
				dst[d+i] = a.data[o+i*a.rs]
			}
			for i := mr; i < gemmMR; i++ {
				dst[d+i] = 0
			}
			d += gemmMR
		}
	}
}

// gemmPackB copies the kc×nc block of b into column panels of gemmNR
// columns: panel by panel, row by row, zero-padded at the right edge.
func gemmPackB[T gemmNum](dst []T, b gmat[T], kc, nc int) {
	d := 0
	for jr := 0; jr < nc; jr += gemmNR {
		nr := min(gemmNR, nc-jr)
		for p := range kc {
			o := b.off + p*b.rs + jr*b.cs
			if b.cs == 1 && nr == gemmNR {
				copy(dst[d:d+gemmNR], b.data[o:o+gemmNR])
			} else {
				for j := range nr {
					dst[d+j] = b.data[o+j*b.cs]
				}
				for j := nr; j < gemmNR; j++ {
					dst[d+j] = 0
				}
			}
			d += gemmNR
		}
	}
}

// gemmMicro adds alpha·(packed A panel)·(packed B panel), a 4×4 tile, to c:
//
//	for p := range kc { for i := range 4 { for j := range 4 { acc[i][j] += a[p*4+i] * b[p*4+j] } } }
//	c[i*ldc+j] += alpha * acc[i][j]
func gemmMicro[T gemmNum](kc int, a, b []T, c []T, ldc int, alpha T) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 T
	a = a[:kc*4]
	b = b[:kc*4]
	for p := 0; p < len(a); p += 4 {
		ap := a[p : p+4 : p+4]
		bp := b[p : p+4 : p+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	r := c[0:4]
	r[0] += alpha * c00
	r[1] += alpha * c01
	r[2] += alpha * c02
	r[3] += alpha * c03
	r = c[ldc : ldc+4]
	r[0] += alpha * c10
	r[1] += alpha * c11
	r[2] += alpha * c12
	r[3] += alpha * c13
	r = c[2*ldc : 2*ldc+4]
	r[0] += alpha * c20
	r[1] += alpha * c21
	r[2] += alpha * c22
	r[3] += alpha * c23
	r = c[3*ldc : 3*ldc+4]
	r[0] += alpha * c30
	r[1] += alpha * c31
	r[2] += alpha * c32
	r[3] += alpha * c33
}

// gemmDirect is the unpacked product for small sizes: a dot product per
// element of C, accumulated in T.
func gemmDirect[T gemmNum](m, n, k int, alpha T, a, b gmat[T], c []T, ldc int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		ao := a.off + i*a.rs
		for j := range row {
			var acc T
			ai, bi := ao, b.off+j*b.cs
			for range k {
				acc += a.data[ai] * b.data[bi]
				ai += a.cs
				bi += b.rs
			}
			row[j] += alpha * acc
		}
	}
}
