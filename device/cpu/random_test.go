package cpu_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestRandomBadInput checks the random ops' argument checks and messages
// (ATen's).
func TestRandomBadInput(t *testing.T) {
	f := func(n ...int) *tensor.Tensor { return tensor.Empty(tensor.Float32, n...) }
	i64 := tensor.Empty(tensor.Int64, 3)
	cases := []struct {
		name, op string
		args     []any
		msg      string
	}{
		{"uniform_ reversed", "aten::uniform_", []any{f(3), 2.0, 1.0}, "uniform_ expects to return a [from, to) range, but found from=2 > to=1"},
		{"uniform_ out of float range", "aten::uniform_", []any{f(3), -1e39, 1.0}, "from is out of bounds for float"},
		{"uniform_ integer", "aten::uniform_", []any{i64, 0.0, 1.0}, `"check_uniform_bounds" not implemented for 'Long'`},
		{"normal_ negative std", "aten::normal_", []any{f(3), 0.0, -1.0}, "normal_ expects std >= 0.0, but found std -1"},
		{"normal_ integer", "aten::normal_", []any{i64, 0.0, 1.0}, `"normal_kernel_cpu" not implemented for 'Long'`},
		{"bernoulli_ p > 1", "aten::bernoulli_.float", []any{f(3), 1.5}, "bernoulli_ expects p to be in [0, 1], but got p=1.5"},
		{"bernoulli_ integer probabilities", "aten::bernoulli_.Tensor", []any{f(3), i64}, "expected probabilities tensor to have floating type, got Long"},
		{"bernoulli_ probabilities out of [0, 1]", "aten::bernoulli_.Tensor", []any{f(2), tensor.FromSlice([]float32{0.5, 2})}, "Expected p_in >= 0 && p_in <= 1 to be true"},
		{"bernoulli_ probabilities of another shape", "aten::bernoulli_.Tensor", []any{f(3), f(4)}, "The expanded size of the tensor"},
		{"exponential_ negative", "aten::exponential_", []any{f(3), -2.0}, "exponential_ expects lambda >= 0.0, but found lambda=-2"},
		{"random_ from >= to", "aten::random_.from", []any{f(3), 5, 5}, "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"},
		{"random_ int8 range", "aten::random_.from", []any{tensor.Empty(tensor.Int8, 2), 0, 300}, "to - 1 is out of bounds for signed char"},
		{"random_ uint8 from", "aten::random_.from", []any{tensor.Empty(tensor.Uint8, 2), -1, nil}, "from is out of bounds for unsigned char"},
		{"random_ full range int32", "aten::random_.from", []any{tensor.Empty(tensor.Int32, 2), math.MinInt64, nil}, "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"},
		{"randint empty range", "aten::randint", []any{0, []int{2}}, "random_ expects 'from' to be less than 'to', but got from=0 >= to=0"},
		{"randint negative size", "aten::randint.low", []any{0, 5, []int{-2}}, "Trying to create tensor with negative dimension -2: [-2]"},
		{"multinomial 3-d", "aten::multinomial", []any{f(2, 2, 2), 1}, "prob_dist must be 1 or 2 dim"},
		{"multinomial integer", "aten::multinomial", []any{i64, 1}, "multinomial only supports floating-point dtypes for input, got: Long"},
		{"multinomial no samples", "aten::multinomial", []any{f(3), 0}, "cannot sample n_sample <= 0 samples"},
		{"multinomial too many", "aten::multinomial", []any{f(3), 4}, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"},
		{"multinomial negative", "aten::multinomial", []any{tensor.FromSlice([]float32{1, -1}), 3, true}, "invalid multinomial distribution (encountering probability entry < 0)"},
		{"multinomial infinite", "aten::multinomial", []any{tensor.FromSlice([]float32{1, float32(math.Inf(1))}), 3, true}, "invalid multinomial distribution (encountering probability entry = infinity or NaN)"},
		{"multinomial zero row", "aten::multinomial", []any{tensor.FromSlice([]float64{0, 0, 1, 1}, 2, 2), 3, true}, "invalid multinomial distribution (sum of probabilities <= 0)"},
		{"multinomial no replacement, zeros", "aten::multinomial", []any{tensor.FromSlice([]float32{0, 0}), 1}, "invalid multinomial distribution (sum of probabilities <= 0)"},
		{"multinomial no replacement, nan", "aten::multinomial", []any{tensor.FromSlice([]float32{1, float32(math.NaN())}), 1}, "probability tensor contains either `inf`, `nan` or element < 0"},
	}
	for _, c := range cases {
		_, err := tensor.CallErr(c.op, c.args, nil)
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.msg)
			continue
		}
		if e, ok := tensor.AsError(err); !ok || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
		}
	}
}

