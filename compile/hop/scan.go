package hop

import (
	"fmt"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// ScanOp is torch.ops.higher_order.scan(combine_fn, init, xs,
// additional_inputs) in its newer form (torch/_higher_order_ops/scan.py):
// the scanned dimension is 0 and a reversed scan has its xs flipped before
// the op, so the node carries neither.
var ScanOp = Define("scan", Rules{
	Dense:    scanDense,
	Meta:     scanMeta,
	Trace:    scanTrace,
	Autograd: scanAutograd,
	Mutates:  []string{"Combine_fn might be modifying the input!"},
	Aliases:  []string{"Combine_fn might be aliasing the input!"},
	FromNode: scanFromNode,
})

// ScanFn is a scan's combine function: from the carries, one slice of each
// x and the additional inputs it returns the next carries and one slice of
// each output.
type ScanFn func(carry, x, additional []*T) (next, y []*T)

// Scan runs combine along dimension dim of xs, threading carries
// (torch._higher_order_ops.scan):
//
//	carry := init
//	for i := range xs[0].Size(dim) {   // backwards when reverse
//		carry, y_i = combine(carry, [x.select(dim, i) for x in xs], additional)
//	}
//	return carry, [stack(y, dim) ...]
//
// Each next carry must have its init's shape and dtype. additional are
// tensors every step reads (a tensor combine closes over is lifted there in
// a trace; pass tensors that need gradients here). dim is moved to the front
// and a reversed scan's xs flipped before the scan node, and its outputs
// moved and flipped back after it, so a trace records
//
//	scan = torch.ops.higher_order.scan(scan_combine_graph_0, [init], [xs], [additional])
//
// with carries then outputs as its results. An output of combine that is one
// of its inputs or repeats an earlier output is cloned. Scan is
// differentiable in init, xs and additional: the backward is a scan of
// combine's joint program in the other direction over the carries of the
// forward, themselves recomputed by a scan.
func Scan(combine ScanFn, init, xs []*T, dim int, reverse bool, additional ...*T) (carry, ys []*T) {
	if combine == nil {
		panic(&tensor.Error{Op: "scan", Msg: "Combine_fn must be callable, but got None"})
	}
	for _, t := range init {
		if t == nil {
			panic(&tensor.Error{Op: "scan", Msg: "All init leaves must be a Tensor but got " + pyList(init, false)})
		}
	}
	if len(xs) == 0 {
		panic(&tensor.Error{Op: "scan", Msg: "scan: xs is empty (xs leaves must have a scan dimension > 0)"})
	}
	for _, t := range concat(xs, additional) {
		if t == nil {
			panic(&tensor.Error{Op: "scan", Msg: "All xs leaves must be a Tensor but got " + pyList(xs, false)})
		}
	}
	moved := make([]*T, len(xs))
	n := -1
	for i, x := range xs {
		d := dim
		if d < 0 {
			d += x.Dim()
		}
		if d < 0 || d >= x.Dim() {
			panic(&tensor.Error{Op: "scan", Kind: tensor.IndexError, Msg: fmt.Sprintf(
				"Dimension out of range (expected to be in range of [%d, %d], but got %d)", -max(x.Dim(), 1), max(x.Dim(), 1)-1, dim)})
		}
		if x.Size(d) == 0 {
			panic(&tensor.Error{Op: "scan", Msg: "xs leaves must have a scan dimension > 0"})
		}
		if n >= 0 && x.Size(d) != n {
			panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf("All xs leaves must have the same scan dimension size, got %d and %d", n, x.Size(d))})
		}
		n = x.Size(d)
		if d != 0 {
			x = x.MovedimInt(d, 0)
		}
		if reverse {
			x = x.Flip([]int{0})
		}
		moved[i] = x
	}
	nc, nx := len(init), len(xs)
	out := ScanOp.Invoke(&Call{Subs: []Sub{flatCombine(combine, nc, nx)}, In: [][]*T{init, moved, additional}})
	carry, ys = out[:nc], out[nc:]
	for i, y := range ys {
		if reverse {
			y = y.Flip([]int{0})
		}
		if dim != 0 && dim != -y.Dim() {
			d := dim
			if d < 0 {
				d += xs[0].Dim()
			}
			y = y.MovedimInt(0, d)
		}
		ys[i] = y
	}
	return carry, ys
}

