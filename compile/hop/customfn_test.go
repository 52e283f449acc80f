package hop_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/tensor"
)

// doubledSin is sin with a backward that is deliberately not sin's
// derivative (2·cos), so a compiled backward that differentiated the
// forward instead of tracing Backward would be caught.
type doubledSin struct{}

func (doubledSin) Forward(ctx *autograd.FunctionCtx, in ...any) []*T {
	x := in[0].(*T)
	ctx.SaveForBackward(x)
	return ts(x.Sin())
}

func (doubledSin) Backward(ctx *autograd.FunctionCtx, g ...*T) []*T {
	x := ctx.SavedTensors()[0]
	return ts(g[0].Mul(x.Cos()).Mul(num(2.0)))
}

// Seed 004: a custom autograd function under compile.Compile has its
// forward inlined into the forward graph and its Backward traced into the
// backward graph; the gradients equal eager ones.
func TestCustomFunctionCompiled(t *testing.T) {
	x := tensor.Randn([]int{3}).SetRequiresGrad(true)
	fn := func(x *T) *T { return autograd.Apply(doubledSin{}, x)[0].Mul(x).SumAll() }
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	res, err := c.Call(x)
	if err != nil {
		t.Fatal(err)
	}
	got := autograd.Grad(results(res), ts(x), nil)
	want := autograd.Grad(ts(fn(x)), ts(x), nil)
	expectClose(t, "grads", got, want)
	j := c.Joints()
	if len(j) != 1 {
		t.Fatalf("%d joints", len(j))
	}
	if f := j[0].Forward.Code(); !strings.Contains(f, "torch.ops.aten.sin.default(primals_1)") {
		t.Errorf("forward:\n%s", f)
	}
	if b := j[0].Backward.Code(); !strings.Contains(b, ", 2.0)") {
		t.Errorf("the backward does not run the user's Backward:\n%s", b)
	}
}
