package asm

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goaten/goaten/internal/parallel"
)

// Sgemm computes C = alpha·op(A)·op(B) + beta·C on row-major float32
// matrices, with BLAS semantics: op(X) is X, or Xᵀ when trans is set; op(A)
// is m×k, op(B) is k×n and C is m×n; lda, ldb and ldc are the row strides of
// the matrices as stored (A is m×k, or k×m when transA). When beta is 0, C is
// not read (NaN in C is overwritten); when alpha is 0 or k is 0, A and B are
// not read. Misuse (negative sizes, short strides or slices) panics.
//
// Products above about 160³ multiply-adds run on GOMAXPROCS goroutines;
// smaller ones run on the caller's alone and allocate nothing. Sgemm is safe
// for concurrent use on disjoint C.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm("Sgemm", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	gemm(sgemmUse, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm is Sgemm for float64.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkGemm("Dgemm", transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	gemm(dgemmUse, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmPacked is Sgemm with op(B), k×n, supplied by pack instead of a
// matrix, for an operand that is never materialised (a convolution's
// im2col matrix, gathered straight from the image): the GEMM calls
// pack(dst, pc, jc, kc, w, nr) for each sliver of op(B) it needs, which
// must set dst[p*nr+j] = op(B)[pc+p, jc+j] for p < kc, j < w and to 0 for
// w ≤ j < nr (dst holds kc·nr elements; w ≤ nr). Calls may come from
// several goroutines at once, for different slivers. alpha, beta, A and C
// are as in Sgemm.
func SgemmPacked(transA bool, m, n, k int, alpha float32, a []float32, lda int, pack func(dst []float32, pc, jc, kc, w, nr int), beta float32, c []float32, ldc int) {
	checkGemm("SgemmPacked", transA, false, m, n, k, len(a), lda, -1, max(1, n), len(c), ldc)
	gemmPacked(sgemmUse, transA, m, n, k, alpha, a, lda, pack, beta, c, ldc)
}

// DgemmPacked is SgemmPacked for float64.
func DgemmPacked(transA bool, m, n, k int, alpha float64, a []float64, lda int, pack func(dst []float64, pc, jc, kc, w, nr int), beta float64, c []float64, ldc int) {
	checkGemm("DgemmPacked", transA, false, m, n, k, len(a), lda, -1, max(1, n), len(c), ldc)
	gemmPacked(dgemmUse, transA, m, n, k, alpha, a, lda, pack, beta, c, ldc)
}

// checkGemm panics unless the slices and strides hold the operands; nb < 0
// means B is not a matrix (SgemmPacked).
func checkGemm(name string, transA, transB bool, m, n, k, na, lda, nb, ldb, nc, ldc int) {
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("asm: %s: "+format, append([]any{name}, args...)...))
	}
	if m < 0 || n < 0 || k < 0 {
		fail("negative size m=%d n=%d k=%d", m, n, k)
	}
	// need is the length a rows×cols matrix with row stride ld takes.
	need := func(rows, cols, ld int) int {
		if rows == 0 || cols == 0 {
			return 0
		}
		return (rows-1)*ld + cols
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if lda < max(1, ac) {
		fail("lda=%d, expected at least %d", lda, max(1, ac))
	}
	if ldb < max(1, bc) {
		fail("ldb=%d, expected at least %d", ldb, max(1, bc))
	}
	if ldc < max(1, n) {
		fail("ldc=%d, expected at least %d", ldc, max(1, n))
	}
	if m == 0 || n == 0 {
		return
	}
	if k > 0 && na < need(ar, ac, lda) {
		fail("len(a)=%d, expected at least %d", na, need(ar, ac, lda))
	}
	if k > 0 && nb >= 0 && nb < need(br, bc, ldb) {
		fail("len(b)=%d, expected at least %d", nb, need(br, bc, ldb))
	}
	if nc < need(m, n, ldc) {
		fail("len(c)=%d, expected at least %d", nc, need(m, n, ldc))
	}
}

// blocking holds a GEMM's register tile (mr×nr, the micro-kernel's) and its
// cache blocks: a kc×nr sliver of packed B stays in L1 while the micro-kernel
// sweeps an mc×kc block of packed A held in L2; a kc×nc panel of packed B is
// shared through L3.
type blocking struct {
	mr, nr     int // micro-kernel tile
	kc, mc, nc int // depth, row and column cache blocks (mc a multiple of mr, nc of nr)
}

