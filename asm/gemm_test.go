package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// guard is written around and between the operands; it must survive.
const guard = -12345.5

type float interface{ float32 | float64 }

func epsOf[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

func tinyOf[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return math.SmallestNonzeroFloat32
	}
	return math.SmallestNonzeroFloat64
}

func maxOf[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// near reports whether got is within the rounding error of a sum of n
// terms whose finite magnitudes add up to mag, around the exact want: with
// FMA and another summation order the error is at most about n·eps·mag.
// NaN must match NaN and an infinity the same infinity, unless the finite
// terms come near the top of T's range: then whether and where the sum
// overflows depends on the order (and a float64 want may itself overflow),
// and any infinity or NaN is accepted.
func near[T float](got T, want, mag float64, n int) bool {
	g := float64(got)
	special := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if mag > maxOf[T]()/4 && (special(g) || special(want)) {
		return true
	}
	switch {
	case math.IsNaN(want):
		return math.IsNaN(g)
	case math.IsInf(want, 0):
		return g == want
	case special(g):
		return false
	}
	// Each term may also lose up to the smallest subnormal of T to underflow.
	tol := 2*float64(n+4)*epsOf[T]()*mag + float64(n+1)*tinyOf[T]()
	return math.Abs(g-want) <= tol
}

// addProd adds x·y to the reference sum and its magnitude to mag; a term
// with a NaN or infinite factor adds no magnitude, but one that overflows
// from finite factors makes mag infinite.
func addProd(sum, mag *float64, x, y float64) {
	p := x * y
	*sum += p
	if finite(x) && finite(y) {
		*mag += math.Abs(p)
	}
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

func randSlice[T float](r *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(r.Float64()*2 - 1)
	}
	return s
}

// withPad returns n elements of a buffer that has off guard values before
// them and 8 after, so both under- and overruns show.
func withPad[T float](src []T, off int) (s, buf []T) {
	buf = make([]T, off+len(src)+8)
	for i := range buf {
		buf[i] = guard
	}
	copy(buf[off:], src)
	return buf[off : off+len(src)], buf
}

func checkGuards[T float](t *testing.T, what string, buf []T, off, n int) {
	t.Helper()
	for i, v := range buf {
		if (i < off || i >= off+n) && v != guard {
			t.Fatalf("%s: guard at %d of %d (data at %d:%d) overwritten with %v", what, i, len(buf), off, off+n, v)
		}
	}
}

// --- micro-kernels ---------------------------------------------------------

// checkKernel runs kern and its twin on one tile and compares both with a
// float64 reference. a has k·mr elements, b k·nr, c rows rows at stride ldc
// (rows < mr for the bottom-edge kernels, which read A's first rows).
func checkKernel[T float](t *testing.T, kern, twin kernel[T], mr, rows, nr, k int, a, b, c0 []T, ldc, off int) {
	t.Helper()
	for _, impl := range []struct {
		name string
		f    kernel[T]
	}{{"kernel", kern}, {"twin", twin}} {
		c, buf := withPad(c0, off)
		aa, _ := withPad(a, off)
		bb, _ := withPad(b, off)
		impl.f(k, aa, bb, c, ldc)
		checkGuards(t, impl.name, buf, off, len(c0))
		for i := 0; i < rows; i++ {
			for j := 0; j < ldc; j++ {
				idx := i*ldc + j
				if idx >= len(c0) {
					break
				}
				if j >= nr {
					if c[idx] != c0[idx] && !(math.IsNaN(float64(c[idx])) && math.IsNaN(float64(c0[idx]))) {
						t.Fatalf("%s k=%d: C[%d][%d] past the tile changed", impl.name, k, i, j)
					}
					continue
				}
				var want, mag float64
				addProd(&want, &mag, float64(c0[idx]), 1)
				for p := 0; p < k; p++ {
					addProd(&want, &mag, float64(a[p*mr+i]), float64(b[p*nr+j]))
				}
				if !near(c[idx], want, mag, k) {
					t.Fatalf("%s %d×%d k=%d ldc=%d off=%d: C[%d][%d] = %v, want %v", impl.name, rows, nr, k, ldc, off, i, j, c[idx], want)
				}
			}
		}
	}
}

func testKernel[T float](t *testing.T, bl *blocking, kern kernel[T], twin func(mr, nr, k int, a, b, c []T, ldc int)) {
	mr, nr := bl.mr, bl.nr
	testRows(t, kern, func(k int, a, b, c []T, ldc int) { twin(mr, nr, k, a, b, c, ldc) }, mr, mr, nr)
}

// testRows checks a kernel of rows rows (A's steps mr apart) against tw.
func testRows[T float](t *testing.T, kern, tw kernel[T], mr, rows, nr int) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k <= 67; k++ {
		for _, ldc := range []int{nr, nr + 1, nr + 7} {
			off := k % 4
			a, b := randSlice[T](r, k*mr), randSlice[T](r, k*nr)
			c := randSlice[T](r, (rows-1)*ldc+nr)
			checkKernel(t, kern, tw, mr, rows, nr, k, a, b, c, ldc, off)
		}
	}
	// NaN and Inf flow through as the reference says.
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -0.0, 1e30}
	for _, s := range specials {
		for _, where := range []int{0, 1, 2} {
			k := 9
			a, b := randSlice[T](r, k*mr), randSlice[T](r, k*nr)
			c := randSlice[T](r, rows*nr)
			switch where {
			case 0:
				a[r.IntN(len(a))] = T(s)
			case 1:
				b[r.IntN(len(b))] = T(s)
			case 2:
				c[r.IntN(len(c))] = T(s)
			}
			checkKernel(t, kern, tw, mr, rows, nr, k, a, b, c, nr, 1)
		}
	}
}

