package asm

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// Tests of the kernels that compare floats: float32 maximum and minimum
// (all three forms), the comparisons, threshold_backward and relu. On
// arm64 these compare integer order keys (floatkey_arm64.h), so the tests
// below run every pair of a few hundred special values through the kernels
// in use and the twins and want the same bits, NaN payloads included
// (ewSame takes any NaN for any other).

// keySpecials32 returns ±each of the bit patterns that matter to the keys
// (zero, subnormals, the smallest normals, around 1, the largest finite,
// Inf, NaNs quiet and signaling with payloads) and random ones: 320 in all.
func keySpecials32() []float32 {
	var b []uint32
	for _, u := range []uint32{
		0, 1, 2, 3, 0x3fffff, 0x400000, 0x7ffffe, 0x7fffff, // zero and subnormals
		0x800000, 0x800001, 0xffffff, 0x1000000, 0x1000001, // the smallest normals
		0x3effffff, 0x3f000000, 0x3f7fffff, 0x3f800000, 0x3f800001, 0x40000000, // ½, 1, 2
		0x4b7fffff, 0x4b800000, 0x4b800001, // 2^24
		0x7effffff, 0x7f000000, 0x7f7ffffe, 0x7f7fffff, 0x7f800000, // the largest, Inf
		0x7f800001, 0x7f800002, 0x7fa00000, 0x7fbfffff, // signaling NaNs
		0x7fc00000, 0x7fc00001, 0x7fdeadbe, 0x7ffffffe, 0x7fffffff, // quiet NaNs
	} {
		b = append(b, u, u|0x80000000)
	}
	r := rand.New(rand.NewPCG(41, 42))
	for len(b) < 320 {
		b = append(b, r.Uint32())
	}
	v := make([]float32, len(b))
	for i, u := range b {
		v[i] = math.Float32frombits(u)
	}
	return v
}

// inPieces calls f(i, j) over [0, n) in pieces of first, 1, 2, ..., 67, 1,
// 2, ... elements (every length, each value in every lane and tail
// position as first varies), then once over the whole.
func inPieces(n, first int, f func(i, j int)) {
	for i, l := 0, first; i < n; l = l%67 + 1 {
		j := min(n, i+l)
		f(i, j)
		i = j
	}
	f(0, n)
}

// sameBits32 fails t where got and want differ in any bit.
func sameBits32(t testing.TB, what string, got, want, x, y []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: [%d] = %#x for %#x, %#x; twin %#x", what, i,
				math.Float32bits(got[i]), math.Float32bits(x[i]), math.Float32bits(y[i]), math.Float32bits(want[i]))
		}
	}
}

func sameBools(t testing.TB, what string, got, want []bool, x, y []float32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: [%d] = %v for %#x, %#x; twin %v", what, i, got[i],
				math.Float32bits(x[i]), math.Float32bits(y[i]), want[i])
		}
	}
}

// keyPairs returns x and y holding every ordered pair of v.
func keyPairs(v []float32) (x, y []float32) {
	for _, a := range v {
		for _, b := range v {
			x, y = append(x, a), append(y, b)
		}
	}
	return x, y
}

func TestKeyOpsPairs(t *testing.T) {
	v := keySpecials32()
	x, y := keyPairs(v)
	n := len(x)
	got, want := make([]float32, n), make([]float32, n)
	gotB, wantB := make([]bool, n), make([]bool, n)
	m := len(v)
	ss := make([]float32, m) // s in every element, for the messages
	names := [numCmpOps]string{"eq", "ne", "lt", "le"}
	for first := 1; first <= 4; first++ {
		for _, op := range []binOp{opMax, opMin} {
			name := binOpNames[op]
			binGo32.vv[op](want, x, y)
			inPieces(n, first, func(i, j int) { bin32.vv[op](got[i:j], x[i:j], y[i:j]) })
			sameBits32(t, name+"/vv", got, want, x, y)
			for _, s := range v {
				for k := range ss {
					ss[k] = s
				}
				binGo32.vs[op](want[:m], v, s)
				inPieces(m, first, func(i, j int) { bin32.vs[op](got[i:j], v[i:j], s) })
				sameBits32(t, name+"/vs", got[:m], want[:m], v, ss)
				binGo32.sv[op](want[:m], s, v)
				inPieces(m, first, func(i, j int) { bin32.sv[op](got[i:j], s, v[i:j]) })
				sameBits32(t, name+"/sv", got[:m], want[:m], ss, v)
			}
		}
		for op := range numCmpOps {
			cmpGo32[op](wantB, x, y)
			inPieces(n, first, func(i, j int) { cmp32[op](gotB[i:j], x[i:j], y[i:j]) })
			sameBools(t, names[op], gotB, wantB, x, y)
		}
		g := ewValues[float32](rand.New(rand.NewPCG(uint64(first), 43)), m)
		for _, th := range v {
			thresholdBackwardGo(want[:m], g, v, th)
			inPieces(m, first, func(i, j int) { thresholdBackward(got[i:j], g[i:j], v[i:j], th, i%2 == 1) })
			sameBits32(t, "threshold_backward", got[:m], want[:m], v, g)
		}
		unaryGo[uRelu](want[:m], v)
		inPieces(m, first, func(i, j int) { un32[uRelu](got[i:j], v[i:j]) })
		sameBits32(t, "relu", got[:m], want[:m], v, v)
	}
}

