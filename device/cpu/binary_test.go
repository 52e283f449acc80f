package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/goaten/goaten/asm"
	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func binF32(v ...float32) *tensor.Tensor { return tensor.FromSlice(v) }
func binF64(v ...float64) *tensor.Tensor { return tensor.FromSlice(v) }
func binI64(v ...int64) *tensor.Tensor   { return tensor.FromSlice(v) }
func binI32(v ...int32) *tensor.Tensor   { return tensor.FromSlice(v) }
func binBools(v ...bool) *tensor.Tensor  { return tensor.FromSlice(v) }

func TestBinaryErrors(t *testing.T) {
	cases := []struct {
		name   string
		op     string
		args   []any
		kwargs map[string]any
		want   string
	}{
		{"broadcast", "aten::add.Tensor", []any{tensor.Empty(tensor.Float32, 2, 3), tensor.Empty(tensor.Float32, 3, 2)}, nil,
			"The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"},
		{"where broadcast", "aten::where.self", []any{tensor.Empty(tensor.Bool, 2, 3), tensor.Empty(tensor.Float32, 2, 3), tensor.Empty(tensor.Float32, 4)}, nil,
			"The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"},
		{"sub binBools", "aten::sub.Tensor", []any{binBools(true), binBools(false)}, nil,
			"Subtraction, the `-` operator, with two bool tensors is not supported"},
		{"sub bool", "aten::sub.Tensor", []any{binF32(1), binBools(false)}, nil,
			"Subtraction, the `-` operator, with a bool tensor is not supported"},
		{"float alpha on ints", "aten::add.Tensor", []any{binI64(1), binI64(2)}, map[string]any{"alpha": 2.5},
			"For integral input tensors, argument alpha must not be a floating point number."},
		{"bool alpha", "aten::add.Tensor", []any{binF32(1), binF32(2)}, map[string]any{"alpha": tensor.BoolScalar(true)},
			"Boolean alpha only supported for Boolean results."},
		{"alpha overflow", "aten::sub.Tensor", []any{tensor.Empty(tensor.Int8, 2), tensor.Empty(tensor.Int8, 2)}, map[string]any{"alpha": -128},
			"value cannot be converted to type int8_t without overflow"},
		{"rounding mode", "aten::div.Tensor_mode", []any{binF32(1), binF32(2)}, map[string]any{"rounding_mode": "ceil"},
			"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'ceil'"},
		{"int floor div by zero", "aten::div.Tensor_mode", []any{binI64(1, 2), binI64(1, 0)}, map[string]any{"rounding_mode": "floor"},
			"ZeroDivisionError"},
		{"int remainder by zero", "aten::remainder.Scalar", []any{binI64(1, 2), 0}, nil, "ZeroDivisionError"},
		{"int fmod by zero", "aten::fmod.Tensor", []any{binI32(1), binI32(0)}, nil, "ZeroDivisionError"},
		{"negative int power", "aten::pow.Tensor_Scalar", []any{binI32(1, 2), -2}, nil,
			"Integers to negative integer powers are not allowed."},
		{"pow exponent overflow", "aten::pow.Tensor_Scalar", []any{tensor.Empty(tensor.Uint8, 2), 300}, nil,
			"value cannot be converted to type uint8_t without overflow"},
		{"bool pow", "aten::pow.Tensor_Tensor", []any{binBools(true), binBools(true)}, nil, `"pow" not implemented for 'Bool'`},
		{"bitwise on floats", "aten::bitwise_and.Tensor", []any{binF32(1), binF32(2)}, nil, `"bitwise_and_cpu" not implemented for 'Float'`},
		{"bitwise float scalar", "aten::bitwise_xor.Scalar", []any{binI64(1), 1.5}, nil, `"bitwise_xor_cpu" not implemented for 'Float'`},
		{"fmod bool", "aten::fmod.Tensor", []any{binBools(true), binBools(true)}, nil, `"fmod_cpu" not implemented for 'Bool'`},
		{"trunc div bool", "aten::div.Tensor_mode", []any{binBools(true), binBools(true)}, map[string]any{"rounding_mode": "trunc"},
			`"div_trunc_cpu" not implemented for 'Bool'`},
		{"atan2 half", "aten::atan2.default", []any{tensor.Empty(tensor.Float16, 2), tensor.Empty(tensor.Float16, 2)}, nil,
			`"atan2_cpu" not implemented for 'Half'`},
		{"where condition", "aten::where.self", []any{binF32(1), binF32(1), binF32(2)}, nil,
			"where expected condition to be a boolean tensor, but got a tensor with dtype Float"},
		{"atan2 out cast", "aten::atan2.out", []any{binF32(1), binF32(2)}, map[string]any{"out": binI64(0)},
			"result type Float can't be cast to the desired output type Long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tensor.CallErr(c.op, c.args, c.kwargs)
			if err == nil {
				t.Fatalf("%s: no error, want %q", c.op, c.want)
			}
			e, ok := tensor.AsError(err)
			if !ok {
				t.Fatalf("%s: error %T is not a *tensor.Error", c.op, err)
			}
			if !strings.Contains(e.Msg, c.want) {
				t.Fatalf("%s: error %q, want it to contain %q", c.op, e.Msg, c.want)
			}
		})
	}
}