// eachImpl runs f once per micro-kernel this CPU has, with Sgemm or Dgemm
// switched to it, so an AVX-512 machine tests its AVX2 kernels too.
func eachImpl[T float](t *testing.T, impls []gemmImpl[T], use **gemmImpl[T], f func(t *testing.T, im *gemmImpl[T])) {
	save := *use
	defer func() { *use = save }()
	if raceEnabled { // the race detector sees only Go code, the same for every kernel
		impls = impls[:1]
	}
	for i := range impls {
		im := &impls[i]
		*use = im
		t.Run(im.name, func(t *testing.T) { f(t, im) })
	}
}

func TestSgemmKernel(t *testing.T) {
	t.Logf("path %s, features %q", Path(), Features())
	eachImpl(t, sgemmImpls, &sgemmUse, func(t *testing.T, im *gemmImpl[float32]) {
		testKernel(t, &im.bl, im.kern, gemmKernelGo[float32])
	})
}

func TestDgemmKernel(t *testing.T) {
	eachImpl(t, dgemmImpls, &dgemmUse, func(t *testing.T, im *gemmImpl[float64]) {
		testKernel(t, &im.bl, im.kern, gemmKernelGo[float64])
	})
}

// testEdgeKernels checks each bottom-edge kernel (the first 4, 8, … rows of
// a tile) against gemmRowsGo.
func testEdgeKernels[T float](t *testing.T, im *gemmImpl[T]) {
	mr, nr := im.bl.mr, im.bl.nr
	for e, kern := range im.edge {
		rows := 4 * (e + 1)
		t.Run(fmt.Sprintf("%d rows", rows), func(t *testing.T) {
			testRows(t, kern, func(k int, a, b, c []T, ldc int) { gemmRowsGo(mr, rows, nr, k, a, b, c, ldc) }, mr, rows, nr)
		})
	}
}

func TestGemmEdgeKernels(t *testing.T) {
	eachImpl(t, sgemmImpls, &sgemmUse, func(t *testing.T, im *gemmImpl[float32]) { testEdgeKernels(t, im) })
	eachImpl(t, dgemmImpls, &dgemmUse, func(t *testing.T, im *gemmImpl[float64]) { testEdgeKernels(t, im) })
}

