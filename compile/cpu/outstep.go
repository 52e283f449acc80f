package cpu

import (
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// An outStep is a dispatcher call whose op has an out kernel on the CPU
// (tensor.OutKernel; device/cpu registers one for the ops the compiled
// models call outside fusion groups): the plan lays out its results from
// the trace and runs the kernel into them, with no dispatcher, meta
// function or new header per call. A result's header is the arena's from
// call to call where keptHeader allows (header ≥ 0); its storage is the
// arena's (a recycled intermediate, or a donated one for a graph output).
// A tuple's list is the arena's too (lists[li]): every user of it takes an
// element (getitem), so none keeps the list.
type outStep struct {
	k     tensor.OutKernel
	res   []outRes
	tuple bool
	li    int // the tuple's list in arena.lists
	idx   int // the results' slice in arena.outs
}

// outRes is one result of an outStep.
type outRes struct {
	v         vinfo
	undefined bool // the op leaves it undefined (convolution_backward's output_mask)
	fresh     bool // a graph output: new memory each call
	header    int  // the arena's header, or -1
}

// planOut returns n's outStep, or nil when n's op has no out kernel on the
// CPU or its results are not what one takes: every result contiguous from
// offset 0, a tuple only read by getitem and not returned whole.
func planOut(n *fx.Node, c *compile.BoundCall, vals map[*fx.Node]any, results map[*fx.Node]bool, calls map[*fx.Node]*compile.BoundCall) *outStep {
	op := c.Op()
	if op == nil {
		return nil
	}
	k := op.OutKernelFor(tensor.CPU)
	if k == nil {
		return nil
	}
	o := &outStep{k: k}
	var ts []*tensor.Tensor
	switch v := vals[n].(type) {
	case *tensor.Tensor:
		ts = []*tensor.Tensor{v}
	case []*tensor.Tensor:
		if results[n] {
			return nil
		}
		for _, u := range n.Users() {
			if u.Target != fx.GetItem {
				return nil
			}
		}
		ts, o.tuple = v, true
	default:
		return nil
	}
	if len(ts) != len(op.Schema.Returns) {
		return nil
	}
	o.res = make([]outRes, len(ts))
	for i, t := range ts {
		r := &o.res[i]
		r.header = -1
		if t == nil {
			r.undefined = true
			continue
		}
		r.v = vinfo{sizes: t.Sizes(), strides: t.Strides(), dtype: t.DType()}
		if t.StorageOffset() != 0 || !r.v.contiguous() {
			return nil
		}
	}
	if !o.tuple {
		o.res[0].fresh = results[n]
		return o
	}
	for _, u := range n.Users() {
		if i, ok := o.item(calls[u]); ok && results[u] {
			o.res[i].fresh = true
		}
	}
	return o
}

// item is the result a getitem call takes (a negative index counts from
// the end).
func (o *outStep) item(c *compile.BoundCall) (int, bool) {
	i := c.Item()
	if i < 0 {
		i += len(o.res)
	}
	return i, i >= 0 && i < len(o.res)
}

// keepHeaders decides which results keep their headers from call to call
// (keptHeader: of n itself, or of every getitem taking a tuple's result)
// and gives a tuple its list.
func (o *outStep) keepHeaders(pl *plan, n *fx.Node, results map[*fx.Node]bool, inGroup func(*fx.Node) bool, kept map[*fx.Node]bool, calls map[*fx.Node]*compile.BoundCall) {
	if o.tuple {
		o.li = pl.nlists
		pl.nlists++
	}
	for i := range o.res {
		r := &o.res[i]
		if r.undefined || r.fresh {
			continue
		}
		ok := true
		if !o.tuple {
			ok = keptHeader(n, results, inGroup, kept)
		} else {
			for _, u := range n.Users() {
				if j, _ := o.item(calls[u]); j == i && !keptHeader(u, results, inGroup, kept) {
					ok = false
				}
			}
		}
		if ok {
			r.header = pl.nheaders
			pl.nheaders++
		}
	}
}

// run runs the out kernel of call c with the argument list built in args,
// its results' storages from arena a (recycled ones when recycle is set).
func (o *outStep) run(c *compile.BoundCall, args []any, a *arena, recycle bool) any {
	outs := a.outs[o.idx]
	for i := range o.res {
		r := &o.res[i]
		if r.undefined {
			outs[i] = nil
			continue
		}
		var t *tensor.Tensor
		if r.header >= 0 {
			t = a.headers[r.header]
		}
		if t == nil {
			t = tensor.NewMeta(r.v.sizes, r.v.strides, 0, r.v.dtype, tensor.CPU)
			if r.header >= 0 {
				a.headers[r.header] = t
			}
		}
		a.hookOn, a.fresh = recycle && !r.fresh, r.fresh
		tensor.MaterializeUninitFrom(t, a)
		outs[i] = t
	}
	a.hookOn, a.fresh = false, false
	o.k(outs, c.Op(), c.Bind(args, a.vals))
	if !o.tuple {
		return outs[0]
	}
	if a.lists[o.li] == nil {
		a.lists[o.li] = outs // boxed once
	}
	return a.lists[o.li]
}

// describe is Describe's note on the step.
func (o *outStep) describe() string {
	kept := 0
	for _, r := range o.res {
		if r.header >= 0 {
			kept++
		}
	}
	switch {
	case kept == 0:
		return " (into a planned result)"
	case kept == len(o.res):
		return " (into a planned result, header kept)"
	}
	return " (into planned results, some headers kept)"
}
