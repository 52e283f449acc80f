package compile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// RunDecompositions returns a copy of gm with the calls of the ops of table
// replaced by what they decompose into (ExportedProgram.run_decompositions,
// which make_fx-traces an Interpreter of the graph with the table).
//
// The graph is rewritten node by node rather than re-traced whole: each call
// of an op in table is traced on its own, in fake mode on its arguments'
// example values with the table (so a decomposition's own calls of table ops
// decompose too), and the recorded ops take its place. Every other node is
// kept as it is, which keeps what a whole re-trace would have to rebuild:
// effect tokens and with_effects calls (an effectful op is not decomposed,
// as PyTorch keeps with_effects whole), script-object inputs and method
// calls, mutations written back (copy_), higher-order ops, whose sub-graphs
// are decomposed the same way, and sizes computed from sym_size nodes. The
// nodes are named afresh in order, as a re-trace names them.
//
// Symbolic sizes stay symbolic: where a decomposed call's arguments have
// sizes that depend on the graph's dynamic dims (compile.MetaSymShape), its
// decomposition is traced a second time at other sizes of those dims, and
// every int that differs is computed from sym_size.int nodes (as Symbolize
// does); a decomposition that branches on such a size is an error.
func RunDecompositions(gm *fx.GraphModule, table Decompositions) (*fx.GraphModule, error) {
	return RunDecompositionsShapes(gm, table, nil)
}

// RunDecompositionsShapes is RunDecompositions for a graph whose
// placeholders' symbolic sizes are kept outside the graph (a loaded
// exported program keeps its user inputs' dynamic dims in its signature):
// shapes gives, by placeholder, the sizes as MetaSymShape holds them (nil
// for a placeholder with static sizes, or one that has MetaSymShape). The
// new graph's placeholders carry them as MetaSymShape.
func RunDecompositionsShapes(gm *fx.GraphModule, table Decompositions, shapes [][]string) (*fx.GraphModule, error) {
	d := &decomposer{table: table, done: map[*fx.GraphModule]*fx.GraphModule{}, shapes: map[*fx.Node][]string{}}
	for i, p := range gm.Graph.Placeholders() {
		if i < len(shapes) && slices.ContainsFunc(shapes[i], func(e string) bool { return e != "" }) {
			if _, ok := p.Meta[MetaSymShape]; !ok {
				d.shapes[p] = shapes[i]
			}
		}
	}
	d.findDims(gm)
	out, err := d.module(gm, true)
	if err != nil {
		return nil, fmt.Errorf("compile.RunDecompositions: %w", err)
	}
	return out, nil
}

// decomposer rewrites a graph and its sub-graphs.
type decomposer struct {
	table Decompositions
	dims  []symDim                            // the top graph's dynamic dims
	done  map[*fx.GraphModule]*fx.GraphModule // sub-graphs already rewritten
	// shapes are the symbolic sizes of the top graph's placeholders that
	// have no MetaSymShape.
	shapes map[*fx.Node][]string
}

// findDims lists the dynamic dims of gm's placeholders: the first
// placeholder dim whose symbolic size is a plain symbol "sN" stands for N.
func (d *decomposer) findDims(gm *fx.GraphModule) {
	seen := map[int]bool{}
	for i, p := range gm.Graph.Placeholders() {
		shape, _ := p.Meta[MetaSymShape].([]string)
		if s, ok := d.shapes[p]; ok {
			shape = s
		}
		val, _ := p.Meta[fx.MetaVal].(*tensor.Tensor)
		if val == nil {
			continue
		}
		for j, s := range shape {
			n, ok := plainSymbol(s)
			if !ok || seen[n] || j >= val.Dim() || len(d.dims) == len(sentinels) {
				continue
			}
			seen[n] = true
			d.dims = append(d.dims, symDim{input: i, dim: j, real: val.Size(j), sym: n})
		}
	}
	for k := range d.dims {
		d.dims[k].probe = sentinels[k]
	}
}