func binCall(t *testing.T, op string, kwargs map[string]any, args ...any) *tensor.Tensor {
	t.Helper()
	r, err := tensor.CallErr(op, args, kwargs)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return r.(*tensor.Tensor)
}

func TestBinaryPromotion(t *testing.T) {
	cases := []struct {
		name string
		op   string
		args []any
		want tensor.DType
	}{
		// Two wrapped numbers of one dtype skip promotion (TensorIterator).
		{"wrapped floats", "aten::add.Tensor", []any{1.5, 2.5}, tensor.Float64},
		{"wrapped ints", "aten::add.Tensor", []any{1, 2}, tensor.Int64},
		{"wrapped int and float", "aten::add.Tensor", []any{1, 2.5}, tensor.Float32},
		{"int32 and wrapped float", "aten::add.Tensor", []any{binI32(1), 2.5}, tensor.Float32},
		{"int32 and wrapped int", "aten::mul.Tensor", []any{binI32(1), 2}, tensor.Int32},
		{"0-d float64 with float32", "aten::add.Tensor", []any{binF32(1), tensor.FromScalar(tensor.Float(1), tensor.Float64)}, tensor.Float32},
		{"0-d float with int", "aten::add.Tensor", []any{binI64(1), tensor.FromScalar(tensor.Float(1), tensor.Float64)}, tensor.Float64},
		{"true division of ints", "aten::div.Tensor", []any{binI64(1), binI64(2)}, tensor.Float32},
		{"floor division of ints", "aten::div.Tensor_mode", []any{binI64(1), binI64(2), "floor"}, tensor.Int64},
		{"atan2 of ints", "aten::atan2.default", []any{binI64(1), binI64(2)}, tensor.Float32},
		{"bool and Go bool scalar", "aten::bitwise_and.Scalar", []any{binBools(true), true}, tensor.Int64},
		{"bool and BoolScalar", "aten::bitwise_and.Scalar", []any{binBools(true), tensor.BoolScalar(true)}, tensor.Bool},
		{"comparison", "aten::lt.Scalar", []any{binI64(1), 2.5}, tensor.Bool},
		{"where", "aten::where.self", []any{binBools(true), binI64(1), binF32(2)}, tensor.Float32},
		{"pow scalar base", "aten::pow.Scalar", []any{2, binI32(3)}, tensor.Int32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var kw map[string]any
			args := c.args
			if c.op == "aten::div.Tensor_mode" {
				kw = map[string]any{"rounding_mode": args[2]}
				args = args[:2]
			}
			if got := binCall(t, c.op, kw, args...).DType(); got != c.want {
				t.Fatalf("dtype %s, want %s", got, c.want)
			}
		})
	}
}

