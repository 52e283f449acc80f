package autograd_test

import (
	"testing"

	"github.com/goaten/goaten/autograd"
)

// twice returns 2·x; its Backward returns a new tensor, marked unshared
// when mark is set, and remembers it.
type twice struct {
	mark, transposed bool
	made             *T
}

func (f *twice) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	return []*T{in[0].(*T).MulScalar(2)}
}

func (f *twice) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T {
	f.made = g[0].MulScalar(2)
	if f.transposed {
		f.made = g[0].MulScalar(2).T().Contiguous().T() // column-major
	}
	if f.mark {
		ctx.MarkUnshared(f.made)
	}
	return []*T{f.made}
}

// TestMarkUnshared: a leaf's first gradient that its Function marks
// unshared becomes .grad without a copy (AccumulateGrad's steal); unmarked,
// seen by a hook, recorded under create_graph, or not in the layout .grad
// must have, it is copied. The values are the same either way.
func TestMarkUnshared(t *testing.T) {
	for _, c := range []struct {
		name                    string
		mark, hook, create, col bool
		stolen                  bool
	}{
		{name: "marked", mark: true, stolen: true},
		{name: "unmarked"},
		{name: "hooked", mark: true, hook: true},
		{name: "create_graph", mark: true, create: true},
		{name: "column-major", mark: true, col: true},
	} {
		x := leaf(1, 2, 3, 4).Reshape([]int{2, 2}).Detach().SetRequiresGrad(true)
		if c.hook {
			autograd.RegisterHook(x, func(g *T) *T { return nil })
		}
		f := &twice{mark: c.mark, transposed: c.col}
		y := autograd.Apply(f, x)[0]
		if c.create {
			autograd.BackwardAll([]*T{y.SumAll()}, []*T{f64(1).Reshape([]int{})}, autograd.Options{CreateGraph: true})
		} else {
			y.SumAll().Backward()
		}
		if got := x.Grad() == f.made; got != c.stolen {
			t.Errorf("%s: .grad is the Function's tensor: %v, want %v", c.name, got, c.stolen)
		}
		wantVals(t, c.name, x.Grad(), 2, 2, 2, 2)
		if st := x.Grad().Strides(); st[0] != 2 || st[1] != 1 {
			t.Errorf("%s: .grad strides %v, want x's", c.name, st)
		}
	}
}