// TestRandomValues checks where the random ops put their values, for every
// dtype they take, on contiguous and strided tensors.
func TestRandomValues(t *testing.T) {
	for _, d := range []tensor.DType{tensor.Float32, tensor.Float64, tensor.Float16, tensor.BFloat16} {
		for _, strided := range []bool{false, true} {
			x := tensor.Empty(d, 40, 3)
			if strided {
				x = tensor.Empty(d, 3, 40).Permute([]int{1, 0})
			}
			for _, v := range x.Uniform_(tensor.WithFrom(-2), tensor.WithTo(3)).To(tensor.Float64).Float64s() {
				if v < -2 || v > 3 {
					t.Fatalf("%v strided=%v uniform_ value %v outside [-2, 3]", d, strided, v)
				}
			}
			var s, ss float64
			vals := x.Normal_(tensor.WithMean(1), tensor.WithStd(2)).To(tensor.Float64).Float64s()
			for _, v := range vals {
				s += v
				ss += v * v
			}
			n := float64(len(vals))
			if m, sd := s/n, math.Sqrt(ss/n-s*s/n/n); math.Abs(m-1) > 0.6 || math.Abs(sd-2) > 0.6 {
				t.Errorf("%v strided=%v normal_(1, 2): mean %v sd %v", d, strided, m, sd)
			}
			for _, v := range x.Exponential_(tensor.WithLambd(2)).To(tensor.Float64).Float64s() {
				if !(v >= 0) {
					t.Fatalf("%v exponential_ value %v", d, v)
				}
			}
			for _, v := range x.RandomFrom_(-5, 7).To(tensor.Float64).Float64s() {
				if v < -5 || v >= 7 || v != math.Trunc(v) {
					t.Fatalf("%v random_(-5, 7) value %v", d, v)
				}
			}
		}
	}
	for _, d := range []tensor.DType{tensor.Bool, tensor.Uint8, tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64} {
		x := tensor.Empty(d, 50)
		for _, v := range x.Bernoulli_(tensor.WithP(0.5)).Int64s() {
			if v != 0 && v != 1 {
				t.Fatalf("%v bernoulli_ value %v", d, v)
			}
		}
		x.Random_()
		if d != tensor.Bool {
			lo := -3
			if d == tensor.Uint8 {
				lo = 0
			}
			for _, v := range x.RandomFrom_(lo, 4).Int64s() {
				if v < int64(lo) || v >= 4 {
					t.Fatalf("%v random_(%d, 4) value %v", d, lo, v)
				}
			}
		}
	}
	// multinomial: zero-probability categories never come out.
	p := tensor.FromSlice([]float32{0, 2, 0, 1, 0, 0, 5, 3}, 2, 4)
	for _, repl := range []bool{true, false} {
		n := 2
		if repl {
			n = 50
		}
		got := p.Multinomial(n, tensor.WithReplacement(repl))
		for i, v := range got.Int64s() {
			row := i / n
			if v < 0 || v > 3 || p.Float64s()[row*4+int(v)] == 0 {
				t.Fatalf("multinomial(replacement=%v) drew category %d of row %d", repl, v, row)
			}
		}
	}
}
