package autograd_test

import (
	"math"
	"testing"

	"github.com/goaten/goaten/autograd"
	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/tensor"
)

func vals(t *tensor.Tensor) []float64 { return t.Float64s() }

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestBasicBackward(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 2, 3}).SetRequiresGrad(true)
	y := x.Mul(x).Sum(nil)
	y.Backward()
	if got := vals(x.Grad()); !near(got, []float64{2, 4, 6}, 1e-12) {
		t.Fatalf("grad %v", got)
	}
	z := x.Exp().Sin().Sum(nil)
	g := autograd.Grad([]*tensor.Tensor{z}, []*tensor.Tensor{x}, nil)
	want := make([]float64, 3)
	for i, v := range []float64{1, 2, 3} {
		want[i] = math.Cos(math.Exp(v)) * math.Exp(v)
	}
	if got := vals(g[0]); !near(got, want, 1e-12) {
		t.Fatalf("grad %v want %v", got, want)
	}
}
