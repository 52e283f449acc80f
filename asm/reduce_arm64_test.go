//go:build !purego

package asm

import (
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
)

// TestReduceNEONInUse: the table holds the NEON reductions and row
// kernels (the twins with GOATEN_PUREGO=1).
func TestReduceNEONInUse(t *testing.T) {
	if !useNEON {
		if red32 != &reduceGo {
			t.Fatal("NEON off but the reductions are not the twins")
		}
		return
	}
	ptr := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"sum", red32.sum, sumF32NEON}, {"sum2", red32.sum2, sum2F32NEON}, {"dot", red32.dot, dotF32NEON},
		{"sumSqDev", red32.sumSqDev, sumSqDevF32NEON}, {"moments", red32.moments, momentsF32NEON},
		{"accumulateRows", red32.accumulateRows, accumulateRowsNEON}, {"sqDiffLanes", red32.sqDiffLanes, sqDiffLanesF32NEON},
		{"scaleShift", red32.scaleShift, scaleShiftF32NEON}, {"affine", red32.affine, affineF32NEON},
		{"normGradSums", red32.normGradSums, normGradSumsF32NEON}, {"normGradDX", red32.normGradDX, normGradDXF32NEON},
		{"normGradWB", red32.normGradWB, normGradWBF32NEON},
		{"groupGradSums", red32.groupGradSums, groupGradSumsF32NEON}, {"groupGradDX", red32.groupGradDX, groupGradDXF32NEON},
		{"maxLanes", red32.maxLanes, maxLanesF32NEON}, {"minLanes", red32.minLanes, minLanesF32NEON},
		{"maxVal", red32.maxVal, maxValF32NEON}, {"minVal", red32.minVal, minValF32NEON},
		{"expShift", red32.expShift, expShiftNEON},
	} {
		if ptr(c.got) != ptr(c.want) {
			t.Errorf("%s: not the NEON kernel", c.name)
		}
	}
}

// TestReduceNEONStops: each kernel reports an Inf or a NaN in any lane of
// any block (and only those: the largest finite magnitude passes).
func TestReduceNEONStops(t *testing.T) {
	for _, bits := range []uint32{0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7f800001, 0xffffffff} {
		want := bits&0x7f800000 != 0x7f800000
		for at := range 64 {
			x, y := make([]float32, 64), make([]float32, 64)
			for i := range x {
				x[i], y[i] = 1, 1
			}
			x[at] = math.Float32frombits(bits)
			var a, b [16]float64
			acc := make([]float64, 64)
			for _, c := range []struct {
				name string
				ok   bool
			}{
				{"sumNEON", sumNEON(&a, x)},
				{"sum2NEON(x, y)", sum2NEON(&a, &b, x, y)},
				{"sum2NEON(y, x)", sum2NEON(&a, &b, y, x)},
				{"dotNEON(x, y)", dotNEON(&a, x, y)},
				{"dotNEON(y, x)", dotNEON(&a, y, x)},
				{"sumSqDevNEON", sumSqDevNEON(&a, x, 0.5)},
				{"momentsNEON", momentsNEON(&a, &b, x, 0.5) && momentsNEON(&a, &b, x[16:], 0.5)},
				{"accRowsNEON", accRowsNEON(acc[:16], x, 4, 16) == 16},
			} {
				if c.ok != want {
					t.Errorf("%s, x[%d] = %#x: finite %v, want %v", c.name, at, bits, c.ok, want)
				}
			}
		}
	}
}

// TestWidenNEON checks the widening of reduce_arm64.s (SIGNS, MAG) on
// float32 bit patterns through accRowsNEON, one row onto -0 (-0 + w = w
// exactly, ±0 included): every chunk of 2^16 patterns with exponent below
// 255 must widen to float64(x), every chunk of exponent 255 stop at its
// first block. By default a sample of chunks (the first and last of each
// range and every 509th); GOATEN_WIDEN_ALL=1 checks all 2^32 patterns.
func TestWidenNEON(t *testing.T) {
	all := os.Getenv("GOATEN_WIDEN_ALL") == "1"
	const chunk = 1 << 16
	x := make([]float32, chunk)
	acc := make([]float64, chunk)
	negz := math.Copysign(0, -1)
	for c := range uint32(1 << 16) {
		if lo := c & 0x7fff; !all && c%509 != 0 && lo != 0 && lo != 0x7f && lo != 0x80 && lo != 0x7f7f && lo != 0x7f80 && lo != 0x7fff {
			continue
		}
		base := c << 16
		for i := range x {
			x[i] = math.Float32frombits(base + uint32(i))
			acc[i] = negz
		}
		done := accRowsNEON(acc, x, 1, chunk)
		if base&0x7f800000 == 0x7f800000 {
			if done != 0 {
				t.Fatalf("chunk %#x (exponent 255): %d columns done, want 0", base, done)
			}
			continue
		}
		if done != chunk {
			t.Fatalf("chunk %#x: %d columns done, want %d", base, done, chunk)
		}
		for i, v := range x {
			if w := float64(v); math.Float64bits(acc[i]) != math.Float64bits(w) {
				t.Fatalf("float64(%#x) = %#x, want %#x", math.Float32bits(v), math.Float64bits(acc[i]), math.Float64bits(w))
			}
		}
	}
}

// TestSum2NEONBits: sum2NEON's sums are sumNEON's of each row, and
// sum2F32NEON's results SumF32's of each row, bit for bit, over rows of
// 0…67, 128, 129 and 1000 elements: finite values of every size, signed
// zeros, subnormals (the kernel's path), and an Inf or NaN in either row,
// in the whole sixteens or in the tail (sumF32NEON's fallbacks).
func TestSum2NEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	for _, n := range ewLens() {
		for k := range 5 {
			x := make([]float32, 0, 2*n)
			x = append(x, rowValues(r, n, k)...)
			x = append(x, rowValues(r, n, (k+1)%5)...)
			if n > 0 && r.IntN(4) == 0 {
				x[r.IntN(2*n)] = rowSpecials[r.IntN(len(rowSpecials))]
			}
			if m := n &^ 15; m > 0 {
				var a, b, wa, wb [16]float64
				ok := sum2NEON(&a, &b, x[:m], x[n:n+m])
				oka, okb := sumNEON(&wa, x[:m]), sumNEON(&wb, x[n:n+m])
				if ok != (oka && okb) {
					t.Fatalf("%d elements, kind %d: sum2NEON finite %v, sumNEON %v and %v", n, k, ok, oka, okb)
				}
				for l := range 16 {
					if ok && (math.Float64bits(a[l]) != math.Float64bits(wa[l]) || math.Float64bits(b[l]) != math.Float64bits(wb[l])) {
						t.Fatalf("%d elements, kind %d: sum %d is %v and %v, sumNEON %v and %v", n, k, l, a[l], b[l], wa[l], wb[l])
					}
				}
			}
			if n == 0 {
				continue
			}
			ga, gb := sum2F32NEON(x, n)
			wa, wb := SumF32(x[:n]), SumF32(x[n:])
			if math.Float64bits(ga) != math.Float64bits(wa) || math.Float64bits(gb) != math.Float64bits(wb) {
				t.Fatalf("%d elements, kind %d: sum2F32NEON = %v, %v; SumF32 %v, %v", n, k, ga, gb, wa, wb)
			}
		}
	}
}
