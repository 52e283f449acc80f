package asm

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// The float64 twins of keyops_test.go: float64 maximum and minimum (all
// three forms) and the comparisons, which on arm64 compare 64-bit order
// keys (FKEY64) with a strict unsigned compare built from a borrow
// (ULT64) and find NaNs with FNAN64. The keys' 64-bit compare is the part
// 32-bit tests cannot reach: the specials below include pairs that differ
// only in the low or only in the high 32 bits, and keys on both sides of
// 2^63 (the borrow's two cases).

// keySpecials64 returns ±each of the bit patterns that matter to the keys
// and to ULT64 (zero, subnormals, the smallest normals, around 1, the
// largest finite, Inf, NaNs quiet and signaling with payloads in either
// half, values one apart in the low or in the high 32 bits) and random
// ones: 320 in all.
func keySpecials64() []float64 {
	var b []uint64
	for _, u := range []uint64{
		0, 1, 2, 0xffffffff, 0x100000000, 0x100000001, // zero and subnormals
		0x7ffffffffffff, 0x8000000000000, 0xffffffffffffe, 0xfffffffffffff,
		0x10000000000000, 0x10000000000001, 0x100000ffffffff, 0x10000100000000, // the smallest normals
		0x3fefffffffffffff, 0x3ff0000000000000, 0x3ff0000000000001, // 1
		0x3ff00000ffffffff, 0x3ff0000100000000, 0x3ff0000100000001, // 1 + 2^-20 and its neighbours
		0x3ff0000012345678, 0x3ff1000012345678, 0x3ff0000112345678, // the same low halves
		0x4340000000000000, 0x4340000000000001, // 2^53
		0x7fe0000000000000, 0x7feffffffffffffe, 0x7fefffffffffffff, 0x7ff0000000000000, // the largest, Inf
		0x7ff0000000000001, 0x7ff0000000000002, 0x7ff00000ffffffff, 0x7ff0000100000000, // signaling NaNs
		0x7ff4000000000000, 0x7ff7ffffffffffff,
		0x7ff8000000000000, 0x7ff8000000000001, 0x7ffdeadbeefdead0, 0x7ffffffffffffffe, 0x7fffffffffffffff, // quiet NaNs
	} {
		b = append(b, u, u|1<<63)
	}
	r := rand.New(rand.NewPCG(61, 62))
	for len(b) < 320 {
		b = append(b, r.Uint64())
	}
	v := make([]float64, len(b))
	for i, u := range b {
		v[i] = math.Float64frombits(u)
	}
	return v
}

// sameBits64 fails t where got and want differ in any bit.
func sameBits64(t testing.TB, what string, got, want, x, y []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %#x for %#x, %#x; twin %#x", what, i,
				math.Float64bits(got[i]), math.Float64bits(x[i]), math.Float64bits(y[i]), math.Float64bits(want[i]))
		}
	}
}

func sameBools64(t testing.TB, what string, got, want []bool, x, y []float64) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: [%d] = %v for %#x, %#x; twin %v", what, i, got[i],
				math.Float64bits(x[i]), math.Float64bits(y[i]), want[i])
		}
	}
}

// TestKeyOpsPairs64 runs every ordered pair of keySpecials64 through the
// float64 maximum, minimum (vv, and each value as the scalar of vs and sv)
// and the comparisons in use, in pieces of every length from 1 to 67 at
// every element offset, and wants the twins' bits, NaN payloads included.
func TestKeyOpsPairs64(t *testing.T) {
	if Path() == "neon" && (cmp64 == &cmpGo64 || bin64 == &binGo64) {
		t.Fatal("NEON, but the float64 comparisons or binary kernels are the twins")
	}
	v := keySpecials64()
	var x, y []float64
	for _, a := range v {
		for _, b := range v {
			x, y = append(x, a), append(y, b)
		}
	}
	n, m := len(x), len(v)
	got, want := make([]float64, n), make([]float64, n)
	gotB, wantB := make([]bool, n), make([]bool, n)
	ss := make([]float64, m) // s in every element, for the messages
	names := [numCmpOps]string{"eq", "ne", "lt", "le"}
	for first := 1; first <= 4; first++ {
		for _, op := range []binOp{opMax, opMin} {
			name := binOpNames[op]
			binGo64.vv[op](want, x, y)
			inPieces(n, first, func(i, j int) { bin64.vv[op](got[i:j], x[i:j], y[i:j]) })
			sameBits64(t, name+"/vv", got, want, x, y)
			for _, s := range v {
				for k := range ss {
					ss[k] = s
				}
				binGo64.vs[op](want[:m], v, s)
				inPieces(m, first, func(i, j int) { bin64.vs[op](got[i:j], v[i:j], s) })
				sameBits64(t, name+"/vs", got[:m], want[:m], v, ss)
				binGo64.sv[op](want[:m], s, v)
				inPieces(m, first, func(i, j int) { bin64.sv[op](got[i:j], s, v[i:j]) })
				sameBits64(t, name+"/sv", got[:m], want[:m], ss, v)
			}
		}
		for op := range numCmpOps {
			cmpGo64[op](wantB, x, y)
			inPieces(n, first, func(i, j int) { cmp64[op](gotB[i:j], x[i:j], y[i:j]) })
			sameBools64(t, names[op], gotB, wantB, x, y)
		}
	}
}

