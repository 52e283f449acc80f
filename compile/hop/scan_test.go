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

// cumsum is S17's combine: the new carry is also the output.
func cumsum(c, x, _ []*T) ([]*T, []*T) {
	s := c[0].Add(x[0])
	return ts(s), ts(s)
}

// S17: scan semantics (docs/source/higher_order_ops/scan.md).
func TestScanValuesS17(t *testing.T) {
	for _, dev := range devices {
		xs := tensor.ArangeEnd(5).To(tensor.Float32).Reshape([]int{5, 1}).ToDevice(dev)
		init := tensor.ZerosOf([]int{1}).ToDevice(dev)
		carry, ys := hop.Scan(cumsum, ts(init), ts(xs), 0, false)
		expectClose(t, dev.String()+" carry", carry, ts(tensor.FromSlice([]float32{10})))
		expectClose(t, dev.String()+" cumsum", ys, ts(tensor.FromSlice([]float32{0, 1, 3, 6, 10}).Reshape([]int{5, 1})))

		mul := func(c, x, _ []*T) ([]*T, []*T) { return ts(c[0].Mul(x[0])), ts(c[0].Add(x[0])) }
		xi := tensor.ArangeStart(1, 5).Reshape([]int{4, 1}).ToDevice(dev)
		carry, ys = hop.Scan(mul, ts(tensor.OnesOf([]int{1}, tensor.WithDtype(tensor.Int64)).ToDevice(dev)), ts(xi), 0, false)
		expectClose(t, dev.String()+" product", carry, ts(tensor.FromSlice([]int64{24})))
		expectClose(t, dev.String()+" ys", ys, ts(tensor.FromSlice([]int64{2, 3, 5, 10}).Reshape([]int{4, 1})))

		// dim and reverse: the same as a Go loop.
		x := tensor.Randn([]int{3, 4, 2}).ToDevice(dev)
		for _, reverse := range []bool{false, true} {
			carry, ys := hop.Scan(cumsum, ts(tensor.ZerosOf([]int{3, 2}).ToDevice(dev)), ts(x), 1, reverse)
			c := tensor.ZerosOf([]int{3, 2}).ToDevice(dev)
			rows := make([]*T, 4)
			for k := range 4 {
				i := k
				if reverse {
					i = 3 - k
				}
				c = c.Add(x.Select(1, i))
				rows[i] = c
			}
			expectClose(t, "dim 1 carry", carry, ts(c))
			expectClose(t, "dim 1 ys", ys, ts(tensor.Stack(rows, tensor.WithDim(1))))
		}
	}
}

// S17's graph: the newer signature, combine graph cloning its repeated
// output.
func TestScanGraphS17(t *testing.T) {
	fn := func(xs *T) []*T {
		c, ys := hop.Scan(cumsum, ts(xs.Select(0, 0).ZerosLike()), ts(xs), 0, false)
		return concat(c, ys)
	}
	xs := tensor.ArangeEnd(5).To(tensor.Float32).Reshape([]int{5, 1})
	for _, mode := range modes {
		gm := trace(t, fn, ts(xs), mode)
		if !strings.Contains(code(t, gm, ""), `
    scan_combine_graph_0 = self.scan_combine_graph_0
    scan = torch.ops.higher_order.scan(scan_combine_graph_0, [zeros_like], [arg0_1], []);  scan_combine_graph_0 = zeros_like = arg0_1 = None`) {
			t.Errorf("graph:\n%s", code(t, gm, ""))
		}
		expectCode(t, gm, "scan_combine_graph_0", `
def forward(self, arg0_1, arg1_1):
    add = torch.ops.aten.add.Tensor(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
    clone = torch.ops.aten.clone.default(add)
    return (add, clone)`)
		res, err := fx.NewInterpreter(gm).Run(xs)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "interpreted", results(res), fn(xs))
	}
	// A reversed scan along dim 1 moves (movedim is composite: a permute)
	// and flips before the node, and back after it.
	rev := func(xs *T) []*T {
		c, ys := hop.Scan(cumsum, ts(xs.Select(1, 0).ZerosLike()), ts(xs), 1, true)
		return concat(c, ys)
	}
	x := tensor.Randn([]int{2, 3})
	gm := trace(t, rev, ts(x), compile.Fake)
	for _, want := range []string{"permute = torch.ops.aten.permute.default(arg0_1, [1, 0])", "flip = torch.ops.aten.flip.default(permute, [0])",
		"torch.ops.higher_order.scan(scan_combine_graph_0, [zeros_like], [flip], [])",
		"flip_1 = torch.ops.aten.flip.default(getitem_1, [0])", "permute_1 = torch.ops.aten.permute.default(flip_1, [1, 0])"} {
		if !strings.Contains(code(t, gm, ""), want) {
			t.Errorf("no %q in\n%s", want, code(t, gm, ""))
		}
	}
	c := compile.Compile(rev, compile.Options{Fullgraph: true})
	for range 2 {
		got, err := c.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "compiled", results(got), rev(x))
	}
	if s := c.Stats(); s.Frames != 1 {
		t.Errorf("stats %+v", s)
	}
	// A new length recompiles once.
	if _, err := c.Call(tensor.Randn([]int{2, 5})); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Frames != 2 {
		t.Errorf("after a new length: stats %+v", s)
	}
}

