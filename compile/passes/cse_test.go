package passes_test

import (
	"math"
	"testing"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/compile/passes"
	"github.com/goaten/goaten/tensor"
)

// TestCSE: equal calls merge in one forward pass, chains included (the
// second mul is equal to the first only once both adds are one).
func TestCSE(t *testing.T) {
	build := func() builder {
		b, ph := newBuilder("x_1", "y_1")
		x, y := ph[0], ph[1]
		addT := op("aten::add.Tensor")
		a := b.call(addT, x, y)
		a1 := b.call(addT, x, y)
		m := b.call(op("aten::mul.Tensor"), a, x)
		m1 := b.call(op("aten::mul.Tensor"), a1, x)
		s := b.callKw(op("aten::sum.dim_IntList"), []any{m, []int{0}}, fx.Kwargs{{Name: "keepdim", Value: true}, {Name: "dtype", Value: tensor.Float64}})
		s1 := b.callKw(op("aten::sum.dim_IntList"), []any{m1, []int64{0}}, fx.Kwargs{{Name: "dtype", Value: tensor.Float64}, {Name: "keepdim", Value: true}})
		sp := b.call(op("aten::split.Tensor"), y, 2)
		g0 := b.call(fx.GetItem, sp, 0)
		sp1 := b.call(op("aten::split.Tensor"), y, 2)
		g1 := b.call(fx.GetItem, sp1, 0)
		b.g.Output(fx.Tuple{s, s1, b.call(op("aten::sub.Tensor"), g0, g1)})
		return b
	}
	b := build()
	apply(t, passes.CSE, b.gm, `
def forward(self, x_1, y_1):
    add = torch.ops.aten.add.Tensor(x_1, y_1)
    mul = torch.ops.aten.mul.Tensor(add, x_1);  add = x_1 = None
    sum_1 = torch.ops.aten.sum.dim_IntList(mul, [0], keepdim = True, dtype = torch.float64);  mul = None
    split = torch.ops.aten.split.Tensor(y_1, 2);  y_1 = None
    getitem = split[0];  split = None
    sub = torch.ops.aten.sub.Tensor(getitem, getitem);  getitem = None
    return (sum_1, sum_1, sub)`)
	// Same values as the graph before.
	x := tensor.FromSlice([]float32{0.1, -2, 3.5, float32(math.Inf(1))}, 2, 2)
	y := tensor.FromSlice([]float32{7, 1e-7, -0.0, 2}, 2, 2)
	if !sameBits(eval(t, b.gm, x, y), eval(t, build().gm, x, y)) {
		t.Error("CSE changed the result")
	}
}

// buildConstants calls add with constants that are equal or not.
func buildConstants() builder {
	b, ph := newBuilder("x_1")
	x := ph[0]
	add := op("aten::add.Tensor")
	nan := math.NaN()
	otherNaN := math.Float64frombits(math.Float64bits(nan) ^ 1)
	calls := [][]any{
		{x, 0.0}, {x, math.Copysign(0, -1)}, // 0.0 and -0.0 differ
		{x, nan}, {x, nan}, // one NaN is the same NaN: merged
		{x, otherNaN},                        // another NaN's bits: kept
		{x, 1}, {x, int64(1)}, {x, int32(1)}, // ints by value: merged
		{x, 1.0},                                // a float: kept
		{x, true},                               // a bool: kept
		{x, tensor.Float(0)},                    // a Scalar is the Python number it prints: merged with 0.0
		{x, tensor.Float(math.Copysign(0, -1))}, // and with -0.0
		{x, tensor.Int(1)},                      // and with 1
	}
	var outs fx.Tuple
	for _, args := range calls {
		outs = append(outs, b.call(add, args...))
	}
	v := op("aten::view")
	outs = append(outs, b.call(v, x, []int{4}), b.call(v, x, fx.Tuple{4}), b.call(v, x, []any{int32(4)}))
	b.g.Output(outs)
	return b
}

// TestCSEConstants: constants are equal by type and value, floats by bits.
func TestCSEConstants(t *testing.T) {
	b := buildConstants()
	apply(t, passes.CSE, b.gm, `
def forward(self, x_1):
    add = torch.ops.aten.add.Tensor(x_1, 0.0)
    add_1 = torch.ops.aten.add.Tensor(x_1, -0.0)
    add_2 = torch.ops.aten.add.Tensor(x_1, nan)
    add_4 = torch.ops.aten.add.Tensor(x_1, nan)
    add_5 = torch.ops.aten.add.Tensor(x_1, 1)
    add_8 = torch.ops.aten.add.Tensor(x_1, 1.0)
    add_9 = torch.ops.aten.add.Tensor(x_1, True)
    view = torch.ops.aten.view.default(x_1, [4])
    view_1 = torch.ops.aten.view.default(x_1, (4,));  x_1 = None
    return (add, add_1, add_2, add_2, add_4, add_5, add_5, add_5, add_8, add_9, add, add_1, add_5, view, view_1, view)`)
	// -0.0 + 0.0 is 0.0, -0.0 + -0.0 is -0.0: had they merged, this would differ.
	x := tensor.FromSlice([]float64{math.Copysign(0, -1), 1, math.NaN(), math.Inf(-1)})
	if !sameBits(eval(t, b.gm, x), eval(t, buildConstants().gm, x)) {
		t.Error("CSE changed the result")
	}
}