// flatCombine is combine as the op's sub-program: (carry..., x..., add...)
// -> (next carry..., y...), cloning an output that is an input or repeats
// an earlier output.
func flatCombine(combine ScanFn, nc, nx int) Sub {
	return func(args ...*T) []*T {
		next, y := combine(args[:nc:nc], args[nc:nc+nx:nc+nx], args[nc+nx:])
		out := concat(next, y)
		for i, o := range out {
			if o == nil {
				continue
			}
			dup := aliasesAny(o, args)
			for _, p := range out[:i] {
				dup = dup || p == o
			}
			if dup {
				out[i] = o.Clone()
			}
		}
		return out
	}
}

// checkCarry refuses next carries that do not match init.
func checkCarry(init, next []*T) {
	if len(next) < len(init) {
		panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf(
			"The number of leaves of the pytree of the new carry produced by the operator needs to match the length of the pytree of the init: got %d, expected %d", len(next), len(init))})
	}
	for i, c := range init {
		o := next[i]
		if o == nil {
			panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf("The new_carry[%d] is None, but init[%d] is a Tensor", i, i)})
		}
		if !equalInts(o.Sizes(), c.Sizes()) {
			panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf("The shape of the new_carry[%d] %s doesn't match that of the init[%d] %s.",
				i, pySize(o.Sizes()), i, pySize(c.Sizes()))})
		}
		if o.DType() != c.DType() {
			panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf("The dtype of the new_carry[%d] %s doesn't match that of the init[%d] %s.",
				i, fx.Repr(o.DType()), i, fx.Repr(c.DType()))})
		}
	}
	for _, y := range next[len(init):] {
		if y == nil {
			panic(&tensor.Error{Op: "scan", Msg: "Expected combine_fn to return tensors as outputs, got None"})
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scanDense runs the steps and stacks the outputs.
func scanDense(c *Call) []*T {
	f, init, xs, add := c.Subs[0], c.In[0], c.In[1], c.In[2]
	nc, nx := len(init), len(xs)
	n := xs[0].Size(0)
	in := make([]*T, nc+nx+len(add))
	copy(in[nc+nx:], add)
	carry := init
	steps := make([][]*T, 0, n)
	for i := range n {
		copy(in, carry)
		for j, x := range xs {
			in[nc+j] = x.Select(0, i)
		}
		out := f(in...)
		checkCarry(init, out)
		if len(steps) > 0 && len(out)-nc != len(steps[0]) {
			panic(&tensor.Error{Op: "scan", Msg: fmt.Sprintf("scan: combine_fn returned %d outputs at step %d and %d at step 0", len(out)-nc, i, len(steps[0]))})
		}
		carry = out[:nc]
		steps = append(steps, out[nc:])
	}
	res := append([]*T(nil), carry...)
	if len(steps[0]) == 0 {
		return res
	}
	return append(res, stackSteps(steps)...)
}

// scanMeta runs one step on meta tensors.
func scanMeta(c *Call) []*T {
	init, xs := c.In[0], c.In[1]
	in := append([]*T(nil), init...)
	for _, x := range xs {
		in = append(in, x.Select(0, 0))
	}
	out := c.Subs[0](append(in, c.In[2]...)...)
	checkCarry(init, out)
	return scanResults(init, out[len(init):], xs[0].Size(0))
}

func scanResults(init, ys []*T, n int) []*T {
	res := make([]*T, 0, len(init)+len(ys))
	for _, c := range init {
		res = append(res, tensor.NewMetaContiguous(append([]int(nil), c.Sizes()...), c.DType(), c.Device()))
	}
	return append(res, stacked(ys, n)...)
}

func scanTrace(c *Call, tr *compile.HOPTracer) []*T {
	init, xs, add := c.In[0], c.In[1], c.In[2]
	slices := make([]*T, len(xs))
	for i, x := range xs {
		if tr.Mode() == compile.Real {
			tr.Compute(func() { slices[i] = x.Select(0, 0) })
		} else {
			slices[i] = tensor.NewMeta(append([]int(nil), x.Sizes()[1:]...), append([]int(nil), x.Strides()[1:]...), x.StorageOffset(), x.DType(), x.Device())
		}
	}
	gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{asTuple}, concat(init, slices, add))
	if err != nil {
		if tr.Segmented() && compile.IsDataDependent(err) {
			return scanDense(c)
		}
		panic(asError(err))
	}
	checkCarry(init, outs[0])
	args := []any{nil, nodes(tr, init), nodes(tr, xs), nodes(tr, concat(add, lifted))}
	args[0] = freshAttrs(tr, []string{"scan_combine_graph_"}, gms)[0]
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = scanDense(c) })
	} else {
		res = scanResults(init, outs[0][len(init):], xs[0].Size(0))
	}
	return tr.Record(c.Op, args, res)
}