// fuzzKernel reads a depth and the tile operands from raw bytes, so the
// fuzzer explores bit patterns: NaN payloads, infinities, subnormals.
func fuzzKernel[T float](t *testing.T, bl *blocking, kern kernel[T], twin func(mr, nr, k int, a, b, c []T, ldc int), data []byte, kb, ldcPad uint8) {
	mr, nr := bl.mr, bl.nr
	k := int(kb % 40)
	ldc := nr + int(ldcPad%5)
	vals := make([]T, k*mr+k*nr+(mr-1)*ldc+nr)
	var z T
	size := 8
	if _, ok := any(z).(float32); ok {
		size = 4
	}
	for i := range vals {
		var bits uint64
		for j := 0; j < size; j++ {
			if n := i*size + j; n < len(data) {
				bits |= uint64(data[n]) << (8 * j)
			}
		}
		var v T
		if size == 4 {
			v = T(math.Float32frombits(uint32(bits)))
		} else {
			v = T(math.Float64frombits(bits))
		}
		if len(data) == 0 || i*size >= len(data) {
			v = T(float64(i%7) - 3) // past the fuzz data: small integers
		}
		vals[i] = v
	}
	a, b, c := vals[:k*mr], vals[k*mr:k*mr+k*nr], vals[k*mr+k*nr:]
	tw := func(k int, a, b, c []T, ldc int) { twin(mr, nr, k, a, b, c, ldc) }
	checkKernel(t, kern, tw, mr, mr, nr, k, a, b, c, ldc, int(kb%3))
}

func FuzzSgemmKernel(f *testing.F) {
	f.Add([]byte{}, uint8(5), uint8(0))
	f.Add([]byte{0, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x7f, 1, 0, 0, 0}, uint8(17), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, k, ldcPad uint8) {
		for _, im := range sgemmImpls {
			fuzzKernel(t, &im.bl, im.kern, gemmKernelGo[float32], data, k, ldcPad)
		}
	})
}

func FuzzDgemmKernel(f *testing.F) {
	f.Add([]byte{}, uint8(5), uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 0, 0, 0, 0, 0, 0, 0}, uint8(17), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, k, ldcPad uint8) {
		for _, im := range dgemmImpls {
			fuzzKernel(t, &im.bl, im.kern, gemmKernelGo[float64], data, k, ldcPad)
		}
	})
}

// --- Sgemm / Dgemm against a naive triple loop ------------------------------

type gemmCase struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float64
	padA, padB     int // extra row stride
	padC           int
	off            int // unaligned start of every operand
	nanC           bool
}

func (g gemmCase) String() string {
	return fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d alpha=%v beta=%v pad=%d,%d,%d off=%d nanC=%v",
		g.transA, g.transB, g.m, g.n, g.k, g.alpha, g.beta, g.padA, g.padB, g.padC, g.off, g.nanC)
}

