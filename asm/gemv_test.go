package asm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// gemvSame reports whether a and b are the same float32: the same bits, or
// both NaN (payloads may differ between the kernels and the twins).
func gemvSame(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// gemvRand fills n floats with values of mixed sign and magnitude.
func gemvRand(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64() * math.Exp2(float64(r.IntN(9)-4)))
	}
	return x
}

const gemvGuard = float32(-12345.5)

// TestGemvNTwin checks gemvN (the assembly where the CPU has it) against
// gemvNGo bit for bit: widths 0..67, depths 0..67 (sampled), B rows
// strided past the width, unaligned starts, and guards after y.
func TestGemvNTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 67; n++ {
		for _, k := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 64, 67} {
			for _, pad := range []int{0, 3} {
				off := (n + k) % 5
				ldb := n + pad
				bb := gemvRand(r, off+k*ldb+1)
				b := bb[off:]
				x := gemvRand(r, k+1)[1:]
				want := make([]float32, n)
				gemvNGo(want, x, b, ldb)
				ybuf := make([]float32, n+off+8)
				for i := range ybuf {
					ybuf[i] = gemvGuard
				}
				y := ybuf[off : off+n]
				gemvN(y, x, b, ldb)
				for j := range want {
					if !gemvSame(y[j], want[j]) {
						t.Fatalf("n=%d k=%d ldb=%d: y[%d] = %v, twin %v", n, k, ldb, j, y[j], want[j])
					}
				}
				for i, v := range ybuf[off+n:] {
					if v != gemvGuard {
						t.Fatalf("n=%d k=%d: guard %d after y overwritten: %v", n, k, i, v)
					}
				}
			}
		}
	}
}

// TestGemvTLanesTwin checks gemvTLanes against gemvTLanesGo bit for bit:
// rows 0..67, depths 0..67, strided and unaligned rows, and guards.
func TestGemvTLanesTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for rows := 0; rows <= 67; rows++ {
		for _, k := range []int{0, 1, 7, 8, 9, 16, 23, 24, 31, 32, 33, 40, 63, 64, 67, 97} {
			for _, pad := range []int{0, 5} {
				off := (rows + k) % 7
				ldb := k + pad
				bb := gemvRand(r, off+rows*ldb+1)
				b := bb[off:]
				x := gemvRand(r, k+3)[3:]
				want := make([]float32, rows*8)
				gemvTLanesGo(want, x, b, ldb)
				lbuf := make([]float32, rows*8+off+8)
				for i := range lbuf {
					lbuf[i] = gemvGuard
				}
				lanes := lbuf[off : off+rows*8]
				gemvTLanes(lanes, x, b, ldb)
				for j := range want {
					if !gemvSame(lanes[j], want[j]) {
						t.Fatalf("rows=%d k=%d ldb=%d: lanes[%d] = %v, twin %v", rows, k, ldb, j, lanes[j], want[j])
					}
				}
				for i, v := range lbuf[off+rows*8:] {
					if v != gemvGuard {
						t.Fatalf("rows=%d k=%d: guard %d after lanes overwritten: %v", rows, k, i, v)
					}
				}
			}
		}
	}
}

// TestGemvSpecials runs both kernels on NaN, ±Inf and signed zeros.
func TestGemvSpecials(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	vals := []float32{nan, inf, -inf, negz, 0, 1, -1, 3e38, -3e38, 1e-45}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		k, n := 8+trial%59, 40
		x := make([]float32, k)
		b := make([]float32, k*n)
		for i := range x {
			x[i] = vals[r.IntN(len(vals))]
		}
		for i := range b {
			b[i] = vals[r.IntN(len(vals))]
		}
		want, got := make([]float32, n), make([]float32, n)
		gemvNGo(want, x[:k], b, n)
		gemvN(got, x[:k], b, n)
		for j := range want {
			if !gemvSame(got[j], want[j]) {
				t.Fatalf("N trial %d: y[%d] = %v, twin %v", trial, j, got[j], want[j])
			}
		}
		kt := k // rows of k elements, 8 of them fit in b
		wl, gl := make([]float32, 8*8), make([]float32, 8*8)
		gemvTLanesGo(wl, x[:kt], b, kt)
		gemvTLanes(gl, x[:kt], b, kt)
		for j := range wl {
			if !gemvSame(gl[j], wl[j]) {
				t.Fatalf("T trial %d: lanes[%d] = %v, twin %v", trial, j, gl[j], wl[j])
			}
		}
	}
}

