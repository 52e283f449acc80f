package hop_test

import (
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/tensor"
)

// S21: test_nonlocal_mutation: a checkpointed function runs again in the
// backward, so its counter ends at 2.
func TestCheckpointRecomputes(t *testing.T) {
	count := 0
	fn := func(a ...*T) []*T { count++; return ts(a[0].Sin().Mul(a[1])) }
	x := tensor.Randn([]int{4, 4}).To(tensor.Float64).SetRequiresGrad(true)
	w := tensor.Randn([]int{4}).To(tensor.Float64).SetRequiresGrad(true)
	out := hop.Checkpoint(fn, x, w)[0]
	got := autograd.Grad(ts(out.SumAll()), ts(x, w), nil)
	if count != 2 {
		t.Errorf("count %d after forward and backward, want 2", count)
	}
	want := autograd.Grad(ts(x.Sin().Mul(w).SumAll()), ts(x, w), nil)
	expectClose(t, "grads", got, want)
	if err := autograd.Gradcheck(func(in []*T) []*T { return hop.Checkpoint(fn, in...) }, ts(x, w)); err != nil {
		t.Error(err)
	}
	if err := autograd.Gradcheck(func(in []*T) []*T { return hop.Wrap(fn, in...) }, ts(x, w)); err != nil {
		t.Error(err)
	}
}

// S21's and S20's graphs (make_fx names: x_1 for dynamo's l_x_).
func TestCheckpointGraphS21(t *testing.T) {
	fn := func(x *T) *T { return hop.Checkpoint(func(a ...*T) []*T { return ts(a[0].Sin()) }, x)[0] }
	x := tensor.Randn([]int{4, 4})
	for _, mode := range modes {
		gm := trace(t, fn, ts(x), mode, "x")
		expectCode(t, gm, "", `
def forward(self, x_1):
    wrap_body_0 = self.wrap_body_0
    tag_activation_checkpoint = torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, x_1, use_reentrant = True);  wrap_body_0 = x_1 = None
    getitem = tag_activation_checkpoint[0];  tag_activation_checkpoint = None
    return getitem`)
		expectCode(t, gm, "wrap_body_0", `
def forward(self, arg0_1):
    sin = torch.ops.aten.sin.default(arg0_1);  arg0_1 = None
    return (sin,)`)
		res, err := fx.NewInterpreter(gm).Run(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "interpreted", results(res), ts(x.Sin()))
	}
	wrap := func(x, y0, y1 *T) *T {
		return hop.Wrap(func(a ...*T) []*T { return ts(a[0].Add(a[1]).Mul(a[2]).SumAll()) }, x, y0, y1)[0]
	}
	gm := trace(t, wrap, ts(x, x, x), compile.Fake, "x", "y0", "y1")
	if c := code(t, gm, ""); !strings.Contains(c, `
    wrap = torch.ops.higher_order.wrap(wrap_body_0, x_1, y0_1, y1_1);  wrap_body_0 = x_1 = y0_1 = y1_1 = None
    getitem = wrap[0];  wrap = None`) {
		t.Errorf("wrap graph:\n%s", c)
	}
}

// Under AOT autograd the checkpointed region is recomputed in the backward
// graph: the forward saves its inputs, not its activations, and the
// gradients equal eager ones.
func TestCheckpointAOT(t *testing.T) {
	region := func(a ...*T) []*T { return ts(a[0].Matmul(a[1]).Sin().Cos()) }
	plain := func(x, w *T) *T { return region(x, w)[0].Mul(x.Sum([]int{1}, tensor.WithKeepdim(true))).SumAll() }
	ckpt := func(x, w *T) *T {
		return hop.Checkpoint(region, x, w)[0].Mul(x.Sum([]int{1}, tensor.WithKeepdim(true))).SumAll()
	}
	x := tensor.Randn([]int{3, 4}).SetRequiresGrad(true)
	w := tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
	jp, err := compile.TraceJoint(plain, ts(x, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	jc, err := compile.TraceJoint(ckpt, ts(x, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	saved := func(j *compile.Joint) string {
		out := j.Forward.Graph.OutputNode().Args()[0].(fx.Tuple)
		var names []string
		for _, v := range out[j.NumOut:] {
			names = append(names, v.(*fx.Node).Name)
		}
		return strings.Join(names, " ")
	}
	if s := saved(jc); strings.Contains(s, "mm") || strings.Contains(s, "sin") || strings.Contains(s, "cos") {
		t.Errorf("checkpointed: saved %s; want the region's inputs only\nforward:\n%s", s, jc.Forward.Code())
	}
	if s := saved(jp); !strings.Contains(s, "cos") {
		t.Errorf("without checkpoint: saved %s; want the activations", s)
	}
	if b := jc.Backward.Code(); !strings.Contains(b, "torch.ops.aten.mm.default(") || !strings.Contains(b, "torch.ops.aten.sin.default(") {
		t.Errorf("the backward does not recompute the region:\n%s", b)
	}
	want := autograd.Grad(ts(plain(x, w)), ts(x, w), nil)
	c := compile.Compile(ckpt, compile.Options{Fullgraph: true})
	res, err := c.Call(x, w)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled grads", autograd.Grad(results(res), ts(x, w), nil), want)
}