type gemmFunc[T float] func(transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

// checkGemm runs one case through f and compares every element of C with a
// float64 triple loop; the padding between rows and the guards around the
// operands must come back untouched.
func runGemmCase[T float](t *testing.T, r *rand.Rand, f gemmFunc[T], g gemmCase) {
	t.Helper()
	ar, ac := g.m, g.k
	if g.transA {
		ar, ac = g.k, g.m
	}
	br, bc := g.k, g.n
	if g.transB {
		br, bc = g.n, g.k
	}
	lda, ldb, ldc := max(1, ac)+g.padA, max(1, bc)+g.padB, max(1, g.n)+g.padC
	fill := func(rows, cols, ld int) []T {
		if rows == 0 || cols == 0 {
			return nil
		}
		s := make([]T, (rows-1)*ld+cols)
		for i := range s {
			if i%ld < cols {
				s[i] = T(r.Float64()*2 - 1)
			} else {
				s[i] = guard
			}
		}
		return s
	}
	a0, b0, c0 := fill(ar, ac, lda), fill(br, bc, ldb), fill(g.m, g.n, ldc)
	if g.nanC {
		for i := range c0 {
			if i%ldc < g.n {
				c0[i] = T(math.NaN())
			}
		}
	}
	a, _ := withPad(a0, g.off)
	b, _ := withPad(b0, g.off)
	c, cbuf := withPad(c0, g.off)
	f(g.transA, g.transB, g.m, g.n, g.k, T(g.alpha), a, lda, b, ldb, T(g.beta), c, ldc)
	checkGuards(t, g.String(), cbuf, g.off, len(c0))
	at := func(i, p int) float64 {
		if g.transA {
			return float64(a0[p*lda+i])
		}
		return float64(a0[i*lda+p])
	}
	bt := func(p, j int) float64 {
		if g.transB {
			return float64(b0[j*ldb+p])
		}
		return float64(b0[p*ldb+j])
	}
	for i := 0; i < g.m; i++ {
		for j := 0; j < ldc && i*ldc+j < len(c0); j++ {
			idx := i*ldc + j
			if j >= g.n {
				if c[idx] != guard {
					t.Fatalf("%v: padding C[%d][%d] changed to %v", g, i, j, c[idx])
				}
				continue
			}
			var sum, mag float64
			for p := 0; p < g.k; p++ {
				addProd(&sum, &mag, at(i, p), bt(p, j))
			}
			want, wmag := g.alpha*sum, math.Abs(g.alpha)*mag
			if g.beta != 0 {
				want += g.beta * float64(c0[idx])
				wmag += math.Abs(g.beta * float64(c0[idx]))
			}
			if !near(c[idx], want, wmag, g.k+2) {
				t.Fatalf("%v: C[%d][%d] = %v, want %v", g, i, j, c[idx], want)
			}
		}
	}
}

// bigShapes cross the cache blocks (kc, mc, nc) and the parallel threshold,
// tall and wide so both split directions run.
var bigShapes = [][3]int{{300, 517, 257}, {517, 130, 300}, {1000, 40, 600}, {40, 1100, 520}, {150, 4200, 3}, {97, 101, 513}}

var edgeSizes = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 66, 67}

func testGemm[T float](t *testing.T, f gemmFunc[T]) {
	r := rand.New(rand.NewPCG(3, 4))
	alphas := []float64{1, -0.5, 0, 2.5}
	betas := []float64{0, 1, -1.5, 0.25}
	n := 0
	reps, big := 6, bigShapes
	switch {
	case raceEnabled: // instrumented Go code is slow; keep one parallel shape
		reps, big = 1, [][3]int{{130, 250, 200}, {40, 600, 300}}
	case testing.Short():
		reps, big = 1, bigShapes[:1]
	}
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for m := 0; m <= 67; m++ {
				for rep := 0; rep < reps; rep++ {
					g := gemmCase{transA: tA, transB: tB, m: m,
						n: edgeSizes[r.IntN(len(edgeSizes))], k: r.IntN(68),
						alpha: alphas[r.IntN(len(alphas))], beta: betas[r.IntN(len(betas))],
						padA: r.IntN(3) * r.IntN(5), padB: r.IntN(3) * r.IntN(5), padC: r.IntN(3) * r.IntN(5),
						off: r.IntN(4)}
					if rep == 0 {
						g.n, g.k = r.IntN(68), edgeSizes[r.IntN(len(edgeSizes))]
					}
					g.nanC = g.beta == 0 && rep%2 == 0
					runGemmCase(t, r, f, g)
					n++
				}
			}
		}
	}
	for i, s := range big {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				g := gemmCase{transA: tA, transB: tB, m: s[0], n: s[1], k: s[2],
					alpha: alphas[i%len(alphas)], beta: betas[(i+1)%len(betas)], padA: i, padB: 2 * i, padC: 3, off: i % 4}
				g.nanC = g.beta == 0
				runGemmCase(t, r, f, g)
				n++
			}
		}
	}
	t.Logf("%d cases", n)
}

