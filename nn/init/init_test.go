package nninit_test

import (
	"testing"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
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