// TestKeyOpsSemantics64 pins the float64 maximum and minimum in use to the
// rules of the twin on the cases ULT64 and the NaN keys decide: which NaN
// wins when both are NaN, and ties of -0 and +0 (the first operand).
func TestKeyOpsSemantics64(t *testing.T) {
	nan1, nan2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff4000000000002)
	negz := math.Copysign(0, -1)
	cases := []struct {
		op         binOp
		a, b, want float64
	}{
		{opMax, nan1, nan2, nan1}, {opMax, nan2, nan1, nan2}, {opMin, nan1, nan2, nan1}, {opMin, nan2, nan1, nan2},
		{opMax, math.Inf(1), nan2, nan2}, {opMin, math.Inf(-1), nan1, nan1},
		{opMax, negz, 0, negz}, {opMax, 0, negz, 0}, {opMin, negz, 0, negz}, {opMin, 0, negz, 0},
	}
	for _, c := range cases {
		for n := 1; n <= 5; n++ { // the element forms and the vectors
			a, b, d := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range a {
				a[i], b[i] = c.a, c.b
			}
			for form, run := range []func(){
				func() { bin64.vv[c.op](d, a, b) },
				func() { bin64.vs[c.op](d, a, c.b) },
				func() { bin64.sv[c.op](d, c.a, b) },
			} {
				run()
				for i := range d {
					if math.Float64bits(d[i]) != math.Float64bits(c.want) {
						t.Fatalf("%s form %d n=%d (%#x, %#x) = %#x, want %#x", binOpNames[c.op], form, n,
							math.Float64bits(c.a), math.Float64bits(c.b), math.Float64bits(d[i]), math.Float64bits(c.want))
					}
				}
			}
		}
	}
}

// TestKeyOpsSweep64 runs float64 patterns x against their neighbours
// through the float64 maximum, minimum (vv) and comparisons in use and the
// twins. For each of the 2^16 values of the top 16 bits (sign, exponent
// and the top 4 bits of the significand) a block holds 1024 x: the top bits
// over low 48 bits that are the edges (0, 1, all ones, around 2^32) or
// random; each x is paired, both ways, with x±1, x±2^32 and -x (borrows
// across the two halves, both sides of every exponent and of the signs).
//
// GOATEN_KEYOPS64_STEP=k takes every k-th block (1: all 2^16, 671M pairs
// per operation); unset, every 257th (-short: every 1021st). Under
// qemu-aarch64 on a loaded 2-core machine k = 1 takes 7 minutes (2m41s of
// CPU), the default under a second.
func TestKeyOpsSweep64(t *testing.T) {
	step, _ := strconv.Atoi(os.Getenv("GOATEN_KEYOPS64_STEP"))
	if step < 1 {
		step = 257
		if testing.Short() {
			step = 1021
		}
	}
	const n = 1024
	edges := []uint64{0, 1, 2, 0xfffffffe, 0xffffffff, 0x100000000, 0x100000001,
		0x7fffffffffff, 0x800000000000, 0xfffeffffffff, 0xffff00000000, 0xfffffffffffe, 0xffffffffffff}
	r := rand.New(rand.NewPCG(63, 64))
	low := make([]uint64, n)
	for i := range low {
		low[i] = r.Uint64() & (1<<48 - 1)
		if i < len(edges) {
			low[i] = edges[i]
		}
	}
	x, y := make([]float64, n), make([]float64, n)
	got, want := make([]float64, n), make([]float64, n)
	gotB, wantB := make([]bool, n), make([]bool, n)
	nb := []func(u uint64) uint64{
		func(u uint64) uint64 { return u + 1 },
		func(u uint64) uint64 { return u - 1 },
		func(u uint64) uint64 { return u + 1<<32 },
		func(u uint64) uint64 { return u - 1<<32 },
		func(u uint64) uint64 { return u ^ 1<<63 },
	}
	start := time.Now()
	for hi := 0; hi < 1<<16; hi += step {
		for _, f := range nb {
			for i, l := range low {
				u := uint64(hi)<<48 | l
				x[i], y[i] = math.Float64frombits(u), math.Float64frombits(f(u))
			}
			for _, p := range [][2][]float64{{x, y}, {y, x}} {
				a, b := p[0], p[1]
				for _, op := range []binOp{opMax, opMin} {
					binGo64.vv[op](want, a, b)
					bin64.vv[op](got, a, b)
					sameBits64(t, binOpNames[op], got, want, a, b)
				}
				for op := range numCmpOps {
					cmpGo64[op](wantB, a, b)
					cmp64[op](gotB, a, b)
					sameBools64(t, "compare", gotB, wantB, a, b)
				}
			}
		}
	}
	t.Logf("step %d: %v", step, time.Since(start))
}
