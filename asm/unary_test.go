package asm

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var unaryNames = [numUnaryOps]string{"exp", "log", "tanh", "sigmoid", "silu", "gelu", "gelu_tanh", "erf",
	"relu", "abs", "neg", "sqrt", "rsqrt", "reciprocal", "sin", "cos"}

// checkUnary runs kernel op and its twin on x0 at offset off, and in place.
func checkUnary(t testing.TB, op unaryOp, x0 []float32, off int) {
	t.Helper()
	want := make([]float32, len(x0))
	unaryGo[op](want, x0)
	for _, inPlace := range []bool{false, true} {
		x, xb := ewPad(x0, off, ewGuard)
		d, db := ewPad(make([]float32, len(x0)), off+1, ewGuard)
		if inPlace {
			d, db = x, xb
		}
		unary(op, unaryNames[op], d, x) // un32, or the streaming kernels past streamBytes
		for i := range want {
			if !ewSame(d[i], want[i]) {
				t.Fatalf("%s n=%d off=%d in place %v: f(%v) [%d] = %v (%#x), twin %v (%#x)", unaryNames[op], len(x0), off, inPlace,
					x0[i], i, d[i], math.Float32bits(d[i]), want[i], math.Float32bits(want[i]))
			}
		}
		if inPlace {
			ewCheckGuards(t, unaryNames[op], xb, off, len(x0), ewGuard)
		} else {
			ewCheckGuards(t, unaryNames[op]+" dst", db, off+1, len(x0), ewGuard)
			ewCheckGuards(t, unaryNames[op]+" x", xb, off, len(x0), ewGuard)
		}
	}
}

func TestUnary(t *testing.T) {
	if Path() != "go" && runtimeHasUnaryAsm && un32 == &unaryGo {
		t.Fatalf("path %s but the unary kernels are the twins", Path())
	}
	r := rand.New(rand.NewPCG(5, 6))
	for op := range numUnaryOps {
		for _, n := range ewLens() {
			for off := 0; off < 3; off++ {
				checkUnary(t, op, ewValues32(r, n), off)
			}
		}
	}
}

// TestUnaryStreaming is TestUnary with every result streamed (the
// memory-bound ops' non-temporal kernels after an ordinary head up to the
// first 32-byte boundary of dst; the others as before).
func TestUnaryStreaming(t *testing.T) {
	if useAVX2FMA && (un32NT == nil || un32NT[uRelu] == nil) {
		t.Fatal("the AVX2 path has no streaming kernels")
	}
	defer func(b int) { streamBytes = b }(streamBytes)
	streamBytes = 0
	r := rand.New(rand.NewPCG(7, 8))
	for op := range numUnaryOps {
		for _, n := range ewLens() {
			for off := 0; off < 3; off++ {
				checkUnary(t, op, ewValues32(r, n), off)
			}
		}
	}
}

// TestUnaryDense compares each kernel in use with its twin on every
// 65537th float32 bit pattern and on [-20, 20] in steps of 1e-4, where the
// polynomials and their seams are.
// GOATEN_DENSE_STEP=k takes every k-th pattern instead (1: all of them),
// and GOATEN_DENSE_OPS=rsqrt,exp limits the check to those kernels.
func TestUnaryDense(t *testing.T) {
	step := uint64(65537)
	if testing.Short() || raceEnabled {
		step = 1 << 20
	}
	if s := os.Getenv("GOATEN_DENSE_STEP"); s != "" {
		step, _ = strconv.ParseUint(s, 10, 64)
	}
	var ops []unaryOp
	for op := range numUnaryOps {
		if os.Getenv("GOATEN_DENSE_OPS") == "" || slices.Contains(strings.Split(os.Getenv("GOATEN_DENSE_OPS"), ","), unaryNames[op]) {
			ops = append(ops, op)
		}
	}
	var xs []float32
	for i := -200000; i <= 200000; i++ {
		xs = append(xs, float32(i)*1e-4)
	}
	for b := uint64(0); b < 1<<32; b += step {
		xs = append(xs, math.Float32frombits(uint32(b)))
		if len(xs) == 1<<22 || b+step >= 1<<32 {
			for _, op := range ops {
				checkUnary(t, op, xs, 0)
			}
			xs = xs[:0]
		}
	}
}