func scanFromNode(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) {
	if len(args) != 4 || len(kwargs) != 0 {
		return nil, tensor.Errorf("scan: expected (combine_fn, init, xs, additional_inputs), got %d arguments", len(args)+len(kwargs))
	}
	f, err := argGraph("scan", "combine_fn", args[0])
	if err != nil {
		return nil, err
	}
	var in [3][]*T
	for i, what := range []string{"init", "xs", "additional_inputs"} {
		if in[i], _, err = argTensors("scan", what, args[i+1]); err != nil {
			return nil, err
		}
	}
	if len(in[1]) == 0 {
		return nil, tensor.Errorf("scan: xs is empty")
	}
	return &Call{Subs: []Sub{g.Sub(f)}, In: in[:]}, nil
}

// scanFunction is scan's autograd.Function (PyTorch's ScanAutogradOp).
type scanFunction struct {
	c   *Call
	out []*T // the forward's outputs (their metadata: zero gradients)
}

func scanAutograd(c *Call) []*T {
	in := make([]any, 0, len(c.In[0])+len(c.In[1])+len(c.In[2]))
	for _, t := range concat(c.In[0], c.In[1], c.In[2]) {
		in = append(in, t)
	}
	return autograd.Apply(&scanFunction{c: c}, in...)
}

func (f *scanFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*T {
	in := tensorsOf(inputs)
	nc, nx := len(f.c.In[0]), len(f.c.In[1])
	ctx.SaveForBackward(in...)
	out := f.c.With([][]*T{in[:nc], in[nc : nc+nx], in[nc+nx:]}).Redispatch()
	f.out = make([]*T, len(out))
	for i, o := range out {
		f.out[i] = tensor.NewMetaContiguous(append([]int(nil), o.Sizes()...), o.DType(), o.Device())
	}
	return out
}

// Backward scans combine's joint program backwards over the forward's
// carries (recomputed by a first scan), carrying the gradients of the
// carries and the summed gradients of the additional inputs; its outputs
// are the gradients of the slices of xs.
func (f *scanFunction) Backward(ctx *autograd.FunctionCtx, grads ...*T) []*T {
	saved := ctx.SavedTensors()
	nc, nx := len(f.c.In[0]), len(f.c.In[1])
	init, xs, add := saved[:nc], saved[nc:nc+nx], saved[nc+nx:]
	body := f.c.Subs[0]
	g := make([]*T, len(grads))
	for i, gr := range grads {
		g[i] = gr
		if gr == nil || !f.out[i].DType().IsFloat() {
			g[i] = tensor.ZerosOf(f.out[i].Sizes(), tensor.WithDtype(f.out[i].DType()), tensor.WithDevice(f.out[i].Device()))
		}
	}
	ny := len(g) - nc
	var res []*T
	run := func() {
		// The carry each step starts from.
		_, cs := Scan(func(c, x, a []*T) ([]*T, []*T) {
			next := body(concat(c, x, a)...)[:nc]
			return next, c
		}, init, xs, 0, false, add...)
		gAdd := make([]*T, len(add))
		for i, a := range add {
			gAdd[i] = a.ZerosLike()
		}
		step := func(c, x, a []*T) ([]*T, []*T) {
			gc, acc := c[:nc], c[nc:]
			ck, xk, gy := x[:nc], x[nc:nc+nx], x[nc+nx:]
			gs := joint(body, nc+ny)(concat(gc, gy, ck, xk, a)...)
			next := append([]*T(nil), gs[:nc]...)
			for i, ga := range gs[nc+nx:] {
				next = append(next, acc[i].Add(ga))
			}
			return next, gs[nc : nc+nx]
		}
		gFinal, gXs := Scan(step, concat(g[:nc], gAdd), concat(cs, xs, g[nc:]), 0, true, add...)
		res = concat(gFinal[:nc], gXs, gFinal[nc:])
	}
	if ctx.CreateGraph() {
		run()
	} else {
		autograd.NoGrad(run)
	}
	return res
}