// plainSymbol reads "s3" as 3.
func plainSymbol(s string) (int, bool) {
	if !strings.HasPrefix(s, "s") {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil && n >= 0
}

// rewrite is the state of one graph's rewrite.
type rewrite struct {
	d      *decomposer
	top    bool
	ngm    *fx.GraphModule
	ng     *fx.Graph
	remap  map[*fx.Node]*fx.Node
	tuple  map[*fx.Node][]any // a decomposed call returning several values: its values
	syms   map[int]*fx.Node   // dim index -> its sym_size.int node in ng
	consts int
}

// module rewrites gm (top: the graph whose placeholders define the dims).
func (d *decomposer) module(gm *fx.GraphModule, top bool) (*fx.GraphModule, error) {
	if out, ok := d.done[gm]; ok {
		return out, nil
	}
	r := &rewrite{d: d, top: top, ng: fx.New(), remap: map[*fx.Node]*fx.Node{},
		tuple: map[*fx.Node][]any{}, syms: map[int]*fx.Node{}}
	r.ngm = fx.NewGraphModule(r.ng)
	for _, name := range gm.AttrNames() {
		v, _ := gm.Attr(name)
		if sub, ok := v.(*fx.GraphModule); ok {
			ns, err := d.module(sub, false)
			if err != nil {
				return nil, fmt.Errorf("sub-graph %s: %w", name, err)
			}
			v = ns
		}
		r.ngm.SetAttr(name, v)
	}
	for _, n := range gm.Graph.Nodes() {
		if err := r.node(n); err != nil {
			return nil, err
		}
	}
	if _, err := r.ng.EliminateDeadCode(); err != nil {
		return nil, err
	}
	if err := r.ngm.Lint(); err != nil {
		return nil, fmt.Errorf("the decomposed graph is malformed: %w", err)
	}
	d.done[gm] = r.ngm
	return r.ngm, nil
}

// arg maps an argument of the old graph to the new one.
func (r *rewrite) arg(a any) any {
	return fx.MapArg(a, func(x *fx.Node) any { return r.remap[x] })
}

// baseName is a node's name without the namespace's "_N" suffix: the name
// it asked for.
func baseName(name string) string {
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

func (r *rewrite) node(n *fx.Node) error {
	switch n.Op {
	case fx.OpPlaceholder, fx.OpGetAttr:
		c := r.ng.CreateNode(n.Op, n.Target, r.arg(n.Args()).([]any), nil, n.Name)
		copyMeta(n, c)
		if s, ok := r.d.shapes[n]; ok && r.top {
			c.Meta[MetaSymShape] = s
		}
		r.remap[n] = c
		return nil
	case fx.OpOutput:
		var res any
		if len(n.Args()) > 0 {
			res = r.arg(n.Args()[0])
		}
		r.ng.Output(res)
		return nil
	}
	if n.Target == any(fx.GetItem) && len(n.Args()) == 2 {
		if src, ok := n.Args()[0].(*fx.Node); ok {
			if vals, ok := r.tuple[src]; ok {
				i, ok := n.Args()[1].(int)
				if !ok || i < 0 || i >= len(vals) {
					return fmt.Errorf("node %s: index %v of the %d results of %s", n.Name, n.Args()[1], len(vals), src.Name)
				}
				v, ok := vals[i].(*fx.Node)
				if !ok {
					return fmt.Errorf("node %s: result %d of the decomposed %s is %v, not a value of the graph", n.Name, i, src.Name, vals[i])
				}
				r.remap[n] = v
				return nil
			}
		}
	}
	if op := n.OpTarget(); op != nil {
		if _, ok := r.d.table[op]; ok {
			return r.decompose(n, op)
		}
	}
	kw := r.arg(n.Kwargs()).(fx.Kwargs)
	c := r.ng.CreateNode(n.Op, n.Target, r.arg(n.Args()).([]any), kw, baseName(n.Name))
	copyMeta(n, c)
	r.remap[n] = c
	r.noneItems(n)
	return nil
}

// noneItems follows the last getitem n of a call whose results include
// Nones (with_effects of an op returning nothing) with the getitems a trace
// makes for those Nones and drops at once (see hop.WithEffects): their
// names stay used, as in a re-trace.
func (r *rewrite) noneItems(n *fx.Node) {
	if n.Target != any(fx.GetItem) || len(n.Args()) != 2 {
		return
	}
	src, ok := n.Args()[0].(*fx.Node)
	if !ok {
		return
	}
	if next := n.Next(); next != nil && next.Target == any(fx.GetItem) && len(next.Args()) == 2 && next.Args()[0] == src {
		return
	}
	var none []bool
	switch v := src.Meta[fx.MetaVal].(type) {
	case []*tensor.Tensor:
		for _, x := range v {
			none = append(none, x == nil)
		}
	case []any:
		for _, x := range v {
			none = append(none, x == nil)
		}
	}
	for i, isNone := range none {
		if isNone {
			d := r.ng.CallFunction(fx.GetItem, []any{r.remap[src], i}, nil)
			if err := r.ng.EraseNode(d); err != nil {
				panic(err)
			}
		}
	}
}

func copyMeta(from, to *fx.Node) {
	for k, v := range from.Meta {
		to.Meta[k] = v
	}
}

// decompose traces the call n of op with the table and puts the recorded
// ops in its place.
func (r *rewrite) decompose(n *fx.Node, op *tensor.Op) error {
	// A one-call graph of n, its tensor arguments as placeholders, its size
	// arguments as ints (the example's, or the probe's).
	var inputs []*fx.Node // n's tensor arguments, in the new graph
	var sizes []*fx.Node  // n's size arguments, in the new graph
	var bad error
	fx.ForEachNode([]any{n.Args(), n.Kwargs()}, func(x *fx.Node) {
		nx := r.remap[x]
		if nx == nil || slices.Contains(inputs, nx) || slices.Contains(sizes, nx) {
			return
		}
		switch v := nx.Meta[fx.MetaVal].(type) {
		case *tensor.Tensor:
			if v != nil {
				inputs = append(inputs, nx)
				return
			}
		case int:
			sizes = append(sizes, nx)
			return
		}
		if bad == nil {
			bad = fmt.Errorf("node %s: argument %s of %s is a %T, which a decomposition cannot take", n.Name, x.Name, op.Name, nx.Meta[fx.MetaVal])
		}
	})
	if bad != nil {
		return bad
	}
	symbolic := false
	for _, x := range inputs {
		if s, _ := x.Meta[MetaSymShape].([]string); slices.ContainsFunc(s, func(e string) bool { return e != "" }) {
			symbolic = true
		}
	}
	if len(sizes) > 0 {
		symbolic = true
	}
	symbolic = symbolic && len(r.d.dims) > 0
	trace := func(probe bool) (*fx.GraphModule, error) {
		mini := fx.NewGraphModule(fx.New())
		mg := mini.Graph
		ph := map[*fx.Node]any{}
		var ins []*tensor.Tensor
		for i, x := range inputs {
			ph[x] = mg.Placeholder("arg" + strconv.Itoa(i))
			v := x.Meta[fx.MetaVal].(*tensor.Tensor)
			if probe {
				pv, err := r.d.probeTensor(x, v)
				if err != nil {
					return nil, err
				}
				v = pv
			}
			ins = append(ins, v)
		}
		for _, x := range sizes {
			v := x.Meta[fx.MetaVal].(int)
			if probe {
				e, _ := x.Meta[MetaSymExpr].(string)
				pv, err := r.d.probeInt(e, v)
				if err != nil {
					return nil, fmt.Errorf("node %s: size %s: %w", n.Name, x.Name, err)
				}
				v = pv
			}
			ph[x] = v
		}
		get := func(x *fx.Node) any { return ph[r.remap[x]] }
		args := fx.MapArg(n.Args(), get).([]any)
		kw := fx.MapArg(n.Kwargs(), get).(fx.Kwargs)
		mg.Output(mg.CreateNode(fx.OpCallFunction, n.Target, args, kw, ""))
		fn := func(in ...*tensor.Tensor) any {
			a := make([]any, len(in))
			for i, x := range in {
				a[i] = x
			}
			res, err := fx.NewInterpreter(mini).Run(a...)
			if err != nil {
				panic(asTensorError(err))
			}
			return res
		}
		names := make([]string, len(ins))
		for i := range names {
			names[i] = "arg" + strconv.Itoa(i)
		}
		return Trace(fn, ins, TraceOptions{Mode: Fake, Decompositions: r.d.table, ArgNames: names})
	}
	sub, err := trace(false)
	if err != nil {
		return fmt.Errorf("node %s: decomposing %s: %w", n.Name, op.Name, err)
	}
	// The nodes standing for the dims' sizes in sub (placeholders, put in
	// the probe's graph too so that the graphs match node for node).
	symPh := map[*fx.Node]int{}
	if symbolic {
		other, err := trace(true)
		if err != nil {
			return fmt.Errorf("node %s: decomposing %s at other sizes of the dynamic dims: %w", n.Name, op.Name, err)
		}
		s := &symbolizer{g: sub.Graph, dims: r.d.dims, sym: map[int]*fx.Node{}}
		for i := range r.d.dims {
			name := "sym" + strconv.Itoa(i)
			p := sub.Graph.Placeholder(name)
			other.Graph.Placeholder(name)
			s.sym[i] = p
			symPh[p] = i
		}
		if err := sameAttrs(sub, other); err != nil {
			return fmt.Errorf("node %s: decomposing %s: %w", n.Name, op.Name, err)
		}
		if !s.graphs(sub.Graph, other.Graph) {
			where := ""
			if s.diff != nil {
				where = " (at " + s.diff.Format() + ")"
			}
			return fmt.Errorf("node %s: the decomposition of %s depends on the dynamic sizes in a way that is not k·size+c%s", n.Name, op.Name, where)
		}
		s.shapes()
	}
	// Splice sub's nodes in.
	m := map[*fx.Node]*fx.Node{}
	phs := sub.Graph.Placeholders()
	k := 0
	for _, p := range phs {
		if i, ok := symPh[p]; ok {
			if p.NumUsers() > 0 {
				sn, err := r.symSize(i)
				if err != nil {
					return fmt.Errorf("node %s: %w", n.Name, err)
				}
				m[p] = sn
			}
			continue
		}
		m[p] = inputs[k]
		k++
	}
	get := func(x *fx.Node) any { return m[x] }
	for _, sn := range sub.Graph.Nodes() {
		switch sn.Op {
		case fx.OpPlaceholder:
		case fx.OpGetAttr:
			v, _ := sub.Attr(sn.Target.(string))
			name := r.constName()
			r.ngm.SetAttr(name, v)
			c := r.ng.GetAttr(name)
			copyMeta(sn, c)
			m[sn] = c
		case fx.OpOutput:
			var res any
			if len(sn.Args()) > 0 {
				res = fx.MapArg(sn.Args()[0], get)
			}
			switch v := res.(type) {
			case *fx.Node:
				r.remap[n] = v
			case fx.Tuple:
				r.tuple[n] = v
			case []any:
				r.tuple[n] = v
			default:
				return fmt.Errorf("node %s: the decomposition of %s returns %v, not a value of the graph", n.Name, op.Name, res)
			}
		default:
			c := r.ng.CreateNode(sn.Op, sn.Target, fx.MapArg(sn.Args(), get).([]any), fx.MapArg(sn.Kwargs(), get).(fx.Kwargs), baseName(sn.Name))
			copyMeta(sn, c)
			if st, ok := n.Meta[fx.MetaStackTrace]; ok {
				c.Meta[fx.MetaStackTrace] = st
			}
			m[sn] = c
		}
	}
	return nil
}

// constName is a free name for a constant a decomposition made.
func (r *rewrite) constName() string {
	for {
		name := "_tensor_constant" + strconv.Itoa(r.consts)
		r.consts++
		if _, taken := r.ngm.Attr(name); !taken {
			return name
		}
	}
}

// symSize is the sym_size.int node of dynamic dim i in the new top graph.
func (r *rewrite) symSize(i int) (*fx.Node, error) {
	if n, ok := r.syms[i]; ok {
		return n, nil
	}
	dim := r.d.dims[i]
	phs := r.ng.Placeholders()
	if !r.top || dim.input >= len(phs) {
		return nil, fmt.Errorf("a decomposition inside a higher-order op's sub-graph computes with the dynamic size s%d, which the sub-graph cannot read", dim.sym)
	}
	n := r.ng.CreateNode(fx.OpCallFunction, opSymSize, []any{phs[dim.input], dim.dim}, nil, "sym_size_int")
	n.Meta[fx.MetaVal] = dim.real
	n.Meta[MetaSymExpr] = "s" + strconv.Itoa(dim.sym)
	r.syms[i] = n
	return n, nil
}

// probeVals are the dims' sizes in the probe, by symbol.
func (d *decomposer) probeVals() map[int]int {
	out := map[int]int{}
	for _, dim := range d.dims {
		out[dim.sym] = dim.probe
	}
	return out
}

// probeTensor is x's example value v at the probe sizes of the dims: a meta
// tensor whose sizes are x's symbolic sizes at the probe, laid out as v.
func (d *decomposer) probeTensor(x *fx.Node, v *tensor.Tensor) (*tensor.Tensor, error) {
	shape, _ := x.Meta[MetaSymShape].([]string)
	if len(shape) == 0 {
		return v, nil
	}
	sizes := slices.Clone(v.Sizes())
	vals := d.probeVals()
	for j, e := range shape {
		if e == "" || j >= len(sizes) {
			continue
		}
		if strings.Contains(e, "u") {
			continue // an unbacked size does not follow the dims
		}
		s, ok := evalSym(e, vals)
		if !ok {
			return nil, fmt.Errorf("node %s: cannot evaluate its size %q", x.Name, e)
		}
		sizes[j] = s
	}
	// Strides in v's order of dims (contiguous when v is).
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	st := v.Strides()
	slices.SortStableFunc(order, func(a, b int) int { return st[b] - st[a] })
	strides := make([]int, len(sizes))
	acc := 1
	for i := len(order) - 1; i >= 0; i-- {
		strides[order[i]] = acc
		acc *= max(sizes[order[i]], 1)
	}
	return tensor.NewMeta(sizes, strides, 0, v.DType(), v.Device()), nil
}

// probeInt is the value at the probe sizes of an int whose expression is e
// (v when it has none).
func (d *decomposer) probeInt(e string, v int) (int, error) {
	if e == "" {
		return v, nil
	}
	p, ok := evalSym(e, d.probeVals())
	if !ok {
		return 0, fmt.Errorf("cannot evaluate %q", e)
	}
	return p, nil
}

// evalSym evaluates an expression as symExpr.String prints it ("s0",
// "16*s0", "s0*s1", "s0**2", "s1 + 1", "2*s0 - 1", "3 - s0", "-s0") at
// the symbols' values.
func evalSym(e string, vals map[int]int) (int, bool) {
	parts := strings.Split(e, " ")
	switch len(parts) {
	case 1:
		return evalTerm(parts[0], vals)
	case 3:
		a, ok1 := evalTerm(parts[0], vals)
		b, ok2 := evalTerm(parts[2], vals)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch parts[1] {
		case "+":
			return a + b, true
		case "-":
			return a - b, true
		}
	}
	return 0, false
}

// evalTerm evaluates a product of numbers and symbols ("-2*s0*s1", "s0**2").
func evalTerm(t string, vals map[int]int) (int, bool) {
	sign := 1
	if strings.HasPrefix(t, "-") {
		sign, t = -1, t[1:]
	}
	if base, ok := strings.CutSuffix(t, "**2"); ok {
		v, ok := evalTerm(base, vals)
		return sign * v * v, ok
	}
	p := sign
	for _, f := range strings.Split(t, "*") {
		if n, err := strconv.Atoi(f); err == nil {
			p *= n
			continue
		}
		s, ok := plainSymbol(f)
		if !ok {
			return 0, false
		}
		v, ok := vals[s]
		if !ok {
			return 0, false
		}
		p *= v
	}
	return p, true
}
