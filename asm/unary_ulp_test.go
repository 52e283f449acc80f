package asm

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ulp32 is the spacing of float32 values at v (2^-149 among subnormals).
func ulp32(v float64) float64 {
	a := math.Abs(v)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	_, e := math.Frexp(a) // a = f·2^e, f in [0.5, 1)
	return math.Ldexp(1, e-24)
}

// ulpErr is |got - want| in float32 ulps of want; special values must match.
func ulpErr(got float32, want float64) float64 {
	g := float64(got)
	switch {
	case math.IsNaN(want) || math.IsNaN(g):
		if math.IsNaN(want) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 0) || math.IsInf(g, 0):
		if g == want || (math.Abs(want) > math.MaxFloat32 && g == math.Copysign(math.Inf(1), want)) {
			return 0
		}
		if math.IsInf(g, 0) && math.Abs(want) >= math.MaxFloat32*(1-0x1p-25) {
			return 0 // rounds to infinity
		}
		return math.Inf(1)
	}
	return math.Abs(g-want) / ulp32(want)
}

// The float64 references.
func refSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// refSilu is x/(1 + e^-x), and -0 where e^-x overflows float32 (x below
// -ln(MaxFloat32) ≈ -88.72): PyTorch's float32 operations give -0 there.
func refSilu(x float64) float64 {
	if -x > math.Log(math.MaxFloat32) {
		return math.Copysign(0, x)
	}
	return x / (1 + math.Exp(-x))
}
func refGelu(x float64) float64 { return 0.5 * x * math.Erfc(-x/math.Sqrt2) }
func refGeluTanh(x float64) float64 {
	u := 2 * math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
	if math.IsInf(x, -1) {
		return math.NaN()
	}
	return x / (1 + math.Exp(-u))
}
func refRsqrt(x float64) float64 { return 1 / math.Sqrt(x) }
func refRelu(x float64) float64 {
	if x < 0 {
		return 0
	}
	return x
}

// ulpRefs are the float64 references and the documented bounds (in the
// doc comments of unary.go) of each kernel.
var ulpRefs = [numUnaryOps]struct {
	ref   func(float64) float64
	bound float64
}{
	uExp: {math.Exp, 1.05}, uLog: {math.Log, 0.9}, uTanh: {math.Tanh, 1.4}, uSigmoid: {refSigmoid, 2.5},
	uSilu: {refSilu, 2.5}, uGelu: {refGelu, 3.7}, uGeluTanh: {refGeluTanh, 0.51}, uErf: {math.Erf, 0.53},
	uRelu: {refRelu, 0}, uAbs: {math.Abs, 0}, uNeg: {func(x float64) float64 { return -x }, 0},
	uSqrt: {math.Sqrt, 0.5}, uRsqrt: {refRsqrt, 1.5}, uReciprocal: {func(x float64) float64 { return 1 / x }, 0.5},
	uSin: {math.Sin, 0.53}, uCos: {math.Cos, 0.53},
}

// TestUlpSweep measures each kernel in use against float64 math over every
// 4093rd float32 bit pattern and [-320, 320] in steps of 1.6e-4, and checks
// the error bound its doc comment states. GOATEN_ULP_STEP=k sweeps every
// k-th bit pattern instead (1: all of them, which takes a while), and
// GOATEN_ULP_OPS=exp,log limits the sweep to those kernels.
func TestUlpSweep(t *testing.T) {
	step, n := uint64(4093), 2000000
	if testing.Short() || raceEnabled {
		step, n = 1<<18+3, 20000
	}
	if s := os.Getenv("GOATEN_ULP_STEP"); s != "" {
		step, _ = strconv.ParseUint(s, 10, 64)
	}
	var worst [numUnaryOps]float64
	var at [numUnaryOps]float32
	xs := make([]float32, 0, 1<<20)
	d := make([]float32, 1<<20)
	ops := map[unaryOp]bool{}
	for op := range numUnaryOps {
		ops[op] = os.Getenv("GOATEN_ULP_OPS") == "" || slices.Contains(strings.Split(os.Getenv("GOATEN_ULP_OPS"), ","), unaryNames[op])
	}
	flush := func() {
		for op := range numUnaryOps {
			if !ops[op] {
				continue
			}
			un32[op](d[:len(xs)], xs)
			for i, x := range xs {
				want := ulpRefs[op].ref(float64(x))
				if (op == uSilu || op == uGelu) && math.IsInf(float64(x), -1) {
					want = math.NaN() // PyTorch's x/(1+e^-x) and ½x·(1+erf) at -Inf
				}
				if e := ulpErr(d[i], want); e > worst[op] {
					worst[op], at[op] = e, x
				}
			}
		}
		xs = xs[:0]
	}
	add := func(x float32) {
		xs = append(xs, x)
		if len(xs) == cap(xs) {
			flush()
		}
	}
	for b := uint64(0); b < 1<<32; b += step {
		add(math.Float32frombits(uint32(b)))
	}
	for i := -n; i <= n; i++ {
		add(float32(i) * 1.6e-4 * float32(2000000/n))
	}
	flush()
	for op := range numUnaryOps {
		if !ops[op] {
			continue
		}
		t.Logf("%-10s max %.3f ulp at %g (%#x)", unaryNames[op], worst[op], at[op], math.Float32bits(at[op]))
		if worst[op] > ulpRefs[op].bound {
			t.Errorf("%s: error %.3f ulp at %g, above the documented %.2f", unaryNames[op], worst[op], at[op], ulpRefs[op].bound)
		}
	}
}