func TestSgemm(t *testing.T) {
	eachImpl(t, sgemmImpls, &sgemmUse, func(t *testing.T, _ *gemmImpl[float32]) { testGemm(t, Sgemm) })
}

func TestDgemm(t *testing.T) {
	eachImpl(t, dgemmImpls, &dgemmUse, func(t *testing.T, _ *gemmImpl[float64]) { testGemm(t, Dgemm) })
}

// viaPacker runs SgemmPacked or DgemmPacked as a gemmFunc: op(B) reaches
// the product only through a packer that reads it from b, sliver by sliver,
// writing every element of the sliver it is given.
func viaPacker[T float](packed func(transA bool, m, n, k int, alpha T, a []T, lda int, pack func(dst []T, pc, jc, kc, w, nr int), beta T, c []T, ldc int)) gemmFunc[T] {
	return func(tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
		packed(tA, m, n, k, alpha, a, lda, func(dst []T, pc, jc, kc, w, nr int) {
			if len(dst) != kc*nr || w > nr {
				panic(fmt.Sprintf("packer called with len(dst) %d for kc=%d nr=%d, w=%d", len(dst), kc, nr, w))
			}
			for p := 0; p < kc; p++ {
				for j := 0; j < nr; j++ {
					v := T(0)
					switch {
					case j >= w:
					case tB:
						v = b[(jc+j)*ldb+pc+p]
					default:
						v = b[(pc+p)*ldb+jc+j]
					}
					dst[p*nr+j] = v
				}
			}
		}, beta, c, ldc)
	}
}

func TestSgemmPacked(t *testing.T) {
	eachImpl(t, sgemmImpls, &sgemmUse, func(t *testing.T, _ *gemmImpl[float32]) { testGemm(t, viaPacker(SgemmPacked)) })
}

func TestDgemmPacked(t *testing.T) {
	eachImpl(t, dgemmImpls, &dgemmUse, func(t *testing.T, _ *gemmImpl[float64]) { testGemm(t, viaPacker(DgemmPacked)) })
}

// TestGemmParallel runs products with more pieces than cores, from several
// goroutines at once (run it with -race), with the parallel threshold off so
// that small shapes split too: teams whose strips hold a tile or none, and
// n-strips for short A.
func TestGemmParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	save := parallelMin
	defer func() { parallelMin = save }()
	parallelMin = 0
	shapes := [][3]int{{130, 250, 120}, {260, 70, 110}, {397, 45, 530}, {50, 33, 9}, {7, 300, 40}, {45, 5, 70}, {1, 1, 1}}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for i, s := range shapes {
				runGemmCase(t, r, Sgemm, gemmCase{transB: i%2 == 1, m: s[0], n: s[1], k: s[2], alpha: 1, beta: 0.5, off: w})
				runGemmCase(t, r, Dgemm, gemmCase{transA: true, m: s[0], n: s[1], k: s[2], alpha: -1, beta: 0, nanC: true, padC: w})
			}
		}()
	}
	wg.Wait()
}