// l1Depth is the depth kc at which a sliver of packed B, rowBytes a step,
// fills two thirds of the L1 data cache (the rest is for the sliver of A
// streaming through): a multiple of 8 in [64, 512], 256 when L1 is unknown.
func l1Depth(rowBytes int) int {
	if l1d <= 0 {
		return 256
	}
	return min(512, max(64, l1d*2/3/rowBytes/8*8))
}

// l2Rows is the row block mc at which a block of packed A, kc deep with
// elemBytes elements, takes about 144 KiB of L2 (a quarter of Zen 3's,
// leaving room for C and the B panel streaming past): a multiple of mr.
func l2Rows(kc, elemBytes, mr int) int {
	return max(mr, (144<<10)/(kc*elemBytes)/mr*mr)
}

// gemmImpl is one micro-kernel with the blocking it is tuned for.
type gemmImpl[T float32 | float64] struct {
	name string
	ok   bool // this CPU runs it (and it is not switched off)
	bl   blocking
	kern kernel[T]
	// edge, when set, holds kernels for the first 4, 8, … rows of a tile
	// (edge[i] does 4(i+1) rows; A's steps stay mr apart): the bottom edge
	// of C computes only the rows it has.
	edge []kernel[T]
	// set and setEdge, when set, are kern and edge storing the sums into
	// C instead of adding them (C not read): the first depth block of a
	// product with beta = 0, which would otherwise clear each tile first.
	set     kernel[T]
	setEdge []kernel[T]
}

// available keeps the impls whose ok is set, in order.
func available[T float32 | float64](impls ...gemmImpl[T]) []gemmImpl[T] {
	var out []gemmImpl[T]
	for _, im := range impls {
		if im.ok {
			out = append(out, im)
		}
	}
	return out
}

// The implementations Sgemm and Dgemm run: the first, best, of each list.
var (
	sgemmUse = &sgemmImpls[0]
	dgemmUse = &dgemmImpls[0]
)

// kernel is a micro-kernel: for i < mr, j < nr it adds Σₚ a[p·mr+i]·b[p·nr+j]
// over p < k to c[i·ldc+j]. a and b are packed panels; c is read and written.
type kernel[T float32 | float64] func(k int, a, b, c []T, ldc int)

// parallelMin is the smallest m·n·k split across goroutines: below it
// (about 50 µs of work on one Zen 5 core with AVX-512) waking a second
// thread costs more than it gives back; measured 128³ ran slower on two.
var parallelMin = 160 * 160 * 160

// gemm is the blocked driver behind Sgemm and Dgemm; arguments are checked.
func gemm[T float32 | float64](im *gemmImpl[T], transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	g := gemmArgs[T]{bl: &im.bl, kern: im.kern, edge: im.edge, set: im.set, setEdge: im.setEdge, transA: transA, transB: transB, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: ldc}
	g.product(m, n, beta)
}

// gemmPacked is the driver behind SgemmPacked and DgemmPacked.
func gemmPacked[T float32 | float64](im *gemmImpl[T], transA bool, m, n, k int, alpha T, a []T, lda int, pack func(dst []T, pc, jc, kc, w, nr int), beta T, c []T, ldc int) {
	g := gemmArgs[T]{bl: &im.bl, kern: im.kern, edge: im.edge, set: im.set, setEdge: im.setEdge, transA: transA, k: k, alpha: alpha, a: a, lda: lda, packer: pack, c: c, ldc: ldc}
	g.product(m, n, beta)
}

// product computes C = alpha·op(A)·op(B) + beta·C for the m×n C of g, in
// parallel when it is large.
func (g gemmArgs[T]) product(m, n int, beta T) {
	if m == 0 || n == 0 {
		return
	}
	if g.alpha == 0 || g.k == 0 {
		scaleC(m, n, beta, g.c, g.ldc)
		return
	}
	if beta == 0 {
		g.zeroC = true // the first depth block writes C instead of adding to it
	} else {
		scaleC(m, n, beta, g.c, g.ldc)
	}
	bl, k := g.bl, g.k
	p := parallel.Workers()
	if p == 1 || m*n*k < parallelMin {
		g.run(0, m, 0, n)
		return
	}
	// gp is a copy, so that only the parallel path moves it to the heap.
	gp := g
	if m >= 2*p*bl.mr && m > bl.mc {
		gp.team(p, m, n)
		return
	}
	// Too few rows to share, or rows that fit one block of A (for which run
	// packs each sliver of B just in time): split n into p strips of whole
	// tiles; each worker packs its strip of B and all of the (short) A.
	if n >= m {
		step := ceilTo((n+p-1)/p, bl.nr)
		parallel.For((n+step-1)/step, func(i int) {
			gp.run(0, m, i*step, min(n, (i+1)*step))
		})
	} else {
		step := ceilTo((m+p-1)/p, bl.mr)
		parallel.For((m+step-1)/step, func(i int) {
			gp.run(i*step, min(m, (i+1)*step), 0, n)
		})
	}
}