// gemvWant computes Sgemv's result from the twins alone, one column at a
// time: what any blocking and any split across goroutines must give.
func gemvWant(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float32 {
	out := append([]float32(nil), c...)
	for i := range m {
		x := make([]float32, k)
		for p := range k {
			if transA {
				x[p] = a[p*lda+i]
			} else {
				x[p] = a[i*lda+p]
			}
		}
		for j := range n {
			var s [1]float32
			if transB {
				var lanes [8]float32
				gemvTLanesGo(lanes[:], x, b[j*ldb:], ldb)
				s[0] = gemvFold(lanes[:], x, b[j*ldb:j*ldb+k])
			} else {
				gemvNGo(s[:], x, b[j:], ldb)
			}
			g := gemvArgs{alpha: alpha, beta: beta, c: out, ldc: ldc}
			g.store(i, j, s[:])
		}
	}
	return out
}

// TestSgemv checks Sgemv against gemvWant bit for bit and against a
// float64 product within a relative bound: both layouts of A and B,
// alpha and beta, shapes with tails, one and two goroutines.
func TestSgemv(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type shape struct{ m, n, k int }
	shapes := []shape{{1, 1, 1}, {1, 7, 9}, {1, 8, 8}, {2, 33, 17}, {3, 130, 70}, {4, 67, 67}, {1, 130, 4096}, {2, 200, 300}}
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		for _, s := range shapes {
			for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 0}, {1, 1}, {-2, 0.25}, {0, 2}} {
					m, n, k := s.m, s.n, s.k
					lda, ldb, ldc := k+1, n+2, n+3
					ar, br := m, k // stored rows
					if tr[0] {
						lda, ar = m+1, k
					}
					if tr[1] {
						ldb, br = k+2, n
					}
					a := gemvRand(r, ar*lda)
					b := gemvRand(r, br*ldb)
					c := gemvRand(r, m*ldc)
					want := gemvWant(tr[0], tr[1], m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					got := append([]float32(nil), c...)
					Sgemv(tr[0], tr[1], m, n, k, ab[0], a, lda, b, ldb, ab[1], got, ldc)
					for i := range m {
						for j := range ldc {
							g, w := got[i*ldc+j], want[i*ldc+j]
							if j >= n {
								w = c[i*ldc+j] // past the row: untouched
							}
							if !gemvSame(g, w) {
								t.Fatalf("procs=%d %+v trans=%v alpha,beta=%v: c[%d][%d] = %v, want %v", procs, s, tr, ab, i, j, g, w)
							}
							if j >= n {
								continue
							}
							var ref, mag float64
							for p := range k {
								ai, bi := i*lda+p, p*ldb+j
								if tr[0] {
									ai = p*lda + i
								}
								if tr[1] {
									bi = j*ldb + p
								}
								av, bv := a[ai], b[bi]
								ref += float64(av) * float64(bv)
								mag += math.Abs(float64(av) * float64(bv))
							}
							ref = float64(ab[0])*ref + float64(ab[1])*float64(c[i*ldc+j])
							mag = math.Abs(float64(ab[0]))*mag + math.Abs(float64(ab[1])*float64(c[i*ldc+j]))
							if math.Abs(float64(g)-ref) > 1e-5*mag+1e-30 {
								t.Fatalf("%+v trans=%v alpha,beta=%v: c[%d][%d] = %v, float64 product %v", s, tr, ab, i, j, g, ref)
							}
						}
					}
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestSgemvMisuse checks that short operands panic with Sgemv's name.
func TestSgemvMisuse(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !containsStr(r, "Sgemv") {
			t.Fatalf("short b: recovered %v, want a panic naming Sgemv", r)
		}
	}()
	Sgemv(false, false, 1, 8, 8, 1, make([]float32, 8), 8, make([]float32, 63), 8, 0, make([]float32, 8), 8)
}

func containsStr(v any, s string) bool {
	str, ok := v.(string)
	if !ok {
		return false
	}
	for i := 0; i+len(s) <= len(str); i++ {
		if str[i:i+len(s)] == s {
			return true
		}
	}
	return false
}

// FuzzGemv runs both kernels on fuzzed shapes and values against their twins.
func FuzzGemv(f *testing.F) {
	f.Add(uint8(9), uint8(17), uint8(2), uint64(1))
	f.Add(uint8(32), uint8(8), uint8(0), uint64(2))
	f.Fuzz(func(t *testing.T, n8, k8, pad uint8, seed uint64) {
		n, k, pd := int(n8%80), int(k8%80), int(pad%9)
		r := rand.New(rand.NewPCG(seed, 9))
		b := gemvRand(r, max(n, k)*(max(n, k)+pd)+1)
		x := gemvRand(r, k)
		want, got := make([]float32, n), make([]float32, n)
		gemvNGo(want, x, b, n+pd)
		gemvN(got, x, b, n+pd)
		for j := range want {
			if !gemvSame(got[j], want[j]) {
				t.Fatalf("N n=%d k=%d: y[%d] = %v, twin %v", n, k, j, got[j], want[j])
			}
		}
		wl, gl := make([]float32, n*8), make([]float32, n*8)
		gemvTLanesGo(wl, x, b, k+pd)
		gemvTLanes(gl, x, b, k+pd)
		for j := range wl {
			if !gemvSame(gl[j], wl[j]) {
				t.Fatalf("T rows=%d k=%d: lanes[%d] = %v, twin %v", n, k, j, gl[j], wl[j])
			}
		}
	})
}

// TestSgemvNoAllocs checks that Sgemv allocates nothing when it runs on
// one goroutine with A as stored (a decoder step's products on one core).
func TestSgemvNoAllocs(t *testing.T) {
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	r := rand.New(rand.NewPCG(11, 12))
	const m, n, k = 4, 300, 200
	a, b := gemvRand(r, m*k), gemvRand(r, n*k)
	c := make([]float32, m*n)
	for _, transB := range []bool{false, true} {
		ldb := n
		if transB {
			ldb = k
		}
		if got := testing.AllocsPerRun(10, func() { Sgemv(false, transB, m, n, k, 1, a, k, b, ldb, 0, c, n) }); got != 0 {
			t.Errorf("transB=%v: %v allocations a call, want 0", transB, got)
		}
	}
}
