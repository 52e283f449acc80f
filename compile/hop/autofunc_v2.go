package hop

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// AutoFunctionalizedV2Op is torch.ops.higher_order.auto_functionalized_v2(op,
// **kwargs), the newer form of AutoFunctionalizedOp: the arguments op writes
// into are not passed by name but as _all_bases, the distinct tensors they
// are (or are views of), each argument naming its base by index. It clones
// the bases, runs op with each written argument regenerated from its
// clone, and returns op's results followed by the bases' new values. A
// functionalized trace with TraceOptions.AutoFunctionalizedV2 records a
// call of an auto-functionalizable op so:
//
//	auto_functionalized_v2 = torch.ops.higher_order.auto_functionalized_v2(torch.ops.mylib.foo.default, _x_base_index = 0, _y_base_index = 1, _all_bases = [arg1_1, arg0_1])
//
// the op's other arguments by name first. A written argument that is the
// same tensor as another shares its base. In a goaten trace every written
// argument is its own base (NotView: only _x_base_index); a graph from
// PyTorch may also mark one as an alias of its base (_x_alias = True),
// which runs the same; its slice and as_strided view forms are refused.
var AutoFunctionalizedV2Op = Define("auto_functionalized_v2", Rules{
	Dense:    afV2Dense,
	Meta:     afV2Meta,
	Trace:    afV2Trace,
	FromNode: afV2FromNode,
})

// afV2Call is what an auto_functionalized_v2 call carries besides its
// tensors: Call.In is {bases, the op's other tensor arguments in schema
// order (nil where not a tensor)}.
type afV2Call struct {
	op *tensor.Op
	// vals are the op's arguments in schema order: the values of the
	// arguments neither written nor tensors; nil elsewhere.
	vals []any
	// base is, per written argument (op.Schema.Mutates order), the index
	// of its base, or -1 for an absent optional.
	base []int
}

// AutoFunctionalizedV2 calls op functionally on args (its arguments in
// schema order; trailing defaults may be left off), in the v2 form: it
// returns op's tensor results (one nil for an op returning nothing) and
// then the new values of the distinct tensors op writes into, in the
// order the written arguments first name them. The arguments are left as
// they were.
func AutoFunctionalizedV2(op *tensor.Op, args ...any) []*T {
	if !autoFunctionalizable(op) {
		tensor.Panicf("auto_functionalized_v2: %s cannot be auto-functionalized", op.Name)
	}
	c, _ := afV2Prepare(op, fullArgs(op, args))
	return AutoFunctionalizedV2Op.Invoke(c)
}

// afV2Prepare makes the call for full (all of op's arguments) and gives
// the base index of each written argument.
func afV2Prepare(op *tensor.Op, full []any) (*Call, []int) {
	muts := op.Schema.Mutates()
	written := map[int]bool{}
	for _, i := range muts {
		written[i] = true
	}
	var bases []*T
	base := make([]int, len(muts))
	for k, i := range muts {
		t, _ := full[i].(*T)
		if t == nil {
			base[k] = -1
			continue
		}
		base[k] = len(bases)
		for j, b := range bases {
			if b == t {
				base[k] = j
			}
		}
		if base[k] == len(bases) {
			bases = append(bases, t)
		}
	}
	others := make([]*T, len(full))
	vals := make([]any, len(full))
	for i, v := range full {
		if written[i] {
			continue
		}
		if t, ok := v.(*T); ok {
			others[i] = t
		} else {
			vals[i] = v
		}
	}
	info := &afV2Call{op: op, vals: vals, base: base}
	return &Call{In: [][]*T{bases, others}, Args: []any{info}}, base
}

// afV2Run clones the bases with clone, runs the op with run on the
// arguments regenerated from the clones, and returns its results and the
// clones.
func afV2Run(c *Call, clone func(*T) *T, run func(op *tensor.Op, vals []any) []*T) []*T {
	info := c.Args[0].(*afV2Call)
	bases := make([]*T, len(c.In[0]))
	for i, b := range c.In[0] {
		bases[i] = clone(b)
	}
	vals := append([]any(nil), info.vals...)
	for i, t := range c.In[1] {
		if t != nil {
			vals[i] = t
		}
	}
	for k, i := range info.op.Schema.Mutates() {
		if b := info.base[k]; b >= 0 {
			vals[i] = bases[b]
		} else {
			vals[i] = nil
		}
	}
	return append(run(info.op, vals), bases...)
}

func afV2Dense(c *Call) []*T {
	return afV2Run(c, clonePreserveStrides, func(op *tensor.Op, vals []any) []*T {
		return opResults(op, op.Invoke(vals))
	})
}

func afV2Meta(c *Call) []*T {
	return afV2Run(c, metaClone, func(op *tensor.Op, vals []any) []*T {
		if len(op.Schema.Returns) == 0 {
			return []*T{nil}
		}
		return opResults(op, op.Invoke(vals))
	})
}