func TestBinaryValues(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		op     string
		kwargs map[string]any
		args   []any
		want   []float64
	}{
		{"floor div ints", "aten::div.Tensor_mode", map[string]any{"rounding_mode": "floor"}, []any{binI64(-7, 7, 7, -8), binI64(2, -2, 2, 2)}, []float64{-4, -4, 3, -4}},
		{"trunc div ints", "aten::div.Tensor_mode", map[string]any{"rounding_mode": "trunc"}, []any{binI64(-7, 7, 7), binI64(2, -2, 2)}, []float64{-3, -3, 3}},
		{"floor div floats", "aten::div.Tensor_mode", map[string]any{"rounding_mode": "floor"},
			[]any{binF64(-0.0, 1, -1, 5.5, 1), binF64(3, math.Inf(1), math.Inf(1), -2, 0)}, []float64{0, 0, -1, -3, math.Inf(1)}},
		{"remainder follows divisor", "aten::remainder.Tensor", nil, []any{binI64(5, -5, 7), binI64(3, 3, -3)}, []float64{2, 1, -2}},
		{"fmod follows dividend", "aten::fmod.Tensor", nil, []any{binI64(5, -5, 7), binI64(3, 3, -3)}, []float64{2, -2, 1}},
		{"remainder floats", "aten::remainder.Scalar", nil, []any{binF64(5.5, -5.5), math.Inf(1)}, []float64{5.5, math.Inf(1)}},
		{"int pow negative exponent", "aten::pow.Tensor_Tensor", nil, []any{binI64(2, 1, -1, -1), binI64(-1, -3, -3, -2)}, []float64{0, 1, -1, 1}},
		{"pow base one", "aten::pow.Scalar", nil, []any{1, binF64(nan, 2)}, []float64{1, 1}},
		{"maximum NaN", "aten::maximum.default", nil, []any{binF32(float32(nan), 1, 3), binF32(1, float32(nan), 2)}, []float64{nan, nan, 3}},
		{"minimum", "aten::minimum.default", nil, []any{binI64(4, -1), binI64(2, 3)}, []float64{2, -1}},
		{"uint8 compare wraps scalar", "aten::eq.Scalar", nil, []any{tensor.FromScalar(tensor.Int(255), tensor.Uint8), -1}, []float64{1}},
		{"compare in common dtype", "aten::eq.Scalar", nil, []any{binI64(16777217), 16777216.0}, []float64{1}},
		{"logical xor", "aten::logical_xor.default", nil, []any{binF32(0, 2, float32(nan)), binF32(1, 3, 0)}, []float64{1, 0, 1}},
		{"bool add alpha", "aten::add.Tensor", map[string]any{"alpha": -1}, []any{binBools(true, false), binBools(true, false)}, []float64{1, 0}},
		{"int8 wraps", "aten::mul.Scalar", nil, []any{tensor.FromScalar(tensor.Int(100), tensor.Int8), 3}, []float64{44}},
		{"where", "aten::where.self", nil, []any{binBools(true, false), binF32(1, 2), binF32(3, 4)}, []float64{1, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := binCall(t, c.op, c.kwargs, c.args...).Float64s()
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] && !(math.IsNaN(got[i]) && math.IsNaN(c.want[i])) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestAtan2Out checks that out= is resized to the broadcast shape, written
// in its own dtype and returned.
func TestAtan2Out(t *testing.T) {
	out := tensor.Empty(tensor.Float64, 0)
	a := binF32(1, -1)
	b := tensor.FromSlice([]float32{1, 1, -1, -1}, 2, 2)
	r := binCall(t, "aten::atan2.out", map[string]any{"out": out}, a, b)
	if r != out {
		t.Fatal("atan2.out did not return its out tensor")
	}
	if got := out.Sizes(); len(got) != 2 || got[0] != 2 || got[1] != 2 || out.DType() != tensor.Float64 {
		t.Fatalf("out is %v %s, want [2 2] float64", got, out.DType())
	}
	want := []float64{math.Pi / 4, -math.Pi / 4, 3 * math.Pi / 4, -3 * math.Pi / 4}
	for i, v := range out.Float64s() {
		if math.Abs(v-want[i]) > 1e-6 {
			t.Fatalf("out = %v, want %v", out.Float64s(), want)
		}
	}
}

func binBench(b *testing.B, name string, args ...any) {
	op := tensor.MustOp(name)
	bound := op.Bind(args, nil)
	b.ReportAllocs()
	for b.Loop() {
		op.Invoke(bound)
	}
}

func binRamp(n int) *tensor.Tensor {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%97) - 40
	}
	return tensor.FromSlice(x)
}

