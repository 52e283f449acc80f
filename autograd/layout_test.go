package autograd_test

import (
	"slices"
	"testing"

	"github.com/goaten/goaten/autograd"
)

// colMajor makes a leaf of the given rows×cols values stored column by
// column (strides 1, rows), as torch.randn(cols, rows).t() is.
func colMajor(rows, cols int, vals ...float64) *T {
	return f64(vals...).Reshape([]int{rows, cols}).T().Contiguous().T().Detach().SetRequiresGrad(true)
}

// A weight used through .t() gets a row-major .grad, and column-major leaves
// get column-major gradients, as PyTorch's gradient layout contract and
// mm_mat1/mat2_backward give; the values are those of the row-major product.
func TestGradLayoutContract(t *testing.T) {
	x := leaf(1, 2, 3, 4, 5, 6).Reshape([]int{2, 3}).Detach().SetRequiresGrad(true)
	w := leaf(1, -1, 2, 0.5, 3, -2).Reshape([]int{2, 3}).Detach().SetRequiresGrad(true) // [out=2, in=3]
	x.Mm(w.T()).Mul(f64(1, 2, 3, 4).Reshape([]int{2, 2})).SumAll().Backward()
	// Values and strides as PyTorch 1.13 gives them.
	wantVals(t, "w.grad", w.Grad(), 13, 17, 21, 18, 24, 30)
	wantVals(t, "x.grad", x.Grad(), 2, 5, -2, 5, 9, -2)
	if !slices.Equal(w.Grad().Strides(), []int{3, 1}) {
		t.Fatalf("w.grad strides %v, want w's [3 1]", w.Grad().Strides())
	}

	a := colMajor(2, 3, 1, 2, 3, 4, 5, 6)
	b := colMajor(3, 2, 1, -1, 2, 0.5, 3, -2)
	a.Mm(b).Mul(f64(1, 2, 3, 4).Reshape([]int{2, 2})).SumAll().Backward()
	for _, c := range []struct {
		name string
		g    *T
		want []float64
		st   []int
	}{
		// a.grad = g·bᵀ, b.grad = aᵀ·g.
		{"a.grad", a.Grad(), []float64{-1, 3, -1, -1, 8, 1}, []int{1, 2}},
		{"b.grad", b.Grad(), []float64{13, 18, 17, 24, 21, 30}, []int{1, 3}},
	} {
		wantVals(t, c.name, c.g, c.want...)
		if !slices.Equal(c.g.Strides(), c.st) {
			t.Fatalf("%s strides %v, want %v", c.name, c.g.Strides(), c.st)
		}
	}
}

// Outside create_graph a second backward adds into the existing .grad in
// place (variable_grad += new_grad), so .grad keeps its identity; under
// create_graph the first .grad is a copy of the incoming gradient (values
// as PyTorch 1.13 gives them).
func TestGradAccumulatesInPlace(t *testing.T) {
	x := leaf(1, 2, 3)
	x.MulScalar(3).BackwardWith(f64(1, 10, 100))
	g := x.Grad()
	x.MulScalar(2).SumAll().Backward()
	if x.Grad() != g {
		t.Fatal("a second backward replaced .grad instead of adding into it")
	}
	wantVals(t, "accumulated", g, 5, 32, 302)

	y := leaf(1, 2)
	u := f64(5, 7)
	autograd.BackwardAll([]*T{y.View([]int{2})}, []*T{u}, autograd.Options{CreateGraph: true})
	g = y.Grad()
	u.Fill_(0.0)
	wantVals(t, "create_graph, after changing the incoming gradient", g, 5, 7)
	y.View([]int{2}).BackwardWith(f64(1, 1))
	if y.Grad() != g {
		t.Fatal("a backward after a create_graph one replaced .grad instead of adding into it")
	}
	wantVals(t, "accumulated after create_graph", g, 6, 8)
}