func afV2Trace(c *Call, tr *compile.HOPTracer) []*T {
	info := c.Args[0].(*afV2Call)
	op := info.op
	written := map[int]bool{}
	for _, i := range op.Schema.Mutates() {
		written[i] = true
	}
	var kw fx.Kwargs
	for i, a := range op.Schema.Args {
		if written[i] {
			continue
		}
		var v any = info.vals[i]
		switch x := v.(type) {
		case []*T:
			v = nodes(tr, x)
		}
		if t := c.In[1][i]; t != nil {
			v = tr.Arg(t)
		}
		kw = append(kw, fx.Kwarg{Name: a.Name, Value: v})
	}
	for k, i := range op.Schema.Mutates() {
		var v any
		if b := info.base[k]; b >= 0 {
			v = b
		}
		kw = append(kw, fx.Kwarg{Name: "_" + op.Schema.Args[i].Name + "_base_index", Value: v})
	}
	kw = append(kw, fx.Kwarg{Name: "_all_bases", Value: nodes(tr, c.In[0])})
	var res []*T
	if tr.Mode() == compile.Real {
		tr.Compute(func() { res = afV2Dense(c) })
	} else {
		res = fakeRun(c, tr, afV2Meta)
	}
	return recordFunctionalized(tr, c.Op, op, kw, res)
}

// fakeRun runs meta on meta stand-ins of a fake-mode trace's tensors and
// puts its results on their device again.
func fakeRun(c *Call, tr *compile.HOPTracer, meta func(*Call) []*T) []*T {
	d := *c
	dev := tensor.CPU
	d.In = make([][]*T, len(c.In))
	for g, ts := range c.In {
		d.In[g] = make([]*T, len(ts))
		for i, t := range ts {
			if t != nil {
				dev = t.Device()
				d.In[g][i] = tensor.NewMeta(t.Sizes(), t.Strides(), t.StorageOffset(), t.DType(), tensor.Meta)
			}
		}
	}
	var res []*T
	tr.Compute(func() { res = meta(&d) })
	for i, r := range res {
		if r != nil {
			res[i] = tensor.NewMeta(r.Sizes(), r.Strides(), r.StorageOffset(), r.DType(), dev)
		}
	}
	return res
}

func afV2FromNode(args []any, kwargs fx.Kwargs, _ *Graphs) (*Call, error) {
	if len(args) != 1 {
		return nil, tensor.Errorf("auto_functionalized_v2: expected (op, **kwargs), got %d positional arguments", len(args))
	}
	op, ok := args[0].(*tensor.Op)
	if !ok {
		return nil, tensor.Errorf("auto_functionalized_v2: the op must be an operator, got %T", args[0])
	}
	if !autoFunctionalizable(op) {
		return nil, tensor.Errorf("auto_functionalized_v2: %s cannot be auto-functionalized", op.Name)
	}
	v, ok := kwargs.Get("_all_bases")
	if !ok {
		return nil, tensor.Errorf("auto_functionalized_v2: %s: missing _all_bases", op.Name)
	}
	bases, _, err := argTensors("auto_functionalized_v2", "_all_bases", v)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{"_all_bases": true}
	muts := op.Schema.Mutates()
	written := map[int]bool{}
	base := make([]int, len(muts))
	for k, i := range muts {
		written[i] = true
		prefix := "_" + op.Schema.Args[i].Name
		name := prefix + "_base_index"
		bv, ok := kwargs.Get(name)
		if !ok {
			return nil, tensor.Errorf("auto_functionalized_v2: %s: missing %s", op.Name, name)
		}
		used[name] = true
		switch b := bv.(type) {
		case nil:
			base[k] = -1
		case int:
			if b < 0 || b >= len(bases) {
				return nil, tensor.Errorf("auto_functionalized_v2: %s: %s = %d, of %d bases", op.Name, name, b, len(bases))
			}
			base[k] = b
		default:
			return nil, tensor.Errorf("auto_functionalized_v2: %s: %s is a %T, not an int", op.Name, name, bv)
		}
		if a, ok := kwargs.Get(prefix + "_alias"); ok {
			// AliasViewInfo: aten.alias of the base, the same values.
			if a != true {
				return nil, tensor.Errorf("auto_functionalized_v2: %s: %s_alias = %v", op.Name, prefix, a)
			}
			used[prefix+"_alias"] = true
		}
	}
	vals := make([]any, len(op.Schema.Args))
	others := make([]*T, len(op.Schema.Args))
	for i, a := range op.Schema.Args {
		if written[i] {
			continue
		}
		v, ok := kwargs.Get(a.Name)
		if !ok {
			if !a.HasDefault {
				return nil, tensor.Errorf("auto_functionalized_v2: %s: missing argument %q", op.Name, a.Name)
			}
			v = a.Default
		}
		used[a.Name] = true
		if t, ok := v.(*T); ok {
			others[i] = t
			continue
		}
		if l, ok := v.([]any); ok && isList(a.Type) {
			ts := make([]*T, len(l))
			for j, e := range l {
				ts[j], _ = e.(*T)
			}
			v = ts
		}
		vals[i] = v
	}
	for _, k := range kwargs {
		if !used[k.Name] {
			what := "unexpected keyword argument"
			if strings.HasPrefix(k.Name, "_") {
				what = "view information not supported (only the bases themselves and aliases)"
			}
			return nil, tensor.Errorf("auto_functionalized_v2: %s: %s %s", op.Name, what, k.Name)
		}
	}
	info := &afV2Call{op: op, vals: vals, base: base}
	return &Call{In: [][]*T{bases, others}, Args: []any{info}}, nil
}

// String makes a call's extra arguments printable in messages.
func (a *afV2Call) String() string { return fmt.Sprintf("auto_functionalized_v2(%s)", a.op.Name) }