func BenchmarkBinary(b *testing.B) {
	const n = 1 << 20
	x, y := binRamp(n), binRamp(n)
	b.Run("cpu/add.Tensor/binF32/1M", func(b *testing.B) {
		b.SetBytes(3 * 4 * n)
		binBench(b, "aten::add.Tensor", x, y)
	})
	b.Run("cpu/mul.Scalar/binF32/1M", func(b *testing.B) {
		b.SetBytes(2 * 4 * n)
		binBench(b, "aten::mul.Scalar", x, 0.5)
	})
	b.Run("cpu/lt.Tensor/binF32/1M", func(b *testing.B) {
		b.SetBytes(2*4*n + n)
		binBench(b, "aten::lt.Tensor", x, y)
	})
	xt := tensor.NewMeta([]int{1024, 1024}, []int{1, 1024}, 0, tensor.Float32, tensor.CPU).WithRaw(x.Raw())
	y2 := tensor.NewMeta([]int{1024, 1024}, []int{1024, 1}, 0, tensor.Float32, tensor.CPU).WithRaw(y.Raw())
	b.Run("cpu/mul.Tensor/binF32-transposed/1M", func(b *testing.B) {
		b.SetBytes(3 * 4 * n)
		binBench(b, "aten::mul.Tensor", xt, y2)
	})
	small := binRamp(16)
	b.Run("cpu/add.Tensor/binF32/16", func(b *testing.B) {
		binBench(b, "aten::add.Tensor", small, small)
	})
}

// where with a condition broadcast along leading dims (an attention mask
// [T, T] over [B, H, T, T]) runs the SIMD select period by period; the
// result is the one a materialised condition gives, for every element
// size, scalar operands and layouts that fall back to the general loop.
func TestWhereBroadcastCondition(t *testing.T) {
	cases := []struct{ cond, out []int }{
		{[]int{20, 20}, []int{2, 3, 20, 20}}, // period 400
		{[]int{1, 1, 30, 40}, []int{3, 2, 30, 40}},
		{[]int{1, 300}, []int{7, 300}},
		{[]int{8, 8}, []int{4, 2, 8, 8}}, // period 64: the general loop
		{[]int{30, 1}, []int{2, 30, 30}}, // broadcast inside: the general loop
		{[]int{5000}, []int{3, 5000}},    // periods split over the pool
	}
	for _, c := range cases {
		for _, d := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Int64, tensor.Float16, tensor.Bool} {
			for _, scalar := range []bool{false, true} {
				name := fmt.Sprintf("%v/%v/%s/scalar=%v", c.cond, c.out, d, scalar)
				n := 1
				for _, s := range c.out {
					n *= s
				}
				m := 1
				for _, s := range c.cond {
					m *= s
				}
				cv := make([]bool, m)
				for i := range cv {
					cv[i] = (i*7)%3 == 0
				}
				xv, yv := make([]float64, n), make([]float64, n)
				for i := range xv {
					xv[i], yv[i] = float64(i%13), -float64(i%11)
				}
				cond := tensor.FromSlice(cv, c.cond...)
				x := tensor.FromSlice(xv, c.out...).To(d)
				var y *tensor.Tensor = tensor.FromSlice(yv, c.out...).To(d)
				if scalar {
					y = tensor.FromScalar(tensor.Int(1), d)
				}
				got := tensor.Call("aten::where.self", cond, x, y).(*tensor.Tensor)
				full := cond.Expand(c.out).Contiguous()
				want := tensor.Call("aten::where.self", full, x, y).(*tensor.Tensor)
				if !sameF64(got.Float64s(), want.Float64s()) {
					t.Fatalf("%s: where differs from the materialised condition's", name)
				}
				// condAt is the condition element out[i] reads, by broadcasting.
				condAt := func(i int) bool {
					k, stride := 0, 1
					for j := len(c.out) - 1; j >= 0; j-- {
						idx := i % c.out[j]
						i /= c.out[j]
						if cj := j - (len(c.out) - len(c.cond)); cj >= 0 && c.cond[cj] > 1 {
							k += idx * stride
						}
						if cj := j - (len(c.out) - len(c.cond)); cj >= 0 {
							stride *= c.cond[cj]
						}
					}
					return cv[k]
				}
				xs, ys := x.Float64s(), y.Float64s()
				for i, g := range got.Float64s() {
					w := xs[i]
					if !condAt(i) {
						w = ys[min(i, len(ys)-1)]
					}
					if g != w {
						t.Fatalf("%s: out[%d] = %v, want %v", name, i, g, w)
					}
				}
			}
		}
	}
}