// TestCSEImpure: random and mutating calls and impure Targets are never
// merged; pure Targets are.
func TestCSEImpure(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	effect := &fx.Function{Name: "effect", Qualified: "my.effect", SideEffects: true}
	pure := &fx.Function{Name: "pure", Qualified: "my.pure"}
	outs := fx.Tuple{
		b.call(op("aten::rand"), []int{3}), b.call(op("aten::rand"), []int{3}),
		b.call(op("aten::native_dropout"), x, 0.5, true), b.call(op("aten::native_dropout"), x, 0.5, true),
		b.call(schemaOp("mylib::sample(Tensor x, Generator? g=None) -> Tensor"), x),
		b.call(schemaOp("mylib::sample(Tensor x, Generator? g=None) -> Tensor"), x),
		b.call(effect, x), b.call(effect, x),
		b.call(pure, x), b.call(pure, x),
	}
	b.g.Output(outs)
	apply(t, passes.CSE, b.gm, `
def forward(self, x_1):
    rand = torch.ops.aten.rand.default([3])
    rand_1 = torch.ops.aten.rand.default([3])
    native_dropout = torch.ops.aten.native_dropout.default(x_1, 0.5, True)
    native_dropout_1 = torch.ops.aten.native_dropout.default(x_1, 0.5, True)
    sample = torch.ops.mylib.sample.default(x_1)
    sample_1 = torch.ops.mylib.sample.default(x_1)
    effect = my.effect(x_1)
    effect_1 = my.effect(x_1)
    pure = my.pure(x_1);  x_1 = None
    return (rand, rand_1, native_dropout, native_dropout_1, sample, sample_1, effect, effect_1, pure, pure)`)
}

// TestCSEMutation: in a graph that still mutates, a write ends what was
// seen before it, and a value that is written (directly or through a view)
// is never merged.
func TestCSEMutation(t *testing.T) {
	build := func() builder {
		b, ph := newBuilder("x_1")
		x := ph[0]
		addT, clone := op("aten::add.Tensor"), op("aten::clone")
		a := b.call(addT, x, 1)
		b.call(op("aten::add_.Tensor"), x, 1) // x changes
		a1 := b.call(addT, x, 1)              // not a
		c := b.call(clone, x)
		c1 := b.call(clone, x) // written below through a view: not c
		v := b.call(op("aten::view"), c1, []int{4})
		b.call(op("aten::mul_.Tensor"), v, 2)
		c2 := b.call(clone, x) // not c1; c2 and c3 are after the write
		c3 := b.call(clone, x) // merged into c2
		b.g.Output(fx.Tuple{a, a1, c, c1, c2, c3})
		return b
	}
	b := build()
	apply(t, passes.CSE, b.gm, `
def forward(self, x_1):
    add = torch.ops.aten.add.Tensor(x_1, 1)
    add_ = torch.ops.aten.add_.Tensor(x_1, 1)
    add_1 = torch.ops.aten.add.Tensor(x_1, 1)
    clone = torch.ops.aten.clone.default(x_1)
    clone_1 = torch.ops.aten.clone.default(x_1)
    view = torch.ops.aten.view.default(clone_1, [4])
    mul_ = torch.ops.aten.mul_.Tensor(view, 2);  view = None
    clone_2 = torch.ops.aten.clone.default(x_1);  x_1 = None
    return (add, add_1, clone, clone_1, clone_2, clone_2)`)
	x := func() *tensor.Tensor { return tensor.FromSlice([]float32{1, 2, 3, 4}, 2, 2) }
	if !sameBits(eval(t, b.gm, x()), eval(t, build().gm, x())) {
		t.Error("CSE changed the result")
	}
}

// TestCSEWriters: an out= argument and the inputs of an impure Target are
// written too.
func TestCSEWriters(t *testing.T) {
	b, ph := newBuilder("x_1")
	x := ph[0]
	clone := op("aten::clone")
	effect := &fx.Function{Name: "effect", Qualified: "my.effect", SideEffects: true}
	c := b.call(clone, x)
	c1 := b.call(clone, x) // written by atan2.out: not c
	b.callKw(op("aten::atan2.out"), []any{x, x}, fx.Kwargs{{Name: "out", Value: c1}})
	c2 := b.call(clone, x)
	c3 := b.call(clone, x) // may be written by effect: not c2
	b.call(effect, c3)
	c4 := b.call(clone, x)
	c5 := b.call(clone, x) // merged into c4
	b.g.Output(fx.Tuple{c, c1, c2, c3, c4, c5})
	apply(t, passes.CSE, b.gm, `
def forward(self, x_1):
    clone = torch.ops.aten.clone.default(x_1)
    clone_1 = torch.ops.aten.clone.default(x_1)
    atan2 = torch.ops.aten.atan2.out(x_1, x_1, out = clone_1)
    clone_2 = torch.ops.aten.clone.default(x_1)
    clone_3 = torch.ops.aten.clone.default(x_1)
    effect = my.effect(clone_3)
    clone_4 = torch.ops.aten.clone.default(x_1);  x_1 = None
    return (clone, clone_1, clone_2, clone_3, clone_4, clone_4)`)
}

func TestCSEErrors(t *testing.T) {
	b, ph := newBuilder("x_1")
	n := b.call(op("aten::relu"), ph[0])
	b.g.Output(n)
	n.Target = 3
	wantPassError(t, passes.CSE(b.gm), "CSE", "relu",
		"passes.CSE: node relu: Node relu target 3 has type int but a Callable is expected")

	b, ph = newBuilder("x_1")
	b.g.CreateNode(fx.OpCallFunction, &tensor.Op{Name: "mylib::opaque"}, []any{ph[0]}, nil, "opaque")
	b.g.Output(ph[0])
	wantPassError(t, passes.CSE(b.gm), "CSE", "opaque",
		"passes.CSE: node opaque: op mylib::opaque has no schema, so its effects are unknown")
}