func concat(ls ...[]*T) []*T {
	var out []*T
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// S18: scan's errors.
func TestScanErrorsS18(t *testing.T) {
	x := tensor.Randn([]int{3, 2})
	init := tensor.ZerosOf([]int{2})
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { hop.Scan(cumsum, ts(init), ts(tensor.Randn([]int{0, 2})), 0, false) }, "xs leaves must have a scan dimension > 0"},
		{func() { hop.Scan(cumsum, ts(nil), ts(x), 0, false) }, "All init leaves must be a Tensor"},
		{func() {
			hop.Scan(func(c, x, _ []*T) ([]*T, []*T) { return ts(c[0].Unsqueeze(0)), ts(x[0]) }, ts(init), ts(x), 0, false)
		}, "The shape of the new_carry[0] torch.Size([1, 2]) doesn't match that of the init[0] torch.Size([2])."},
		{func() {
			hop.Scan(func(c, x, _ []*T) ([]*T, []*T) { return ts(c[0].To(tensor.Float64)), ts(x[0]) }, ts(init), ts(x), 0, false)
		}, "The dtype of the new_carry[0] torch.float64 doesn't match that of the init[0] torch.float32."},
		{func() {
			hop.Scan(func(c, x, _ []*T) ([]*T, []*T) { return nil, nil }, ts(init), ts(x), 0, false)
		}, "The number of leaves of the pytree of the new carry produced by the operator"},
	} {
		expectPanic(t, c.want, c.f)
		fn := func(x *T) []*T { c.f(); return ts(x) }
		if _, err := compile.Trace(fn, ts(x), compile.TraceOptions{Mode: compile.Fake}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("traced: %v, want %q", err, c.want)
		}
	}
	mut := func(c, x, _ []*T) ([]*T, []*T) { x[0].AddScalar_(1); return ts(c[0].Add(x[0])), ts(x[0].Sin()) }
	fn := func(x *T) []*T { _, ys := hop.Scan(mut, ts(x.Select(0, 0).ZerosLike()), ts(x), 0, false); return ys }
	if _, err := compile.Trace(fn, ts(x), compile.TraceOptions{Mode: compile.Fake, Functionalize: true}); err == nil || !strings.Contains(err.Error(), "Combine_fn might be modifying the input!") {
		t.Errorf("functionalized: %v", err)
	}
}