// A wrapped Python-style number in where (masked_fill's backward builds
// where(mask, 0.0, g)) is cast to the result dtype and takes the SIMD
// select like a scalar of that dtype.
func TestWhereWrappedScalar(t *testing.T) {
	n := 1000
	cv, gv := make([]bool, n), make([]float32, n)
	for i := range cv {
		cv[i], gv[i] = i%3 == 0, float32(i)
	}
	cond, g := tensor.FromSlice(cv), tensor.FromSlice(gv)
	for _, v := range []float64{0, 0.1, math.Inf(-1)} {
		got := tensor.Call("aten::where.self", cond, tensor.WrappedNumber(tensor.Float(v)), g).(*tensor.Tensor)
		if got.DType() != tensor.Float32 {
			t.Fatalf("where(mask, %v, float32) has dtype %s", v, got.DType())
		}
		for i, x := range got.Float64s() {
			want := float64(gv[i])
			if cv[i] {
				want = float64(float32(v))
			}
			if x != want {
				t.Fatalf("where(mask, %v, g)[%d] = %v, want %v", v, i, x, want)
			}
		}
	}
}

// TestSleefFmodOverflow: 1.13's vectorized fmod (Sleef) gives NaN where the
// quotient |x/y| overflows, the scalar remainder loop the exact result; fmod,
// remainder and floor division follow it by position (values from torch 1.13:
// -5.25 over the dtype's smallest normal, 40 elements: float32 and bfloat16
// vectorize the first 32, float64 all 40, float16 none; a stride-2 view runs
// the scalar loop; a broadcast row of 20 vectorizes 16 per row).
func TestSleefFmodOverflow(t *testing.T) {
	tiny := map[tensor.DType]float64{tensor.Float32: 0x1p-126, tensor.BFloat16: 0x1p-126, tensor.Float64: 0x1p-1022, tensor.Float16: 0x1p-14}
	ops := []struct {
		op     string
		kw     map[string]any
		scalar float64 // the scalar loop's result
	}{
		{"aten::fmod.Tensor", nil, math.Copysign(0, -1)},
		{"aten::remainder.Tensor", nil, math.Copysign(0, -1)},
		{"aten::div.Tensor_mode", map[string]any{"rounding_mode": "floor"}, math.Inf(-1)},
	}
	full := func(d tensor.DType, n int, v float64) *tensor.Tensor {
		return tensor.FromScalar(tensor.Float(v), d).Expand([]int{n}).Contiguous()
	}
	for _, o := range ops {
		for d, nvec := range map[tensor.DType]int{tensor.Float32: 32, tensor.BFloat16: 32, tensor.Float64: 40, tensor.Float16: 0} {
			t.Run(fmt.Sprintf("%s/%v", o.op, d), func(t *testing.T) {
				check := func(name string, got []float64, vec func(i int) bool) {
					for i, v := range got {
						want := o.scalar
						if vec(i) {
							want = math.NaN()
						}
						if !(v == want && math.Signbit(v) == math.Signbit(want)) && !(math.IsNaN(v) && math.IsNaN(want)) {
							t.Fatalf("%s: element %d is %v, want %v (%v)", name, i, v, want, got)
						}
					}
				}
				a, b := full(d, 80, -5.25), full(d, 80, tiny[d])
				check("contiguous", binCall(t, o.op, o.kw, a.Narrow(0, 0, 40), b.Narrow(0, 0, 40)).Float64s(),
					func(i int) bool { return i < nvec })
				check("strided", binCall(t, o.op, o.kw, a.Slice(tensor.WithStart(0), tensor.WithEnd(80), tensor.WithStep(2)), b.Slice(tensor.WithStart(0), tensor.WithEnd(80), tensor.WithStep(2))).Float64s(),
					func(int) bool { return false })
				if d == tensor.Float32 {
					check("broadcast rows", binCall(t, o.op, o.kw, a.View([]int{4, 20}), b.Narrow(0, 0, 20)).Float64s(),
						func(i int) bool { return i%20 < 16 })
				}
			})
		}
	}
}

