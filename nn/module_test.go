package nn_test

import (
	"fmt"
	"strings"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/autograd"
	_ "github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

type leaf struct {
	nn.Base
	W, B *tensor.Tensor
}

func newLeaf(in, out int) *leaf {
	l := &leaf{}
	l.SetName("Leaf")
	l.W = l.RegisterParameter("weight", tensor.Randn([]int{out, in}))
	l.B = l.RegisterParameter("bias", tensor.ZerosOf([]int{out}))
	return l
}

type net struct {
	nn.Base
	A, B  *leaf
	C, D  *leaf // registered by TestModuleNames only
	Count *tensor.Tensor
}

func newNet() *net {
	n := &net{}
	n.SetName("Net")
	n.A = nn.Register(n, "a", newLeaf(3, 4))
	n.Count = n.RegisterBuffer("count", tensor.ZerosOf([]int{1}), true)
	n.RegisterBuffer("scratch", tensor.ZerosOf([]int{2}), false)
	n.B = nn.Register(n, "b", newLeaf(4, 2))
	return n
}

func TestModuleNames(t *testing.T) {
	n := newNet()
	var names []string
	for _, p := range n.NamedParameters() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "a.weight a.bias b.weight b.bias" {
		t.Errorf("parameters %s", got)
	}
	if ps := n.Parameters(); len(ps) != 4 || ps[0] != n.A.W || !ps[0].RequiresGrad() {
		t.Errorf("Parameters: %d, first is a.weight %v", len(ps), ps[0] == n.A.W)
	}
	// Parameters is NamedParameters without the names, in its order, each
	// tensor once: a leaf registered twice and a tied weight included.
	n.C = nn.Register(n, "c", n.A)
	tied := newLeaf(2, 2)
	tied.RegisterParameter("shared", n.B.W)
	n.D = nn.Register(n, "d", tied)
	named, ps := n.NamedParameters(), n.Parameters()
	if len(ps) != len(named) || len(ps) != 6 {
		t.Fatalf("Parameters: %d, NamedParameters: %d, want 6", len(ps), len(named))
	}
	for i := range ps {
		if ps[i] != named[i].Tensor {
			t.Errorf("Parameters()[%d] is not %s", i, named[i].Name)
		}
	}
	n.C, n.D = nil, nil
	n = newNet()
	sd := n.StateDict()
	if got := strings.Join(sd.Keys, " "); got != "count a.weight a.bias b.weight b.bias" {
		t.Errorf("state dict keys %s", got)
	}
	var bufs []string
	for _, b := range n.NamedBuffers() {
		bufs = append(bufs, b.Name)
	}
	if got := strings.Join(bufs, " "); got != "count scratch" || n.IsPersistent("scratch") || !n.IsPersistent("count") {
		t.Errorf("buffers %s", got)
	}
	n.Eval()
	if n.Training() || n.A.Training() {
		t.Error("Eval did not reach the children")
	}
	n.Train()
	if !n.B.Training() {
		t.Error("Train did not reach the children")
	}
}

func TestLoadStateDict(t *testing.T) {
	src, dst := newNet(), newNet()
	sd := src.StateDict().Tensors
	if err := dst.LoadStateDict(sd, true); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dst.A.W.Float64s()) != fmt.Sprint(src.A.W.Float64s()) {
		t.Fatal("weights not loaded")
	}
	bad := map[string]*tensor.Tensor{}
	for k, v := range sd {
		bad[k] = v
	}
	delete(bad, "b.bias")
	bad["c.weight"] = tensor.ZerosOf([]int{1})
	bad["a.weight"] = tensor.ZerosOf([]int{5, 3})
	err := dst.LoadStateDict(bad, true)
	want := "Error(s) in loading state_dict for Net:\n\t" +
		`Missing key(s) in state_dict: "b.bias". ` + "\n\t" +
		`Unexpected key(s) in state_dict: "c.weight". ` + "\n\t" +
		"size mismatch for a.weight: copying a param with shape torch.Size([5, 3]) from checkpoint, the shape in current model is torch.Size([4, 3])."
	if err == nil || err.Error() != want {
		t.Fatalf("err:\n%v\nwant:\n%s", err, want)
	}
	delete(bad, "a.weight")
	if err := dst.LoadStateDict(bad, false); err != nil {
		t.Fatalf("non-strict: %v", err)
	}
}

