package golden

import (
	"fmt"
	"math"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/tensor"
)

// Sanity checks the values of a nondeterministic op's result: the right
// distribution or structure, since the exact values cannot match PyTorch's.
func Sanity(op *tensor.Op, a []any, got any) error {
	switch op.Schema.Name {
	case "rand":
		v := got.(*tensor.Tensor).Float64s()
		for _, x := range v {
			if !(x >= 0 && x < 1) {
				return fmt.Errorf("rand value %v outside [0, 1)", x)
			}
		}
		return moments(v, 0.5, math.Sqrt(1.0/12))
	case "randn":
		return moments(got.(*tensor.Tensor).Float64s(), 0, 1)
	case "randperm":
		v := got.(*tensor.Tensor).Int64s()
		seen := make([]bool, len(v))
		for _, x := range v {
			if x < 0 || int(x) >= len(v) || seen[x] {
				return fmt.Errorf("randperm result is not a permutation: %v", v)
			}
			seen[x] = true
		}
	case "native_dropout":
		res := got.([]*tensor.Tensor)
		v := args.NativeDropoutOf(a)
		in := v.Input.Float64s()
		out, mask := res[0].Float64s(), res[1].Float64s()
		p := v.P
		train := v.Train.Or(true)
		if !train || p == 0 {
			return nil
		}
		scale := 1 / (1 - p)
		kept := 0
		for i := range in {
			want := in[i] * 0 // input.mul(mask): a dropped NaN or Inf gives NaN, as in PyTorch
			if mask[i] != 0 {
				want = in[i] * scale
				kept++
			}
			if !closeF(out[i], want, 1e-3, 1e-5) {
				return fmt.Errorf("dropout output %v at %d does not match mask %v and input %v", out[i], i, mask[i], in[i])
			}
		}
		if n := len(in); n >= 200 {
			frac := float64(kept) / float64(n)
			if math.Abs(frac-(1-p)) > 4*math.Sqrt(p*(1-p)/float64(n))+0.02 {
				return fmt.Errorf("dropout kept %.3f of elements, want about %.3f", frac, 1-p)
			}
		}
	}
	return nil
}

// moments checks mean and standard deviation loosely once there are enough samples.
func moments(v []float64, mean, std float64) error {
	n := float64(len(v))
	if n < 100 {
		return nil
	}
	var s, ss float64
	for _, x := range v {
		s += x
	}
	m := s / n
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / n)
	if math.Abs(m-mean) > 6*std/math.Sqrt(n) || math.Abs(sd-std) > 0.2*std {
		return fmt.Errorf("sample mean %.4f and std %.4f, want about %.4f and %.4f", m, sd, mean, std)
	}
	return nil
}