// TestSleefFmodOverflowInPlace: fmod_ and remainder_ compute into self, and
// the NaN rule still reads the operands' values from before the call.
func TestSleefFmodOverflowInPlace(t *testing.T) {
	for _, op := range []string{"aten::fmod_.Tensor", "aten::remainder_.Tensor"} {
		a := tensor.FromScalar(tensor.Float(-5.25), tensor.Float32).Expand([]int{40}).Contiguous()
		b := tensor.FromScalar(tensor.Float(0x1p-126), tensor.Float32).Expand([]int{40}).Contiguous()
		got := binCall(t, op, nil, a, b).Float64s()
		for i, v := range got {
			if want := i < 32; math.IsNaN(v) != want {
				t.Fatalf("%s: element %d is %v, want NaN %v (%v)", op, i, v, want, got)
			}
		}
	}
}

// TestAddAlphaBFloat16Loops: 1.13 computes bfloat16 a + alpha·b with one
// rounding of a fused multiply-add in its vectorized loop and as a +
// bf16(alpha·b) in its scalar loop; 5.6875 - (-3.14)·(-1.8125) is
// -0.0048828125 in the first and 0 in the second (values of torch 1.13).
func TestAddAlphaBFloat16Loops(t *testing.T) {
	full := func(v float64, n ...int) *tensor.Tensor {
		return tensor.FromScalar(tensor.Float(v), tensor.BFloat16).Expand(n).Contiguous()
	}
	check := func(name string, got []float64, vec func(i int) bool) {
		t.Helper()
		for i, v := range got {
			want := 0.0
			if vec(i) {
				want = -0.0048828125
			}
			if v != want {
				t.Fatalf("%s: element %d is %v, want %v (%v)", name, i, v, want, got)
			}
		}
	}
	a, b := full(5.6875, 40), full(-1.8125, 40)
	first32 := func(i int) bool { return i < 32 }
	check("sub", binCall(t, "aten::sub.Tensor", map[string]any{"alpha": -3.14}, a, b).Float64s(), first32)
	check("add", binCall(t, "aten::add.Tensor", map[string]any{"alpha": 3.14}, a, b).Float64s(), first32)
	check("sub_", binCall(t, "aten::sub_.Tensor", map[string]any{"alpha": -3.14}, a.Clone(), b).Float64s(), first32)
	// A transposed operand against a contiguous one: no unit stride shared,
	// every element in the scalar loop.
	at := full(5.6875, 40, 2).T()
	check("transposed", binCall(t, "aten::add.Tensor", map[string]any{"alpha": 3.14}, at, full(-1.8125, 2, 40)).Contiguous().Float64s(),
		func(int) bool { return false })
}

