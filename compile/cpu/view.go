package cpu

import (
	"slices"
	"strings"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// A view step makes a view op's result (view, permute, expand, slice,
// split, …) without the dispatcher: the plan knows, from the trace, the
// layout its input has and the layouts of the views of that input, so a
// warm call only puts a tensor header on the input's storage — one
// allocation where the dispatcher binds arguments, runs the meta function
// (shape inference, checks) and makes the header. When the input is not
// laid out as planned the step calls the dispatcher.
type viewStep struct {
	in    int // the viewed tensor's slot
	at    geom
	outs  []geom // one per result
	list  bool   // the op returns a Tensor[]
	dtype tensor.DType
	need  int // the storage bytes the views reach (as_strided may reach past its input)
	// reuse: the header is the arena's from call to call (header, an
	// index into arena.headers), re-pointed at each call's input. Only for
	// views that no output can be or alias (see keptHeader). A list's
	// headers are len(outs) from header on, the list itself arena.lists[li].
	reuse  bool
	header int
	li     int
}

// geom is a tensor's layout in its storage.
type geom struct {
	sizes, strides []int
	offset         int
}

func geomOf(t *tensor.Tensor) geom {
	return geom{slices.Clone(t.Sizes()), slices.Clone(t.Strides()), t.StorageOffset()}
}

// planView returns n's view step, or nil when n is not a view op of one
// tensor node with every other argument a constant, or its meta values are
// not what the step can reproduce.
func planView(n *fx.Node, c *compile.BoundCall, vals map[*fx.Node]any) *viewStep {
	op := c.Op()
	if op == nil || !op.Schema.IsView() || len(op.Schema.Mutates()) > 0 {
		return nil
	}
	slots := c.ArgSlots()
	if len(slots) != 1 || slots[0].Arg != 0 || slots[0].Elem != -1 {
		return nil
	}
	src, ok := n.Args()[0].(*fx.Node)
	if !ok {
		return nil
	}
	in, ok := vals[src].(*tensor.Tensor)
	if !ok || in == nil {
		return nil
	}
	v := &viewStep{in: slots[0].Slot, at: geomOf(in), dtype: in.DType()}
	var outs []*tensor.Tensor
	switch o := vals[n].(type) {
	case *tensor.Tensor:
		outs = []*tensor.Tensor{o}
	case []*tensor.Tensor:
		outs, v.list = o, true
	default:
		return nil
	}
	for _, o := range outs {
		if o == nil || o.DType() != in.DType() {
			return nil
		}
		g := geomOf(o)
		v.outs = append(v.outs, g)
		v.need = max(v.need, core.StorageNBytes(g.sizes, g.strides, in.DType().ItemSize(), g.offset))
	}
	return v
}

// run makes the step's value from vals, or reports false when its input is
// not laid out as planned.
func (v *viewStep) run(vals []any, headers []*tensor.Tensor, lists []any) (any, bool) {
	in, _ := vals[v.in].(*tensor.Tensor)
	if in == nil || in.Device() != tensor.CPU || in.DType() != v.dtype || in.Storage() == nil ||
		in.Storage().NBytes() < v.need || in.StorageOffset() != v.at.offset || !slices.Equal(in.Sizes(), v.at.sizes) || !slices.Equal(in.Strides(), v.at.strides) {
		return nil, false
	}
	if v.reuse && v.list {
		if l := lists[v.li]; l != nil {
			for _, h := range headers[v.header : v.header+len(v.outs)] {
				h.WithRaw(in.Raw())
			}
			return l, true
		}
		l := make([]*tensor.Tensor, len(v.outs))
		for i := range v.outs {
			l[i] = v.make(in, &v.outs[i])
			headers[v.header+i] = l[i]
		}
		lists[v.li] = l
		return l, true
	}
	if v.reuse {
		if h := headers[v.header]; h != nil {
			// No version counter shared: nothing writes through the
			// header or reads its version (see keptHeader).
			return h.WithRaw(in.Raw()), true
		}
		h := v.make(in, &v.outs[0])
		headers[v.header] = h
		return h, true
	}
	if !v.list {
		return v.make(in, &v.outs[0]), true
	}
	l := make([]*tensor.Tensor, len(v.outs))
	for i := range v.outs {
		l[i] = v.make(in, &v.outs[i])
	}
	return l, true
}

// keptHeader reports whether the header of value n (a view's, a group
// output's) can be kept from call to call, re-pointed at each call's
// storage: n is not a graph output, and every user is a fusion group's
// member, a view whose header is kept (a view step puts a header of its own
// on its input's storage, it does not keep the input's), or an aten op
// that neither returns an alias of an argument (which could be the header
// itself, as contiguous returns self) nor writes into one: none keeps the
// header or hands it out.
func keptHeader(n *fx.Node, results map[*fx.Node]bool, inGroup func(*fx.Node) bool, kept map[*fx.Node]bool) bool {
	if results[n] {
		return false
	}
	for _, u := range n.Users() {
		if u.Op != fx.OpCallFunction {
			return false
		}
		if inGroup(u) || kept[u] {
			continue
		}
		op, ok := u.Target.(*tensor.Op)
		if !ok || op == nil || !strings.HasPrefix(op.Name, "aten::") || op.Schema.IsView() || len(op.Schema.Mutates()) > 0 {
			return false
		}
	}
	return true
}

func (v *viewStep) make(in *tensor.Tensor, g *geom) *tensor.Tensor {
	return tensor.NewMeta(g.sizes, g.strides, g.offset, v.dtype, tensor.CPU).WithRaw(in.Raw()).ShareVersion(in)
}
