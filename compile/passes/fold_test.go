package passes_test

import (
	"math"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

func attrNames(gm *fx.GraphModule) string { return strings.Join(gm.AttrNames(), " ") }

// buildFold: a weight computed from constants (a chain, a split, a matmul),
// then used with the input.
func buildFold() builder {
	b, ph := newBuilder("x_1")
	x := ph[0]
	w := b.constant(tensor.FromSlice([]float32{0.1, -0.0, 3, 1e-7, float32(math.NaN()), -2.5}, 2, 3))
	s := b.constant(tensor.FromSlice([]float32{0.3}))
	t := b.call(op("aten::t"), w)
	m := b.call(op("aten::mm"), w, t)
	e := b.call(op("aten::exp"), b.call(op("aten::mul.Tensor"), m, s))
	sp := b.call(op("aten::split.Tensor"), w, 1)
	g0, g1 := b.call(fx.GetItem, sp, 0), b.call(fx.GetItem, sp, 1)
	d := b.callKw(op("aten::_to_copy"), []any{b.call(op("aten::sub.Tensor"), g0, g1)}, fx.Kwargs{{Name: "dtype", Value: tensor.Float64}})
	b.g.Output(fx.Tuple{b.call(op("aten::add.Tensor"), x, e), b.call(op("aten::mul.Tensor"), x, d), s})
	return b
}

// TestFoldConstants: the constant part is evaluated once, stored as
// _frozen_paramN attributes, and the unused constants go.
func TestFoldConstants(t *testing.T) {
	b := buildFold()
	apply(t, passes.FoldConstants, b.gm, `
def forward(self, x_1):
    _tensor_constant1 = self._tensor_constant1
    _frozen_param0 = self._frozen_param0
    _frozen_param1 = self._frozen_param1
    add = torch.ops.aten.add.Tensor(x_1, _frozen_param0);  _frozen_param0 = None
    mul_1 = torch.ops.aten.mul.Tensor(x_1, _frozen_param1);  x_1 = _frozen_param1 = None
    return (add, mul_1, _tensor_constant1)`)
	if got := attrNames(b.gm); got != "_tensor_constant1 _frozen_param0 _frozen_param1" {
		t.Errorf("attributes %q", got)
	}
	// Bit for bit what the unfolded graph computes.
	x := func() *tensor.Tensor { return tensor.FromSlice([]float32{-1, 0.5}, 2, 1) }
	got, want := eval(t, b.gm, x()), eval(t, buildFold().gm, x())
	if !sameBits(got, want) {
		t.Errorf("folded %v\nunfolded %v", got, want)
	}
	// Folding again finds nothing to do.
	before := code(b.gm)
	apply(t, passes.FoldConstants, b.gm, before)
}

// TestFoldKeeps: random and mutating calls, written constants and results
// are not folded; getitem of an unfolded call stays.
func TestFoldKeeps(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	c := b.constant(tensor.FromSlice([]float32{1, 2, 3}))
	buf := b.constant(tensor.FromSlice([]float32{4, 5, 6}))
	dr := b.call(op("aten::native_dropout"), c, 0.5, true) // random
	r := b.call(op("aten::rand"), []int{3})                // random factory
	b.call(op("aten::add_.Tensor"), buf, x)                // buf is a buffer updated in place
	m := b.call(op("aten::mul.Tensor"), buf, 2)            // so not a constant
	z := b.call(op("aten::zeros"), []int{3})               // written below: its own tensor each call
	b.call(op("aten::copy_"), z, x)
	v := b.call(op("aten::view"), c, []int{3})
	b.call(op("aten::sub.Tensor"), c, c) // unused: folded and gone
	b.g.Output(fx.Tuple{b.call(fx.GetItem, dr, 0), r, m, z, v})
	apply(t, passes.FoldConstants, b.gm, `
def forward(self, x_1):
    _tensor_constant0 = self._tensor_constant0
    _tensor_constant1 = self._tensor_constant1
    native_dropout = torch.ops.aten.native_dropout.default(_tensor_constant0, 0.5, True);  _tensor_constant0 = None
    rand = torch.ops.aten.rand.default([3])
    add_ = torch.ops.aten.add_.Tensor(_tensor_constant1, x_1)
    mul = torch.ops.aten.mul.Tensor(_tensor_constant1, 2);  _tensor_constant1 = None
    zeros = torch.ops.aten.zeros.default([3])
    copy_ = torch.ops.aten.copy_.default(zeros, x_1);  x_1 = None
    _frozen_param0 = self._frozen_param0
    getitem = native_dropout[0];  native_dropout = None
    return (getitem, rand, mul, zeros, _frozen_param0)`)
	if got := attrNames(b.gm); got != "_tensor_constant0 _tensor_constant1 _frozen_param0" {
		t.Errorf("attributes %q", got)
	}
}

// TestFoldFactories: a small factory call is folded, one larger than
// FactoryFoldLimit is not (and is never materialized: it is measured on the
// meta device); results on the meta device are not folded.
func TestFoldFactories(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	small := b.call(op("aten::ones"), []int{2})
	big := b.call(op("aten::zeros"), []int{1024, 1025})
	ar := b.call(op("aten::arange.start_step"), 0, 4, 2)
	mt := b.callKw(op("aten::ones"), []any{[]int{2}}, fx.Kwargs{{Name: "device", Value: tensor.Meta}})
	b.g.Output(fx.Tuple{b.call(op("aten::add.Tensor"), x, small), big, ar, mt})
	apply(t, passes.FoldConstants, b.gm, `
def forward(self, x_1):
    _frozen_param0 = self._frozen_param0
    zeros = torch.ops.aten.zeros.default([1024, 1025])
    _frozen_param1 = self._frozen_param1
    ones_1 = torch.ops.aten.ones.default([2], device = device(type='meta'))
    add = torch.ops.aten.add.Tensor(x_1, _frozen_param0);  x_1 = _frozen_param0 = None
    return (add, zeros, _frozen_param1, ones_1)`)
	if 1024*1025 <= passes.FactoryFoldLimit {
		t.Error("the large factory is not over the limit")
	}
}

func TestFoldErrors(t *testing.T) {
	// Constants whose shapes do not broadcast: the op's error, naming the node.
	b, _ := newBuilder()
	a := b.constant(tensor.FromSlice([]float32{1, 2}))
	c := b.constant(tensor.FromSlice([]float32{1, 2, 3}))
	b.g.Output(b.call(op("aten::add.Tensor"), a, c))
	before := code(b.gm)
	err := passes.FoldConstants(b.gm)
	if code(b.gm) != before || attrNames(b.gm) != "_tensor_constant0 _tensor_constant1" {
		t.Errorf("a failed FoldConstants changed the module:\n%s", code(b.gm))
	}
	wantPassError(t, err, "FoldConstants", "add", "passes.FoldConstants: node add: "+
		"aten::add.Tensor: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0")
	if _, ok := tensor.AsError(err); !ok {
		t.Errorf("%v does not wrap the op's *tensor.Error", err)
	}

	// An op that is not registered cannot be evaluated.
	b, _ = newBuilder()
	a = b.constant(tensor.FromSlice([]float32{1, 2}))
	b.g.Output(b.call(schemaOp("mylib::twice(Tensor x) -> Tensor"), a))
	wantPassError(t, passes.FoldConstants(b.gm), "FoldConstants", "twice",
		"passes.FoldConstants: node twice: op mylib::twice is not registered, so it cannot be evaluated")

	// A get_attr of a missing attribute: Lint's message.
	b, _ = newBuilder()
	b.g.Output(b.g.GetAttr("_tensor_constant0"))
	wantPassError(t, passes.FoldConstants(b.gm), "FoldConstants", "_tensor_constant0",
		"passes.FoldConstants: node _tensor_constant0: Node _tensor_constant0 target _tensor_constant0 references nonexistent attribute _tensor_constant0 of ")
}

// TestRun: the three passes in a row, linted after each.
func TestRun(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	c := b.constant(tensor.FromSlice([]float32{1, 2}))
	n1 := b.call(op("aten::neg"), c)
	n2 := b.call(op("aten::neg"), c)
	r1 := b.call(op("aten::relu"), x)
	r2 := b.call(op("aten::relu"), x)
	b.call(op("aten::sin"), r2) // dead
	b.g.Output(fx.Tuple{b.call(op("aten::add.Tensor"), r1, n1), b.call(op("aten::add.Tensor"), r2, n2)})
	if err := passes.Run(b.gm, passes.CSE, passes.FoldConstants, passes.DeadCode); err != nil {
		t.Fatal(err)
	}
	want := `def forward(self, x_1):
    _frozen_param0 = self._frozen_param0
    relu = torch.ops.aten.relu.default(x_1);  x_1 = None
    add = torch.ops.aten.add.Tensor(relu, _frozen_param0);  relu = _frozen_param0 = None
    return (add, add)`
	if got := code(b.gm); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