// TestBinaryBroadcastRuns: broadcast operands taken a run at a time (a row
// bias, a broadcast middle dim, a constant per row, size-1 dims, a
// negative stride) give each element's own result.
func TestBinaryBroadcastRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	mk := func(shape ...int) *tensor.Tensor {
		v := make([]float32, tensor.Numel(shape))
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return tensor.FromSlice(v, shape...)
	}
	cases := []struct {
		name string
		a, b *tensor.Tensor
	}{
		{"row bias", mk(16, 96), mk(96)},
		{"bias first", mk(96), mk(16, 96)},
		{"middle", mk(4, 8, 80), mk(4, 1, 80)},
		{"per row", mk(16, 96), mk(16, 1)},
		{"size-1 dims", mk(3, 1, 70), mk(1, 1, 70)},
		{"flipped rows", mk(16, 96).Flip([]int{0}), mk(96)},
		{"flipped bias", mk(16, 96), mk(96).Flip([]int{0})},
		{"4-d", mk(2, 3, 4, 64), mk(3, 1, 64)},
		{"odd width", mk(5, 3, 7), mk(5, 1, 7)},
	}
	// Results of asm.StreamBytes and more take the streaming kernels in
	// blocks of rows: aligned rows, odd rows (unaligned starts, the bias
	// first), and a row repeated within each of many groups.
	sn := asm.StreamBytes() / 4
	cases = append(cases, []struct {
		name string
		a, b *tensor.Tensor
	}{
		{"stream bias", mk(sn/1024+3, 1024), mk(1024)},
		{"stream bias first, odd rows", mk(1023), mk(sn/1023+5, 1023)},
		{"stream middle", mk(sn/(64*1024)+1, 64, 1024), mk(sn/(64*1024)+1, 1, 1024)},
	}...)
	ops := []struct {
		op string
		f  func(x, y float32) float32
	}{
		{"aten::add.Tensor", func(x, y float32) float32 { return x + y }},
		{"aten::mul.Tensor", func(x, y float32) float32 { return x * y }},
		{"aten::div.Tensor", func(x, y float32) float32 { return x / y }},
		{"aten::sub.Tensor", func(x, y float32) float32 { return x - y }},
		{"aten::maximum.default", func(x, y float32) float32 { return max(x, y) }},
	}
	for _, c := range cases {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			a, b := c.a.To(dt), c.b.To(dt)
			shape := tensor.BroadcastShapes(a.Sizes(), b.Sizes())
			ae, be := a.Expand(shape).Contiguous().Float64s(), b.Expand(shape).Contiguous().Float64s()
			for _, o := range ops {
				got := binCall(t, o.op, nil, a, b).Float64s()
				for i := range got {
					want := float64(o.f(float32(ae[i]), float32(be[i])))
					if dt == tensor.Float64 {
						switch o.op {
						case "aten::add.Tensor":
							want = ae[i] + be[i]
						case "aten::mul.Tensor":
							want = ae[i] * be[i]
						case "aten::div.Tensor":
							want = ae[i] / be[i]
						case "aten::sub.Tensor":
							want = ae[i] - be[i]
						case "aten::maximum.default":
							want = max(ae[i], be[i])
						}
					}
					if got[i] != want {
						t.Fatalf("%s %v %s: element %d = %v, want %v", c.name, dt, o.op, i, got[i], want)
					}
				}
			}
		}
	}
}

// TestPowScalarSpecialExponents: float32 pow by 2, 3, 0.5, -0.5 and -1
// (SIMD kernels in blocks) is 1.13's plain arithmetic bit for bit, also in
// place and over more than one block, NaN, infinities and zeros included.
func TestPowScalarSpecialExponents(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	v := make([]float32, 2500)
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, 3e38}
	for i := range v {
		v[i] = float32(r.NormFloat64() * 3)
		if i%17 == 0 {
			v[i] = special[i%len(special)]
		}
	}
	ref := map[float64]func(x float32) float32{
		2:    func(x float32) float32 { return x * x },
		3:    func(x float32) float32 { return x * x * x },
		0.5:  func(x float32) float32 { return float32(math.Sqrt(float64(x))) },
		-0.5: func(x float32) float32 { return 1 / float32(math.Sqrt(float64(x))) },
		-1:   func(x float32) float32 { return 1 / x },
	}
	for e, f := range ref {
		x := tensor.FromSlice(v, len(v))
		got := binCall(t, "aten::pow.Tensor_Scalar", nil, x, e).Float64s()
		inPlace := binCall(t, "aten::pow_.Tensor_Scalar", nil, x.Clone(), e).Float64s()
		for i, xv := range v {
			want := f(xv)
			for _, g := range []float64{got[i], inPlace[i]} {
				if math.Float32bits(float32(g)) != math.Float32bits(want) && !(g != g && want != want) {
					t.Fatalf("pow(%v, %v) = %v, want %v", xv, e, g, want)
				}
			}
		}
	}
}