// scan is differentiable in init, xs and additional inputs (float64
// gradcheck); eager, traced and compiled gradients agree.
func TestScanAutograd(t *testing.T) {
	f := func(c, x, a []*T) ([]*T, []*T) {
		h := c[0].Mul(a[0]).Add(x[0]).Tanh()
		return ts(h, c[1].Add(h.SumAll())), ts(h.Mul(x[0]))
	}
	h0 := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	s0 := tensor.Randn([]int{}).To(tensor.Float64).SetRequiresGrad(true)
	x := tensor.Randn([]int{4, 3}).To(tensor.Float64).SetRequiresGrad(true)
	w := tensor.Randn([]int{3}).To(tensor.Float64).SetRequiresGrad(true)
	for _, reverse := range []bool{false, true} {
		if err := autograd.Gradcheck(func(in []*T) []*T {
			c, ys := hop.Scan(f, in[:2], in[2:3], 0, reverse, in[3])
			return concat(c, ys)
		}, ts(h0, s0, x, w)); err != nil {
			t.Error(err)
		}
	}
	// A Go loop.
	loop := func(h0, s0, x, w *T) *T {
		h, s := h0, s0
		var ys []*T
		for i := range 4 {
			h = h.Mul(w).Add(x.Select(0, i)).Tanh()
			s = s.Add(h.SumAll())
			ys = append(ys, h.Mul(x.Select(0, i)))
		}
		return s.Add(tensor.Stack(ys).SumAll()).Add(h.SumAll())
	}
	in := ts(h0, s0, x, w)
	want := autograd.Grad(ts(loop(h0, s0, x, w)), in, nil)
	fn := func(h0, s0, x, w *T) *T {
		c, ys := hop.Scan(f, ts(h0, s0), ts(x), 0, false, w)
		return c[1].Add(ys[0].SumAll()).Add(c[0].SumAll())
	}
	expectClose(t, "eager", autograd.Grad(ts(fn(h0, s0, x, w)), in, nil), want)
	g := func(h0, s0, x, w *T) any {
		gs := autograd.Grad(ts(fn(h0, s0, x, w)), ts(h0, s0, x, w), nil)
		return fx.Tuple{gs[0], gs[1], gs[2], gs[3]}
	}
	for _, mode := range modes {
		gm := trace(t, g, in, mode)
		if n := strings.Count(code(t, gm, ""), "torch.ops.higher_order.scan("); n != 3 {
			t.Errorf("%d scan nodes, want 3 (forward, carries, backward):\n%s", n, code(t, gm, ""))
		}
		res, err := fx.NewInterpreter(gm).Run(h0, s0, x, w)
		if err != nil {
			t.Fatal(err)
		}
		expectClose(t, "traced grads", results(res), want)
	}
	c := compile.Compile(fn, compile.Options{Fullgraph: true})
	res, err := c.Call(h0, s0, x, w)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled grads", autograd.Grad(results(res), in, nil), want)
}

// test_scan_RNN: an RNN written with scan along dim 1 equals the same RNN
// unrolled (torch.nn.RNN with all-ones weights: h' = tanh(x W_ih^T + b_ih +
// h W_hh^T + b_hh)).
func TestScanRNN(t *testing.T) {
	x := tensor.Randn([]int{3, 10, 5}) // (batch, time, input)
	h := tensor.Randn([]int{3, 1, 7}).Mul(num(0.1))
	wih, whh := tensor.OnesOf([]int{7, 5}).Mul(num(0.1)), tensor.OnesOf([]int{7, 7}).Mul(num(0.1))
	bih, bhh := tensor.OnesOf([]int{7}).Mul(num(0.1)), tensor.OnesOf([]int{7}).Mul(num(0.1))
	cell := func(h, x *T) *T {
		return x.Matmul(wih.Transpose(0, 1)).Add(bih).Add(h.Matmul(whh.Transpose(0, 1))).Add(bhh).Tanh()
	}
	rnn := func(c, x, _ []*T) ([]*T, []*T) { n := cell(c[0], x[0]); return ts(n), ts(n) }
	run := func(x, h *T) []*T {
		c, ys := hop.Scan(rnn, ts(h.Select(1, 0)), ts(x), 1, false)
		return concat(ys, c)
	}
	hc := h.Select(1, 0)
	var outs []*T
	for i := range 10 {
		hc = cell(hc, x.Select(1, i))
		outs = append(outs, hc)
	}
	want := ts(tensor.Stack(outs, tensor.WithDim(1)), hc)
	expectClose(t, "eager", run(x, h), want)
	c := compile.Compile(run, compile.Options{Fullgraph: true})
	got, err := c.Call(x, h)
	if err != nil {
		t.Fatal(err)
	}
	expectClose(t, "compiled", results(got), want)
}
