package hop

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// MapOp is torch.ops.higher_order.map_impl(body_fn, xs, args)
// (torch/_higher_order_ops/map.py).
var MapOp = Define("map_impl", Rules{
	Dense:    mapDense,
	Meta:     mapMeta,
	Trace:    mapTrace,
	Autograd: mapAutograd,
	Mutates:  []string{"torch.map is mutating the input!"},
	Aliases:  []string{"torch.map is aliasing the input!"},
	FromNode: mapFromNode,
})

// Map applies f to the slices of xs along their first dimension and stacks
// its outputs (torch._higher_order_ops.map): out[i] = f(xs[0][i], xs[1][i],
// ..., args...). Every x must have the same non-zero leading size; f returns
// tensors (nil is None, and stays nil). In a trace f becomes the
// sub-GraphModule "body_graph_0" of one map_impl node. It is differentiable
// in xs and args: the backward is a second map over f's joint program.
func Map(f Sub, xs, args []*T) []*T {
	if f == nil {
		panic(&tensor.Error{Op: "map", Msg: "map: f must be a function"})
	}
	for _, x := range xs {
		if x == nil {
			panic(&tensor.Error{Op: "map", Msg: fmt.Sprintf("Mapped xs can only consist of tensors. Got xs %s.", pyList(xs, false))})
		}
	}
	if len(xs) == 0 {
		panic(&tensor.Error{Op: "map", Kind: tensor.IndexError, Msg: "map: xs is empty (list index out of range)"})
	}
	for _, x := range xs {
		if x.Dim() == 0 {
			panic(&tensor.Error{Op: "map", Kind: tensor.IndexError, Msg: "map: a mapped x is 0-d (tuple index out of range)"})
		}
	}
	n := xs[0].Size(0)
	if n == 0 {
		panic(&tensor.Error{Op: "map", Msg: "Leading dimensions of mapped xs cannot be 0."})
	}
	for _, x := range xs {
		if x.Size(0) != n {
			shapes := make([]string, len(xs))
			for i, y := range xs {
				shapes[i] = pySize(y.Sizes())
			}
			panic(&tensor.Error{Op: "map", Msg: fmt.Sprintf("Leading dimensions of mapped xs must be consistent. Got shapes [%s].",
				strings.Join(shapes, ", "))})
		}
	}
	for _, a := range args {
		if a == nil {
			panic(&tensor.Error{Op: "map", Msg: "map: an argument is None"})
		}
	}
	return MapOp.Invoke(&Call{Subs: []Sub{f}, In: [][]*T{xs, args}})
}

// mapDense calls f on each slice and stacks the outputs.
func mapDense(c *Call) []*T {
	f, xs, args := c.Subs[0], c.In[0], c.In[1]
	n := xs[0].Size(0)
	in := make([]*T, len(xs)+len(args))
	copy(in[len(xs):], args)
	var steps [][]*T
	for i := range n {
		for j, x := range xs {
			in[j] = x.Select(0, i)
		}
		out := f(in...)
		if len(steps) > 0 && len(out) != len(steps[0]) {
			panic(&tensor.Error{Op: "map", Msg: fmt.Sprintf("map: f returned %d outputs for slice %d and %d for slice 0", len(out), i, len(steps[0]))})
		}
		steps = append(steps, out)
	}
	return stackSteps(steps)
}

func stackSteps(steps [][]*T) []*T {
	res := make([]*T, len(steps[0]))
	for k := range res {
		col := make([]*T, len(steps))
		none := 0
		for i, s := range steps {
			col[i] = s[k]
			if s[k] == nil {
				none++
			}
		}
		switch none {
		case len(steps):
			continue
		case 0:
			res[k] = tensor.Stack(col)
		default:
			panic(&tensor.Error{Op: "map", Msg: "Expect outputs of map only contains tensors or None."})
		}
	}
	return res
}

// mapMeta runs f on the first slice and gives the stacked metadata.
func mapMeta(c *Call) []*T {
	xs := c.In[0]
	in := make([]*T, 0, len(xs)+len(c.In[1]))
	for _, x := range xs {
		in = append(in, x.Select(0, 0))
	}
	return stacked(c.Subs[0](append(in, c.In[1]...)...), xs[0].Size(0))
}

// stacked is the metadata of n outputs like outs stacked along a new first
// dimension.
func stacked(outs []*T, n int) []*T {
	res := make([]*T, len(outs))
	for i, o := range outs {
		if o != nil {
			res[i] = tensor.NewMetaContiguous(append([]int{n}, o.Sizes()...), o.DType(), o.Device())
		}
	}
	return res
}