// TestLerpKernel holds torch 1.13's float32 lerp where a plain formula
// picked by |w| < 0.5 differs: the signed condition w < 0.5 and the fused
// multiply-adds (values of torch 1.13), and -5.75 lerped to ∞ by -4.6875
// is -∞ in float32 and bfloat16 (1.13), not ∞ − ∞.
func TestLerpKernel(t *testing.T) {
	cases := [][4]float32{
		{-0.7820168137550354, -28.419109344482422, 2.108964443206787, -59.06766128540039},
		{0.6648393869400024, -2.0842785835266113, 0.2858709692955017, -0.12105359882116318},
		{-0.30597570538520813, -32.33800506591797, -7.1879072189331055, 229.93727111816406},
		{0.9131519198417664, 83.40145111083984, -0.2819977402687073, -22.34836196899414},
		{0.2043411135673523, -226.24795532226562, -4.071513652801514, 922.2079467773438},
		{0.41633129119873047, 237.55587768554688, 0.21993449330329895, 52.571495056152344},
	}
	for _, c := range cases {
		s, e, w := tensor.FromSlice([]float32{c[0]}, 1), tensor.FromSlice([]float32{c[1]}, 1), tensor.FromSlice([]float32{c[2]}, 1)
		for _, got := range []*tensor.Tensor{
			binCall(t, "aten::lerp.Tensor", nil, s, e, w),
			binCall(t, "aten::lerp.Scalar", nil, s, e, float64(c[2])),
		} {
			if g := float32(got.Float64s()[0]); g != c[3] {
				t.Errorf("lerp(%v, %v, %v) = %v, torch 1.13 %v", c[0], c[1], c[2], g, c[3])
			}
		}
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
		s := tensor.FromSlice([]float32{-5.75}, 1).To(dt)
		e := tensor.FromSlice([]float32{float32(math.Inf(1))}, 1).To(dt)
		w := tensor.FromSlice([]float32{-4.6875}, 1).To(dt)
		if g := binCall(t, "aten::lerp.Tensor", nil, s, e, w).Float64s()[0]; !math.IsInf(g, -1) {
			t.Errorf("%v lerp(-5.75, inf, -4.6875) = %v, torch 1.13 -inf", dt, g)
		}
	}
}

// TestLargeResultInPieces: a result of asm.StreamBytes and more, shared
// between two goroutines whose pieces are each below the streaming size,
// takes the streaming kernels (pow 2 and 3, add, mul) and keeps the bits
// of the elementwise definition.
func TestLargeResultInPieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	n := asm.StreamBytes()/4 + 37
	r := rand.New(rand.NewPCG(61, 62))
	xv, yv := make([]float32, n), make([]float32, n)
	for i := range xv {
		xv[i], yv[i] = float32(r.NormFloat64()*4), float32(r.NormFloat64())
	}
	x, y := tensor.FromSlice(xv, n), tensor.FromSlice(yv, n)
	for _, c := range []struct {
		name string
		got  *tensor.Tensor
		want func(a, b float32) float32
	}{
		{"pow 3", tensor.Call("aten::pow.Tensor_Scalar", x, 3).(*tensor.Tensor), func(a, _ float32) float32 { return float32(a*a) * a }},
		{"pow 2", tensor.Call("aten::pow.Tensor_Scalar", x, 2).(*tensor.Tensor), func(a, _ float32) float32 { return a * a }},
		{"add", tensor.Call("aten::add.Tensor", x, y).(*tensor.Tensor), func(a, b float32) float32 { return a + b }},
		{"mul", tensor.Call("aten::mul.Tensor", x, y).(*tensor.Tensor), func(a, b float32) float32 { return a * b }},
	} {
		got := tensor.Elems[float32](c.got.Storage())[:n]
		for i := range got {
			if w := c.want(xv[i], yv[i]); math.Float32bits(got[i]) != math.Float32bits(w) {
				t.Fatalf("%s: element %d = %v, want %v", c.name, i, got[i], w)
			}
		}
	}
}