func TestZeroGradAndTo(t *testing.T) {
	n := newNet()
	w := n.A.W
	w.Mul(w).SumAll().Backward()
	if w.Grad() == nil {
		t.Fatal("no gradient")
	}
	n.ZeroGrad()
	if w.Grad() != nil {
		t.Fatal("ZeroGrad left a gradient")
	}
	dev, _ := tensor.LookupDevice("gonum")
	want := w.Float64s()
	n.To(dev)
	if w.Device() != dev || n.Count.Device() != dev || !w.RequiresGrad() {
		t.Fatalf("To: weight on %s (requires grad %v), buffer on %s", w.Device(), w.RequiresGrad(), n.Count.Device())
	}
	if fmt.Sprint(w.Float64s()) != fmt.Sprint(want) {
		t.Fatal("To changed the values")
	}
}

// TestZeroGradSetToNoneFalse is PyTorch 1.13's zero_grad(): each gradient
// keeps its tensor, filled with zeros, and the next backward adds into it;
// a gradient a create_graph backward built is detached first.
func TestZeroGradSetToNoneFalse(t *testing.T) {
	n := newNet()
	w, b := n.A.W, n.A.B
	w.Mul(w).SumAll().Backward()
	g := w.Grad()
	n.ZeroGrad(nn.SetToNone(false))
	if w.Grad() != g {
		t.Fatal("ZeroGrad(SetToNone(false)) replaced the gradient tensor")
	}
	if !tensor.AllClose(g, w.Detach().ZerosLike(), 0, 0) {
		t.Fatalf("gradient after ZeroGrad(SetToNone(false)): %v", g)
	}
	if b.Grad() != nil {
		t.Fatal("a parameter with no gradient got one")
	}
	w.MulScalar(3).SumAll().Backward()
	if w.Grad() != g || !tensor.AllClose(g, w.Detach().FullLike(3), 0, 0) {
		t.Fatalf("the next backward did not add into the kept gradient: %v", w.Grad())
	}

	autograd.Backward(w.Mul(w).SumAll(), nil, autograd.Options{CreateGraph: true})
	if autograd.GradFn(w.Grad()) == nil {
		t.Fatal("create_graph left the gradient without history")
	}
	n.ZeroGrad(nn.SetToNone(false))
	if g := w.Grad(); g == nil || autograd.GradFn(g) != nil || g.RequiresGrad() || !tensor.AllClose(g, w.Detach().ZerosLike(), 0, 0) {
		t.Fatalf("gradient after ZeroGrad(SetToNone(false)) of a create_graph gradient: %v", g)
	}
	n.ZeroGrad(nn.SetToNone(true))
	if w.Grad() != nil {
		t.Fatal("ZeroGrad(SetToNone(true)) left a gradient")
	}

	err := tensor.Try(func() { n.ZeroGrad(nn.Kw("lr", 1.0)) })
	te, ok := tensor.AsError(err)
	if !ok || te.Kind != tensor.TypeError || te.Msg != "Module.zero_grad() got an unexpected keyword argument 'lr'" {
		t.Fatalf("ZeroGrad(lr=1): %v", err)
	}
}

func TestRegisterMisuse(t *testing.T) {
	n := newNet()
	for _, f := range []func(){
		func() { n.RegisterParameter("a", nil) },
		func() { n.RegisterBuffer("x.y", nil, true) },
		func() { n.RegisterModule("", newLeaf(1, 1)) },
	} {
		if err := tensor.Try(f); err == nil {
			t.Error("no error")
		}
	}
}