func TestGemmPanics(t *testing.T) {
	s := make([]float32, 10)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"negative", func() { Sgemm(false, false, -1, 2, 2, 1, s, 2, s, 2, 0, s, 2) }},
		{"lda", func() { Sgemm(false, false, 2, 2, 3, 1, s, 2, s, 2, 0, s, 2) }},
		{"ldc", func() { Sgemm(false, false, 2, 3, 2, 1, s, 2, s, 3, 0, s, 2) }},
		{"short a", func() { Sgemm(false, false, 4, 2, 3, 1, s, 3, s, 2, 0, s, 2) }},
		{"short c", func() { Sgemm(true, false, 2, 2, 2, 1, s, 2, s, 2, 0, s[:3], 2) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
	// Empty products are fine with nil slices.
	Sgemm(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1)
	Dgemm(true, true, 3, 0, 5, 1, nil, 3, nil, 5, 0, nil, 1)
}

// fuzzGemm derives one case from the fuzzer's numbers.
func fuzzGemm[T float](t *testing.T, f gemmFunc[T], m, n, k uint8, flags uint8, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	alphas := []float64{1, -0.5, 0, 2.5}
	betas := []float64{0, 1, -1.5, 0.25}
	g := gemmCase{transA: flags&1 != 0, transB: flags&2 != 0, m: int(m % 80), n: int(n % 80), k: int(k % 80),
		alpha: alphas[flags>>2&3], beta: betas[flags>>4&3], padA: int(seed % 3), padB: int(seed / 3 % 3), padC: int(seed / 9 % 3),
		off: int(seed / 27 % 4), nanC: flags&0x40 != 0}
	if g.beta != 0 {
		g.nanC = false
	}
	runGemmCase(t, r, f, g)
}

func FuzzSgemm(f *testing.F) {
	f.Add(uint8(7), uint8(17), uint8(5), uint8(0x43), uint64(11))
	f.Add(uint8(13), uint8(33), uint8(70), uint8(0x12), uint64(5))
	f.Fuzz(func(t *testing.T, m, n, k, flags uint8, seed uint64) { fuzzGemm(t, Sgemm, m, n, k, flags, seed) })
}

func FuzzDgemm(f *testing.F) {
	f.Add(uint8(7), uint8(9), uint8(5), uint8(0x43), uint64(11))
	f.Add(uint8(25), uint8(17), uint8(70), uint8(0x12), uint64(5))
	f.Fuzz(func(t *testing.T, m, n, k, flags uint8, seed uint64) { fuzzGemm(t, Dgemm, m, n, k, flags, seed) })
}

// TestGemmSetKernels: each Set kernel (a first depth block with beta = 0)
// leaves in C what its kernel leaves in a cleared tile, bit for bit,
// whatever C held (NaN, Inf, garbage), and C past the tile untouched.
func TestGemmSetKernels(t *testing.T) {
	eachImpl(t, sgemmImpls, &sgemmUse, func(t *testing.T, im *gemmImpl[float32]) { testSetKernels(t, im) })
	eachImpl(t, dgemmImpls, &dgemmUse, func(t *testing.T, im *gemmImpl[float64]) { testSetKernels(t, im) })
}

func testSetKernels[T float](t *testing.T, im *gemmImpl[T]) {
	if im.name != "go" && Path() != "go" && runtime.GOARCH == "amd64" && im.set == nil {
		t.Fatalf("%s has no Set kernel", im.name)
	}
	mr, nr := im.bl.mr, im.bl.nr
	type pair struct {
		set, kern kernel[T]
		rows      int
	}
	var pairs []pair
	if im.set != nil {
		pairs = append(pairs, pair{im.set, im.kern, mr})
	}
	for e, set := range im.setEdge {
		pairs = append(pairs, pair{set, im.edge[e], 4 * (e + 1)})
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range pairs {
		for k := 1; k <= 40; k++ {
			for _, ldc := range []int{nr, nr + 3} {
				a, b := randSlice[T](r, k*mr), randSlice[T](r, k*nr)
				if k%7 == 0 {
					a[r.IntN(len(a))] = T(math.Inf(-1))
				}
				c0 := randSlice[T](r, (p.rows-1)*ldc+nr)
				for i := range c0 {
					if r.IntN(4) == 0 {
						c0[i] = T(math.NaN())
					}
				}
				want := append([]T(nil), c0...)
				for i := range p.rows {
					clear(want[i*ldc : i*ldc+nr])
				}
				p.kern(k, a, b, want, ldc)
				got := append([]T(nil), c0...)
				p.set(k, a, b, got, ldc)
				for i := range got {
					if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
						t.Fatalf("%d rows k=%d ldc=%d: C[%d] = %v, want %v", p.rows, k, ldc, i, got[i], want[i])
					}
				}
			}
		}
	}
}