func ceilTo(x, q int) int { return (x + q - 1) / q * q }

// depthBlock cuts k into blocks of equal size at most kc: k = 257 is two
// blocks of 129 and 128, not 256 and a 1-deep block that spends its time on C.
func depthBlock(k, kc int) int {
	nb := (k + kc - 1) / kc
	return (k + nb - 1) / nb
}

// scaleC sets C = beta·C; beta 0 writes zeros without reading C.
func scaleC[T float32 | float64](m, n int, beta T, c []T, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// gemmArgs is one checked product; run computes a block of C from it.
type gemmArgs[T float32 | float64] struct {
	bl             *blocking
	kern           kernel[T]
	edge           []kernel[T] // see gemmImpl
	set            kernel[T]   // see gemmImpl
	setEdge        []kernel[T] // see gemmImpl
	transA, transB bool
	k              int
	alpha          T
	a              []T
	lda            int
	b              []T
	ldb            int
	packer         func(dst []T, pc, jc, kc, w, nr int) // packs op(B) instead of b (SgemmPacked)
	c              []T
	ldc            int
	zeroC          bool // beta = 0: each tile's first depth block clears it first (C is not read)
}

// packUnits is the number of units packPart divides the kc×nc panel of
// op(B) into (see packBUnits): slivers when a packer supplies B.
func (g *gemmArgs[T]) packUnits(kc, nc int) int {
	if g.packer != nil {
		return (nc + g.bl.nr - 1) / g.bl.nr
	}
	return packBUnits(g.transB, kc, nc, g.bl.nr)
}

// packPart packs the units first, first+step, … of the panel of op(B) at
// (pc, jc) into dst, from b or through the packer.
func (g *gemmArgs[T]) packPart(dst []T, pc, jc, kc, nc, first, step int) {
	nr := g.bl.nr
	if g.packer == nil {
		packBPart(dst, g.transB, g.b, g.ldb, pc, jc, kc, nc, nr, first, step)
		return
	}
	for jr := first * nr; jr < nc; jr += step * nr {
		g.packer(dst[jr*kc:(jr+nr)*kc], pc, jc+jr, kc, min(nr, nc-jr), nr)
	}
}

// run adds alpha·op(A)·op(B) to rows [m0,m1) and columns [n0,n1) of C, one
// goroutine's share: the five loops of Goto's algorithm around the kernel.
func (g *gemmArgs[T]) run(m0, m1, n0, n1 int) {
	bl := g.bl
	m, n, k := m1-m0, n1-n0, g.k
	kcMax := depthBlock(k, bl.kc)
	mcMax := min(bl.mc, ceilTo(m, bl.mr))
	ncMax := min(bl.nc, ceilTo(n, bl.nr))
	if m <= bl.mc {
		// One block of A: each sliver of B is used once, so it is packed
		// just before its use and read from L1, not packed panel-wide
		// first and read back from L3.
		w := getWork[T](mcMax*kcMax, kcMax*bl.nr, bl.mr*bl.nr)
		defer putWork(w)
		for pc := 0; pc < k; pc += kcMax {
			kc := min(kcMax, k-pc)
			packA(w.a, g.transA, g.a, g.lda, m0, pc, m, kc, bl.mr, g.alpha)
			for jr := n0; jr < n1; jr += bl.nr {
				nrr := min(bl.nr, n1-jr)
				g.packPart(w.b, pc, jr, kc, nrr, 0, 1)
				g.macro(w, w.b, m0, jr, m, nrr, kc, pc == 0)
			}
		}
		return
	}
	w := getWork[T](mcMax*kcMax, kcMax*ncMax, bl.mr*bl.nr)
	defer putWork(w)
	for jc := n0; jc < n1; jc += bl.nc {
		nc := min(bl.nc, n1-jc)
		for pc := 0; pc < k; pc += kcMax {
			kc := min(kcMax, k-pc)
			g.packPart(w.b, pc, jc, kc, nc, 0, 1)
			for ic := m0; ic < m1; ic += bl.mc {
				mc := min(bl.mc, m1-ic)
				packA(w.a, g.transA, g.a, g.lda, ic, pc, mc, kc, bl.mr, g.alpha)
				g.macro(w, w.b, ic, jc, mc, nc, kc, pc == 0)
			}
		}
	}
}

// team computes the whole product on p goroutines that share each packed
// panel of B and take work as they go, so a goroutine whose core is busy
// with something else holds the others up as little as possible. For each
// (column block, depth block) step:
//
//  1. wait until every goroutine is done with step-2, whose buffer this
//     step reuses (two buffers let fast goroutines pack ahead);
//  2. claim units of the B panel (packBUnits) one at a time and pack them;
//  3. wait until the whole panel is packed;
//  4. claim blocks of rows one at a time; wait until the same block of the
//     previous depth step (which adds into the same rows of C) is done;
//     pack that block of A into its own buffer, run it against the whole
//     panel and mark it done;
//  5. count itself done with the step.
func (g *gemmArgs[T]) team(p, m, n int) {
	bl := g.bl
	k := g.k
	kcMax := depthBlock(k, bl.kc)
	ncMax := min(bl.nc, ceilTo(n, bl.nr))
	// Row blocks: at least four per goroutine, at most mc rows, and of
	// whole tiles spread evenly (block b holds tiles b·tiles/nblk up to
	// (b+1)·tiles/nblk), so no goroutine is left with a long last block.
	tiles := (m + bl.mr - 1) / bl.mr
	nblk := min(tiles, max(4*p, (tiles+bl.mc/bl.mr-1)/(bl.mc/bl.mr)))
	rb := bl.mr * ((tiles + nblk - 1) / nblk) // rows of the largest block
	steps := ((n + bl.nc - 1) / bl.nc) * ((k + kcMax - 1) / kcMax)
	shared := getWork[T](0, 2*kcMax*ncMax, 0)
	defer putWork(shared)
	panels := [2][]T{shared.b[:kcMax*ncMax], shared.b[kcMax*ncMax:]}
	type stepState struct{ slivers, packed, blocks, done atomic.Int32 }
	st := make([]stepState, steps)
	blkDone := make([]atomic.Bool, steps*nblk) // step it's block b done: [it·nblk+b]
	var ev event
	body := func() {
		w := getWork[T](rb*kcMax, 0, bl.mr*bl.nr)
		defer putWork(w)
		it := 0
		for jc := 0; jc < n; jc += bl.nc {
			nc := min(bl.nc, n-jc)
			for pc := 0; pc < k; pc += kcMax {
				kc := min(kcMax, k-pc)
				nsl := int32(g.packUnits(kc, nc)) // units of the panel to pack
				pb, s := panels[it%2], &st[it]
				if it >= 2 {
					prev := &st[it-2]
					ev.wait(func() bool { return prev.done.Load() == int32(p) })
				}
				for {
					j := s.slivers.Add(1) - 1
					if j >= nsl {
						break
					}
					g.packPart(pb, pc, jc, kc, nc, int(j), int(nsl))
					if s.packed.Add(1) == nsl {
						ev.notify()
					}
				}
				ev.wait(func() bool { return s.packed.Load() == nsl })
				for {
					blk := int(s.blocks.Add(1) - 1)
					if blk >= nblk {
						break
					}
					if pc > 0 {
						// The previous depth step of this column block adds
						// into the same rows of C: its block must be done.
						prev := &blkDone[(it-1)*nblk+blk]
						ev.wait(prev.Load)
					}
					ic := blk * tiles / nblk * bl.mr
					mc := min((blk+1)*tiles/nblk*bl.mr, m) - ic
					packA(w.a, g.transA, g.a, g.lda, ic, pc, mc, kc, bl.mr, g.alpha)
					g.macro(w, pb, ic, jc, mc, nc, kc, pc == 0)
					blkDone[it*nblk+blk].Store(true)
					ev.notify()
				}
				if s.done.Add(1) == int32(p) {
					ev.notify()
				}
				it++
			}
		}
	}
	// The team must run at once (its members wait for each other), so they
	// are goroutines of their own (parallel.Go), not pool tasks that could
	// sit in a queue.
	var wg sync.WaitGroup
	wg.Add(p - 1)
	for t := 1; t < p; t++ {
		parallel.Go(&wg, body)
	}
	body()
	wg.Wait()
}

// macro runs the micro-kernel over an mc×nc block of C at (ic, jc) from the
// packed A in w and the packed B in pb. Edge tiles go through w.tile and
// are added back. In the first depth block of a beta = 0 product (first)
// each tile of C is cleared just before its kernel adds to it, or an edge
// tile stored rather than added: C is never read, and the clearing happens
// where the tile is about to be in cache anyway, on whichever core owns it.
func (g *gemmArgs[T]) macro(w *work[T], pb []T, ic, jc, mc, nc, kc int, first bool) {
	mr, nr, ldc := g.bl.mr, g.bl.nr, g.ldc
	clearC := first && g.zeroC
	for jr := 0; jr < nc; jr += nr {
		nrr := min(nr, nc-jr)
		bp := pb[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			mrr := min(mr, mc-ir)
			ap := w.a[ir*kc : (ir+mr)*kc]
			off := (ic+ir)*ldc + jc + jr
			kern, set := g.kern, g.set
			if e := (mrr+3)/4 - 1; e < len(g.edge) {
				kern, set = g.edge[e], nil // a bottom-edge tile: only its rows, 4 at a time
				if e < len(g.setEdge) {
					set = g.setEdge[e]
				}
				if mrr%4 == 0 && nrr == nr {
					g.tile(kern, set, clearC, kc, ap, bp, off, mrr)
					continue
				}
			}
			if mrr == mr && nrr == nr {
				g.tile(kern, set, clearC, kc, ap, bp, off, mr)
				continue
			}
			t := w.tile
			clear(t)
			kern(kc, ap, bp, t, nr)
			for i := 0; i < mrr; i++ {
				row := g.c[off+i*ldc : off+i*ldc+nrr]
				if clearC {
					copy(row, t[i*nr:])
					continue
				}
				for j := range row {
					row[j] += t[i*nr+j]
				}
			}
		}
	}
}

// tile runs a whole-width tile of rows rows at C offset off: kern adds
// into C, or, on a first depth block with beta = 0 (clearC), set stores
// into it, or where there is no set kernel kern adds into the cleared rows.
func (g *gemmArgs[T]) tile(kern, set kernel[T], clearC bool, kc int, ap, bp []T, off, rows int) {
	if clearC {
		if set != nil {
			set(kc, ap, bp, g.c[off:], g.ldc)
			return
		}
		for i := range rows {
			clear(g.c[off+i*g.ldc : off+i*g.ldc+g.bl.nr])
		}
	}
	kern(kc, ap, bp, g.c[off:], g.ldc)
}

// packA copies alpha·op(A)[ic:ic+mc, pc:pc+kc] into dst as mr-row slivers:
// sliver s holds dst[s·mr·kc + p·mr + i] = alpha·op(A)[ic+s·mr+i, pc+p], with
// rows past mc zero.
func packA[T float32 | float64](dst []T, trans bool, a []T, lda, ic, pc, mc, kc, mr int, alpha T) {
	for ir := 0; ir < mc; ir += mr {
		d := dst[ir*kc : (ir+mr)*kc]
		mrr := min(mr, mc-ir)
		if mrr < mr {
			clear(d)
		}
		if trans { // op(A)[i, p] = a[p·lda + i]: rows of a are contiguous in i
			for p := 0; p < kc; p++ {
				src := a[(pc+p)*lda+ic+ir:][:mrr]
				dp := d[p*mr : p*mr+mrr]
				if alpha == 1 {
					copy(dp, src)
				} else {
					for i, v := range src {
						dp[i] = alpha * v
					}
				}
			}
			continue
		}
		interleave(d, a[(ic+ir)*lda+pc:], lda, mrr, kc, mr, alpha) // op(A)[i, p] = a[i·lda + p]
	}
}

// interleave writes rows of src (stride ld, kc long) side by side:
// d[p*stride+i] = alpha·src[i*ld+p] for i < rows, p < kc. It reads six (then
// four, two, one) rows at a time so that the writes go forward through d in
// as few passes as the AVX2 tile's six rows need.
func interleave[T float32 | float64](d, src []T, ld, rows, kc, stride int, alpha T) {
	i := 0
	if _, f32 := any(d).([]float32); f32 && alpha == 1 && stride%8 == 0 {
		// float32 B slivers (16 or 32 wide): whole 8×8 transposes.
		for ; i+8 <= rows; i += 8 {
			interleave8(d[i:], src[i*ld:], ld, kc, stride)
		}
	}
	for ; i+6 <= rows; i += 6 {
		interleave6(d[i:], src[i*ld:], ld, kc, stride, alpha)
	}
	for ; i+4 <= rows; i += 4 {
		r0, r1 := src[i*ld:][:kc], src[(i+1)*ld:][:kc]
		r2, r3 := src[(i+2)*ld:][:kc], src[(i+3)*ld:][:kc]
		o := d[i:]
		for p := range r0 {
			q := o[p*stride : p*stride+4 : p*stride+4]
			q[0], q[1], q[2], q[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
		}
	}
	if i+2 <= rows {
		r0, r1 := src[i*ld:][:kc], src[(i+1)*ld:][:kc]
		o := d[i:]
		for p := range r0 {
			q := o[p*stride : p*stride+2 : p*stride+2]
			q[0], q[1] = alpha*r0[p], alpha*r1[p]
		}
		i += 2
	}
	if i < rows {
		for p, v := range src[i*ld:][:kc] {
			d[p*stride+i] = alpha * v
		}
	}
}

// interleave6 is interleave for six rows: the AVX packers (pack6) take
// whole vectors of columns, interleave6Go the rest.
func interleave6[T float32 | float64](d, src []T, ld, kc, stride int, alpha T) {
	p := pack6(d, src, ld, kc, stride, alpha)
	if p < kc {
		interleave6Go(d[p*stride:], src[p:], ld, kc-p, stride, alpha)
	}
}

// interleave8 is interleave for eight rows and alpha 1: pack8 takes whole
// vectors of columns, interleave8Go the rest.
func interleave8[T float32 | float64](d, src []T, ld, kc, stride int) {
	p := pack8(d, src, ld, kc, stride)
	if p < kc {
		interleave8Go(d[p*stride:], src[p:], ld, kc-p, stride)
	}
}

// interleave8Go is the pure-Go twin of pack8.
func interleave8Go[T float32 | float64](d, src []T, ld, kc, stride int) {
	r0, r1, r2, r3 := src[:kc], src[ld:][:kc], src[2*ld:][:kc], src[3*ld:][:kc]
	r4, r5, r6, r7 := src[4*ld:][:kc], src[5*ld:][:kc], src[6*ld:][:kc], src[7*ld:][:kc]
	for p := range r0 {
		q := d[p*stride : p*stride+8 : p*stride+8]
		q[0], q[1], q[2], q[3] = r0[p], r1[p], r2[p], r3[p]
		q[4], q[5], q[6], q[7] = r4[p], r5[p], r6[p], r7[p]
	}
}

// interleave6Go is the pure-Go twin of pack6.
func interleave6Go[T float32 | float64](d, src []T, ld, kc, stride int, alpha T) {
	r0, r1, r2 := src[:kc], src[ld:][:kc], src[2*ld:][:kc]
	r3, r4, r5 := src[3*ld:][:kc], src[4*ld:][:kc], src[5*ld:][:kc]
	for p := range r0 {
		q := d[p*stride : p*stride+6 : p*stride+6]
		q[0], q[1], q[2] = alpha*r0[p], alpha*r1[p], alpha*r2[p]
		q[3], q[4], q[5] = alpha*r3[p], alpha*r4[p], alpha*r5[p]
	}
}

// copyRows8, 16 and 32 copy kc rows of that many elements, ld apart in
// src, to d back to back: a fixed-size array copied through a value is a
// few vector moves where copy (or a direct array assignment, which may
// overlap) calls memmove for each 32- to 256-byte row.
func copyRows8[T float32 | float64](d, src []T, ld, kc int) {
	if copyRowsVec(d, src, ld, kc, 8) {
		return
	}
	for p := 0; p < kc; p++ {
		v := *(*[8]T)(src[p*ld:]) // through a value: no memmove call
		*(*[8]T)(d[p*8:]) = v
	}
}

func copyRows16[T float32 | float64](d, src []T, ld, kc int) {
	if copyRowsVec(d, src, ld, kc, 16) {
		return
	}
	for p := 0; p < kc; p++ {
		v := *(*[16]T)(src[p*ld:]) // through a value: no memmove call
		*(*[16]T)(d[p*16:]) = v
	}
}

func copyRows32[T float32 | float64](d, src []T, ld, kc int) {
	if copyRowsVec(d, src, ld, kc, 32) {
		return
	}
	for p := 0; p < kc; p++ {
		v := *(*[32]T)(src[p*ld:]) // through a value: no memmove call
		*(*[32]T)(d[p*32:]) = v
	}
}

// packB copies op(B)[pc:pc+kc, jc:jc+nc] into dst as nr-column slivers:
// sliver s holds dst[s·nr·kc + p·nr + j] = op(B)[pc+p, jc+s·nr+j], with
// columns past nc zero.
func packB[T float32 | float64](dst []T, trans bool, b []T, ldb, pc, jc, kc, nc, nr int) {
	packBPart(dst, trans, b, ldb, pc, jc, kc, nc, nr, 0, 1)
}

// packBBand is how many rows of a non-transposed B one unit of packBPart
// packs: a band is read along B's rows (across all slivers), so the reads
// stream instead of striding down a 64-byte column of B a row at a time.
const packBBand = 16

// packBUnits is the number of units packBPart divides packB's panel into:
// bands of packBBand rows for a non-transposed B, slivers for a transposed
// one (whose slivers are read along B's rows already).
func packBUnits(trans bool, kc, nc, nr int) int {
	if trans {
		return (nc + nr - 1) / nr
	}
	return (kc + packBBand - 1) / packBBand
}

// packBPart packs the units first, first+step, … (see packBUnits) of
// packB's panel, so that step goroutines can share the packing.
func packBPart[T float32 | float64](dst []T, trans bool, b []T, ldb, pc, jc, kc, nc, nr, first, step int) {
	if trans { // op(B)[p, j] = b[j·ldb + p]
		for jr := first * nr; jr < nc; jr += step * nr {
			d := dst[jr*kc : (jr+nr)*kc]
			nrr := min(nr, nc-jr)
			if nrr < nr {
				clear(d)
			}
			interleave(d, b[(jc+jr)*ldb+pc:], ldb, nrr, kc, nr, 1)
		}
		return
	}
	// op(B)[p, j] = b[p·ldb + j]
	for p0 := first * packBBand; p0 < kc; p0 += step * packBBand {
		rows := min(packBBand, kc-p0)
		for jr := 0; jr < nc; jr += nr {
			d := dst[jr*kc+p0*nr : jr*kc+(p0+rows)*nr]
			src := b[(pc+p0)*ldb+jc+jr:]
			nrr := min(nr, nc-jr)
			switch {
			case nrr == 8 && nr == 8:
				copyRows8(d, src, ldb, rows)
			case nrr == 16 && nr == 16:
				copyRows16(d, src, ldb, rows)
			case nrr == 32 && nr == 32:
				copyRows32(d, src, ldb, rows)
			default:
				for p := 0; p < rows; p++ {
					copy(d[p*nr:p*nr+nrr], src[p*ldb:])
					clear(d[p*nr+nrr : (p+1)*nr])
				}
			}
		}
	}
}

// work is one goroutine's packing space, reused through a sync.Pool. The
// packed blocks start on a 64-byte boundary so kernel loads stay in lines.
type work[T float32 | float64] struct {
	abuf, bbuf []T
	a, b, tile []T
}

var (
	work32 = sync.Pool{New: func() any { return new(work[float32]) }}
	work64 = sync.Pool{New: func() any { return new(work[float64]) }}
)

func workPool[T float32 | float64]() *sync.Pool {
	var z T
	if _, ok := any(z).(float32); ok {
		return &work32
	}
	return &work64
}

func getWork[T float32 | float64](na, nb, nt int) *work[T] {
	w := workPool[T]().Get().(*work[T])
	w.a = aligned(&w.abuf, na+nt)
	w.tile = w.a[na : na+nt]
	w.a = w.a[:na]
	w.b = aligned(&w.bbuf, nb)
	return w
}

func putWork[T float32 | float64](w *work[T]) { workPool[T]().Put(w) }

// aligned returns n elements of *buf starting on a 64-byte boundary,
// growing *buf when it is too small.
func aligned[T float32 | float64](buf *[]T, n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	pad := 64 / size
	if cap(*buf) < n+pad {
		*buf = make([]T, n+pad)
	}
	s := (*buf)[:cap(*buf)]
	off := 0
	if r := int(uintptr(unsafe.Pointer(&s[0])) % 64); r != 0 {
		off = (64 - r) / size
	}
	return s[off : off+n]
}