func mapTrace(c *Call, tr *compile.HOPTracer) []*T {
	xs, args := c.In[0], c.In[1]
	n := xs[0].Size(0)
	slices := make([]*T, len(xs))
	for i, x := range xs {
		if tr.Mode() == compile.Real {
			tr.Compute(func() { slices[i] = x.Select(0, 0) })
		} else {
			slices[i] = tensor.NewMeta(append([]int(nil), x.Sizes()[1:]...), append([]int(nil), x.Strides()[1:]...), x.StorageOffset(), x.DType(), x.Device())
		}
	}
	gms, outs, lifted, err := subgraphs(tr, c.Subs, []func([]*T) any{asList}, concat(slices, args))
	if err != nil {
		if tr.Segmented() && compile.IsDataDependent(err) {
			return mapDense(c)
		}
		panic(asError(err))
	}
	xsArg, argsArg := nodes(tr, xs), nodes(tr, concat(args, lifted))
	graphs := freshAttrs(tr, []string{"body_graph_"}, gms)
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = mapDense(c) })
	} else {
		res = stacked(outs[0], n)
	}
	return tr.Record(c.Op, []any{graphs[0], xsArg, argsArg}, res)
}

func mapFromNode(args []any, kwargs fx.Kwargs, g *Graphs) (*Call, error) {
	if len(args) != 3 || len(kwargs) != 0 {
		return nil, tensor.Errorf("map_impl: expected (body_fn, xs, args), got %d arguments", len(args)+len(kwargs))
	}
	body, err := argGraph("map_impl", "body_fn", args[0])
	if err != nil {
		return nil, err
	}
	xs, _, err := argTensors("map_impl", "xs", args[1])
	if err != nil {
		return nil, err
	}
	pos, _, err := argTensors("map_impl", "args", args[2])
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, tensor.Errorf("map_impl: xs is empty")
	}
	return &Call{Subs: []Sub{g.Sub(body)}, In: [][]*T{xs, pos}}, nil
}

// mapFunction is map's autograd.Function (PyTorch's MapAutogradOp).
type mapFunction struct {
	c    *Call
	nOut []bool // which outputs are differentiable
}

func mapAutograd(c *Call) []*T {
	in := make([]any, 0, len(c.In[0])+len(c.In[1]))
	for _, t := range concat(c.In[0], c.In[1]) {
		in = append(in, t)
	}
	return autograd.Apply(&mapFunction{c: c}, in...)
}

func (f *mapFunction) Forward(ctx *autograd.FunctionCtx, inputs ...any) []*T {
	in := tensorsOf(inputs)
	nx := len(f.c.In[0])
	ctx.SaveForBackward(in...)
	out := f.c.With([][]*T{in[:nx], in[nx:]}).Redispatch()
	f.nOut = make([]bool, len(out))
	for i, o := range out {
		f.nOut[i] = o != nil && o.DType().IsFloat()
	}
	return out
}

// Backward maps the joint program of f over the slices of xs and of the
// output gradients: each step returns the gradients of its slices and of
// args; those of args are summed over the steps.
func (f *mapFunction) Backward(ctx *autograd.FunctionCtx, grads ...*T) []*T {
	saved := ctx.SavedTensors()
	nx := len(f.c.In[0])
	xs, args := saved[:nx], saved[nx:]
	var gs []*T
	var which []int
	for i, g := range grads {
		if f.nOut[i] && g != nil {
			gs, which = append(gs, g), append(which, i)
		}
	}
	body := f.c.Subs[0]
	// The step program takes (x slices, gradient slices, args) and
	// returns the gradients of (x slices, args).
	step := func(a ...*T) []*T {
		xsl, gsl, rest := a[:nx], a[nx:nx+len(gs)], a[nx+len(gs):]
		fw := func(in ...*T) []*T {
			out := body(in...)
			sel := make([]*T, len(which))
			for k, i := range which {
				sel[k] = out[i]
			}
			return sel
		}
		return joint(fw, len(gs))(concat(gsl, xsl, rest)...)
	}
	var res []*T
	run := func() {
		out := Map(step, concat(xs, gs), args)
		res = make([]*T, len(out))
		copy(res, out[:nx])
		for i, g := range out[nx:] {
			res[nx+i] = g.Sum([]int{0})
		}
	}
	if ctx.CreateGraph() {
		run()
	} else {
		autograd.NoGrad(run)
	}
	return res
}