// TestUnarySpecial pins the special values to PyTorch 1.13's.
func TestUnarySpecial(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	cases := []struct {
		f       func(d, x []float32)
		name    string
		x, want float32
	}{
		{ExpF32, "exp", -inf, 0}, {ExpF32, "exp", inf, inf}, {ExpF32, "exp", 89, inf}, {ExpF32, "exp", -104, 0},
		{ExpF32, "exp", -100, 3.783506e-44}, {ExpF32, "exp", negz, 1},
		{LogF32, "log", 0, -inf}, {LogF32, "log", negz, -inf}, {LogF32, "log", -1, nan}, {LogF32, "log", inf, inf},
		{LogF32, "log", 3e-45, -102.58578}, {LogF32, "log", 1, 0},
		{TanhF32, "tanh", -inf, -1}, {TanhF32, "tanh", inf, 1}, {TanhF32, "tanh", negz, negz},
		{SigmoidF32, "sigmoid", -inf, 0}, {SigmoidF32, "sigmoid", inf, 1}, {SigmoidF32, "sigmoid", 0, 0.5},
		{SiluF32, "silu", -inf, nan}, {SiluF32, "silu", inf, inf}, {SiluF32, "silu", -1e30, negz},
		{GeluF32, "gelu", -inf, nan}, {GeluF32, "gelu", inf, inf}, {GeluF32, "gelu", -20, negz},
		{GeluTanhF32, "gelu_tanh", -inf, nan}, {GeluTanhF32, "gelu_tanh", inf, inf},
		{ErfF32, "erf", -inf, -1}, {ErfF32, "erf", inf, 1}, {ErfF32, "erf", negz, negz},
		{ReluF32, "relu", negz, negz}, {ReluF32, "relu", -inf, 0}, {ReluF32, "relu", nan, nan},
		{SqrtF32, "sqrt", -1, nan}, {RsqrtF32, "rsqrt", negz, -inf}, {RsqrtF32, "rsqrt", inf, 0},
		{ReciprocalF32, "reciprocal", negz, -inf},
		{SinF32, "sin", inf, nan}, {SinF32, "sin", negz, negz}, {CosF32, "cos", -inf, nan},
		{SinF32, "sin", -1e30, 0.79116344}, {CosF32, "cos", 1e30, -0.6116048},
	}
	for _, c := range cases {
		for _, n := range []int{1, 9} { // the masked tail and a full vector
			x := make([]float32, n)
			for i := range x {
				x[i] = c.x
			}
			d := make([]float32, n)
			c.f(d, x)
			if !ewSame(d[n-1], c.want) && !(c.want != 0 && math.Abs(float64(d[n-1]-c.want)) <= 2e-7*math.Abs(float64(c.want))) {
				t.Errorf("%s(%v) = %v, want %v", c.name, c.x, d[n-1], c.want)
			}
		}
	}
}

// FuzzUnary runs every unary kernel on float32 bit patterns from data.
func FuzzUnary(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 2, 3, 4}, uint8(3))
	f.Add(make([]byte, 4*67+1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, off uint8) {
		x := make([]float32, len(data)/4)
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		for op := range numUnaryOps {
			checkUnary(t, op, x, int(off%8))
		}
	})
}

// TestRecipCorrection checks the last step of the rsqrt kernels (RSQRTCORE
// in unary_amd64.s), 1/s rounded correctly from either float32 neighbour
// y of 1/s: r = 1 - s·y is exact and y + y·r, rounded once, is 1/s
// rounded, for every significand but all ones, whose result the kernels
// set right by its lowest bit. The scaling by 2^k being exact, the
// significands m = M·2^-23 in [1, 2) are all the cases; in integers, y =
// Y·2^-24 and r = R·2^-47 with R = 2^47 - M·Y.
func TestRecipCorrection(t *testing.T) {
	for M := int64(1<<23 + 1); M < 1<<24; M++ { // m = 1 has 1/m exact
		want := (1<<47 + M/2) / M // 1/m rounded (no ties: m is not a power of 2)
		lo := (1 << 47) / M
		for _, Y := range []int64{lo, lo + 1} {
			R := 1<<47 - M*Y
			if a := R >> bits.TrailingZeros64(uint64(R)); a >= 1<<24 || a <= -1<<24 {
				t.Fatalf("m = %#x, y = %#x: r = %d·2^-47 is not a float32", M, Y, R)
			}
			// y + y·r = (Y·2^47 + Y·R)·2^-71, on the grid 2^-24 of [1/2, 1]:
			// Y plus Y·R/2^47 rounded to nearest, ties to even.
			p := Y * R
			q, rem := p>>47, p&(1<<47-1) // floor, and what it dropped
			if rem > 1<<46 || rem == 1<<46 && (Y+q)&1 == 1 {
				q++
			}
			got := Y + q
			if M == 1<<24-1 {
				got |= 1
			}
			if got != want {
				t.Fatalf("m = %#x from y = %#x: %#x, want %#x", M, Y, got, want)
			}
		}
	}
}
