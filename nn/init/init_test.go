package nninit_test

import (
	"errors"
	"math"
	"testing"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
	"github.com/goaten/goaten/tensor"
)

// The functions write a parameter (a leaf that requires grad) in place, as
// under torch.no_grad: it stays a leaf, its values change.
func TestWritesParameterInPlace(t *testing.T) {
	fills := map[string]func(*gt.Tensor){
		"Orthogonal_":  func(w *gt.Tensor) { nninit.Orthogonal_(w, 1) },
		"TruncNormal_": func(w *gt.Tensor) { nninit.TruncNormal_(w, 0, 1, -2, 2) },
		"Sparse_":      func(w *gt.Tensor) { nninit.Sparse_(w, 0.5, 1) },
		"Eye_":         func(w *gt.Tensor) { nninit.Eye_(w) },
	}
	for name, fill := range fills {
		w := gt.Full(7.0, 3, 4, gt.WithRequiresGrad(true))
		fill(w)
		if !w.RequiresGrad() || !w.IsLeaf() {
			t.Errorf("%s: requires grad %v, leaf %v; want a leaf that requires grad", name, w.RequiresGrad(), w.IsLeaf())
		}
		for _, v := range w.Float64s() {
			if v == 7 {
				t.Errorf("%s: left %v unwritten", name, w.Float64s())
				break
			}
		}
	}
}

// Orthogonal_ of a conv weight flattens its trailing dims: the rows of the
// (out, in·k) matrix are orthonormal, times gain.
func TestOrthogonalConvRows(t *testing.T) {
	gt.ManualSeed(3)
	w := nninit.Orthogonal_(gt.Empty(3, 2, 2, 2, gt.WithDtype(gt.Float64)), 2)
	m := w.Reshape([]int{3, 8})
	if !gt.AllClose(m.Matmul(m.T()), gt.Eye(3, gt.WithDtype(gt.Float64)).MulScalar(4), 0, 1e-12) {
		t.Errorf("W·Wᵀ = %v, want 4·I", m.Matmul(m.T()).Float64s())
	}
}

// Where PyTorch's Python raises an error goaten has no kind for
// (ZeroDivisionError, OverflowError), the functions panic with a ValueError
// in Python's words, before drawing.
func TestPythonErrors(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { nninit.TruncNormal_(gt.Empty(2), 0, 0, -2, 2) }, "float division by zero"},
		{func() { nninit.Sparse_(gt.Empty(2, 2), math.NaN(), 0.01) }, "cannot convert float NaN to integer"},
		{func() { nninit.Sparse_(gt.Empty(2, 2), math.Inf(1), 0.01) }, "cannot convert float infinity to integer"},
		{func() { nninit.Dirac_(gt.Empty(2, 2, 2), 0) }, "integer modulo by zero"},
	} {
		gt.ManualSeed(0)
		want0 := gt.Rand(1).Float64s()[0]
		gt.ManualSeed(0)
		err := gt.Try(c.f)
		var te *gt.Error
		if !errors.As(err, &te) || te.Kind != tensor.ValueError || te.Msg != c.want {
			t.Errorf("got %v, want ValueError: %s", err, c.want)
		}
		if got := gt.Rand(1).Float64s()[0]; got != want0 {
			t.Errorf("%s: drew before the error", c.want)
		}
	}
}

// Sparse_ of a tensor with no rows draws randperm(0) per column: nothing
// past the normal fill, which draws nothing either.
func TestSparseNoRows(t *testing.T) {
	gt.ManualSeed(0)
	want := gt.Rand(1).Float64s()
	gt.ManualSeed(0)
	nninit.Sparse_(gt.Empty(0, 3), 0.5, 0.01)
	if got := gt.Rand(1).Float64s(); got[0] != want[0] {
		t.Errorf("next draw %v, want %v", got, want)
	}
}