// TestKeyOpsExhaustive runs float32 bit patterns x, in blocks of 2^16,
// through the same kernels against the twins:
//
//   - pairs: maximum, minimum, lt and le of (x, x⁺) and (x⁺, x), x⁺ the
//     next bit pattern (each step of the key order), and eq and ne of
//     (x, x) (the NaN test);
//   - unary: relu of x and threshold_backward of x with a special th per
//     block.
//
// GOATEN_KEYOPS_STEP=k takes every k-th block (1: all 2^32 patterns; 64
// still holds every block where the exponent changes); unset, every 257th
// (-short: every 1021st). Under qemu-aarch64 on a loaded 2-core machine:
// unary with k = 1 7 minutes, pairs with k = 64 47 seconds (k = 1 would
// take about 50).
func TestKeyOpsExhaustive(t *testing.T) {
	step, _ := strconv.Atoi(os.Getenv("GOATEN_KEYOPS_STEP"))
	if step < 1 {
		step = 257
		if testing.Short() {
			step = 1021
		}
	}
	v := keySpecials32()
	const n = 1 << 16
	x, xn, g := make([]float32, n), make([]float32, n), make([]float32, n)
	got, want := make([]float32, n), make([]float32, n)
	gotB, wantB := make([]bool, n), make([]bool, n)
	for i := range g {
		g[i] = float32(i) + 0.5
	}
	sweep := func(t *testing.T, check func(hi int)) {
		start := time.Now()
		for hi := 0; hi < 1<<16; hi += step {
			for lo := range x {
				u := uint32(hi<<16 | lo)
				x[lo], xn[lo] = math.Float32frombits(u), math.Float32frombits(u+1)
			}
			check(hi)
		}
		t.Logf("step %d: %v", step, time.Since(start))
	}
	t.Run("pairs", func(t *testing.T) {
		sweep(t, func(int) {
			for _, p := range [][2][]float32{{x, xn}, {xn, x}} {
				a, b := p[0], p[1]
				for _, op := range []binOp{opMax, opMin} {
					binGo32.vv[op](want, a, b)
					bin32.vv[op](got, a, b)
					sameBits32(t, binOpNames[op], got, want, a, b)
				}
				for _, op := range []cmpOp{cmpLt, cmpLe} {
					cmpGo32[op](wantB, a, b)
					cmp32[op](gotB, a, b)
					sameBools(t, "lt/le", gotB, wantB, a, b)
				}
			}
			for _, op := range []cmpOp{cmpEq, cmpNe} {
				cmpGo32[op](wantB, x, x)
				cmp32[op](gotB, x, x)
				sameBools(t, "eq/ne", gotB, wantB, x, x)
			}
		})
	})
	t.Run("unary", func(t *testing.T) {
		sweep(t, func(hi int) {
			unaryGo[uRelu](want, x)
			un32[uRelu](got, x)
			sameBits32(t, "relu", got, want, x, x)
			th := v[hi%len(v)]
			thresholdBackwardGo(want, g, x, th)
			thresholdBackward(got, g, x, th, hi%2 == 1)
			sameBits32(t, "threshold_backward", got, want, x, g)
		})
	})
}
