package compile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Dynamic dims. A Go function computes with plain ints (x.Size(0)*2), so a
// trace cannot see which ints came from a size. It can find out: the
// function is traced a second time with each dynamic dim at a sentinel size
// (a prime no program uses, 1009, 1013, ...), and every int that differs
// between the two graphs is decoded as k·(product of sentinels)+c with small
// k and c — the relation the trace relied on. The graph then computes those
// ints from torch.ops.aten.sym_size.int nodes of its inputs (and operator
// nodes: sym_size_int * 2), so one graph serves every size. The decoded
// relation must also give the int of the first trace at the real sizes, and
// the two graphs must otherwise be the same (same ops, same other
// arguments: the Go code took the same branches); if not, the dims stay
// static. As PyTorch, a dynamic dim is guarded to be at least 2 (0 and 1
// are specialised).

// sentinels are the sizes dynamic dims take in the probe trace.
var sentinels = []int{1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061}

// maxCoef bounds k and c in k·Πs + c.
const maxCoef = 64

// Meta keys of a symbolized graph, beside fx.MetaVal (which keeps the
// values at the traced sizes).
const (
	// MetaSymShape holds, on a node whose value is a tensor, its sizes by
	// dimension as PyTorch prints them: "" where the size does not depend
	// on the dynamic dims, else its expression in their symbols ("s0",
	// "16*s0", "s0*s1", "s1 + 1"). The symbol of a dynamic dim is "s" and
	// the number Symbolize's caller gave it.
	MetaSymShape = "sym_shape"
	// MetaSymExpr holds, on a node computing a size (sym_size.int and the
	// operators on sizes), its expression ("s0", "16*s0").
	MetaSymExpr = "sym_expr"
)

// symDim is one dynamic dim: input i's dim d, its size in the real trace,
// its size in the probe, and the caller's symbol for it. A symbol that is
// not an input's dim has a name ("u0") and either node, the int a script
// object's method returned (objects.go), read from the call_torchbind
// node that computes it at run time, or src, a dim of a tensor in a
// script object's state, read from the first node whose value is that
// tensor (the method call that returned it).
type symDim struct {
	input, dim  int
	real, probe int
	sym         int
	name        string
	node        *fx.Node
	src         *fx.Node
}

// symExpr is k·Π dims + c.
type symExpr struct {
	dims []int // indices into the symDim list
	k, c int
}

// decode finds the relation that gives v2 at the probe sizes and v1 at the
// real sizes: one or two dims' product, times k, plus c. Single dims are
// tried before products. When several relations fit (dims whose real
// sizes differ as their probes do, or small probes: see probeSize), the
// simplest wins, the one with the smallest |c|, then |k|; a tie makes the
// int undecodable rather than decoded by chance.
func decode(v1, v2 int, dims []symDim) (symExpr, bool) {
	try := func(idx []int) (symExpr, bool) {
		p2, p1 := 1, 1
		for _, i := range idx {
			p2 *= dims[i].probe
			p1 *= dims[i].real
		}
		for k := -maxCoef; k <= maxCoef; k++ {
			if k == 0 {
				continue
			}
			c := v2 - k*p2
			if c < -maxCoef || c > maxCoef {
				continue
			}
			if k*p1+c == v1 {
				return symExpr{slices.Clone(idx), k, c}, true
			}
		}
		return symExpr{}, false
	}
	var found []symExpr
	for i := range dims {
		if e, ok := try([]int{i}); ok {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		for i := range dims {
			for j := i; j < len(dims); j++ {
				if e, ok := try([]int{i, j}); ok {
					found = append(found, e)
				}
			}
		}
	}
	if len(found) == 0 {
		return symExpr{}, false
	}
	// The simplest relation wins: smallest |c|, then smallest |k|.
	abs := func(x int) int { return max(x, -x) }
	slices.SortStableFunc(found, func(a, b symExpr) int {
		if abs(a.c) != abs(b.c) {
			return abs(a.c) - abs(b.c)
		}
		return abs(a.k) - abs(b.k)
	})
	if len(found) > 1 && abs(found[0].c) == abs(found[1].c) && abs(found[0].k) == abs(found[1].k) {
		return symExpr{}, false
	}
	return found[0], true
}

// String prints e as sympy prints the expression, in the dims' symbols:
// "s0", "16*s0", "s0*s1", "s0**2", "s1 + 1", "2*s0 - 1", "-s0".
func (e symExpr) String(dims []symDim) string {
	names := make([]string, len(e.dims))
	for i, d := range e.dims {
		names[i] = "s" + strconv.Itoa(dims[d].sym)
		if dims[d].name != "" {
			names[i] = dims[d].name
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		na, _ := strconv.Atoi(a[1:])
		nb, _ := strconv.Atoi(b[1:])
		return na - nb
	})
	term := strings.Join(names, "*")
	if len(names) == 2 && names[0] == names[1] {
		term = names[0] + "**2"
	}
	switch e.k {
	case 1:
	case -1:
		term = "-" + term
	default:
		term = strconv.Itoa(e.k) + "*" + term
	}
	switch {
	case e.c > 0 && e.k < 0:
		return strconv.Itoa(e.c) + " " + term[:1] + " " + term[1:]
	case e.c > 0:
		return term + " + " + strconv.Itoa(e.c)
	case e.c < 0:
		return term + " - " + strconv.Itoa(-e.c)
	}
	return term
}

// probeSize is the size a dynamic dim takes in the probe trace: the k-th
// sentinel, unless the dim may be at most limit (> 0) and the sentinel is
// larger (the program may clamp it there, as a slice of a 32-row table
// does): then the largest prime in [2, limit] that is neither real nor
// another dim's probe, or failing a prime any such size. Small probes
// make k·s+c relations of different dims harder to tell apart (see
// decode).
func probeSize(k, real, limit int, used []symDim) (int, bool) {
	if limit <= 0 || sentinels[k] <= limit {
		return sentinels[k], true
	}
	free := func(p int) bool {
		if p == real {
			return false
		}
		for _, d := range used {
			if d.probe == p {
				return false
			}
		}
		return true
	}
	prime := func(p int) bool {
		for q := 2; q*q <= p; q++ {
			if p%q == 0 {
				return false
			}
		}
		return p >= 2
	}
	for p := limit; p >= 2; p-- {
		if prime(p) && free(p) {
			return p, true
		}
	}
	for p := limit; p >= 2; p-- {
		if free(p) {
			return p, true
		}
	}
	return 0, false
}

// symbolic traces fn again with the dynamic dims of specs at sentinel sizes
// and returns gm rewritten to compute the ints that depend on them; ok is
// false when the dims must stay static.
func (c *Compiled) symbolic(gm *fx.GraphModule, inputs []*tensor.Tensor, specs []inputSpec) (*fx.GraphModule, bool) {
	dynamic := map[int]map[int]int{}
	sym := 0
	for i := range inputs {
		for d := range specs[i].dynamic {
			if dynamic[i] == nil {
				dynamic[i] = map[int]int{}
			}
			dynamic[i][d] = sym
			sym++
		}
	}
	probe := func(in []*tensor.Tensor) (*fx.GraphModule, error) {
		return Trace(c.fn, in, TraceOptions{Mode: Fake, Decompositions: c.opts.Decompositions, compiled: true})
	}
	out, err := symbolize(gm, probe, inputs, dynamic, nil, nil)
	return out, err == nil
}

// Symbolize traces fn (fake mode is forced) at inputs and again with the
// dims of dynamic at sentinel sizes, and returns the first graph with the
// ints that depend on those dims computed from sym_size.int nodes of its
// inputs and operator nodes (sym_size_int * 2), so that it is valid for
// every size of them. dynamic maps input i to its dynamic dims, each with a
// symbol: dims sharing a symbol are one size (equal in inputs), read from
// the first of them (by input, then dim). The error says why the dims
// cannot be symbolic: the second trace failed, or the two graphs differ in
// more than decodable ints (fn branched on a size, or a constant depends
// on one).
//
// The nodes of the graph carry their sizes in the symbols "s<symbol>"
// (MetaSymShape, MetaSymExpr).
func Symbolize(fn any, inputs []*tensor.Tensor, dynamic map[int]map[int]int, opts TraceOptions) (*fx.GraphModule, error) {
	return SymbolizeWithin(fn, inputs, dynamic, nil, opts)
}

// SymbolizeWithin is Symbolize for dims whose sizes are bounded: maxSize maps
// a symbol to the largest size its dims may take (missing: unbounded). The
// probe trace is made at the sentinels first; if that fails (a function
// that clamps a size, as slicing the positions of a sequence from a table
// of block-size rows does, traces differently there), again with one
// bounded symbol at a time probed within its bound, then with all of them
// (see probeSize). The error is that of the first probe.
func SymbolizeWithin(fn any, inputs []*tensor.Tensor, dynamic map[int]map[int]int, maxSize map[int]int, opts TraceOptions) (*fx.GraphModule, error) {
	opts.Mode = Fake
	probe := func(in []*tensor.Tensor) (*fx.GraphModule, error) { return Trace(fn, in, opts) }
	attempts := []map[int]int{nil}
	var bounded []int
	for sym, m := range maxSize {
		if m < sentinels[len(sentinels)-1] {
			bounded = append(bounded, sym)
		}
	}
	slices.Sort(bounded)
	for _, sym := range bounded {
		attempts = append(attempts, map[int]int{sym: maxSize[sym]})
	}
	if len(bounded) > 1 {
		attempts = append(attempts, maxSize)
	}
	var first error
	for _, bound := range attempts {
		gm, err := Trace(fn, inputs, opts)
		if err != nil {
			return nil, err
		}
		out, err := symbolize(gm, probe, inputs, dynamic, bound, nil)
		if err == nil {
			return out, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// symbolize rewrites gm, traced at inputs, by comparing it with the trace
// that probe makes at the sentinel sizes (within maxSize, see probeSize). It
// rewrites gm's nodes in place, also when it fails. extra are symbols
// beside the inputs' dims, which probe gives their probe values.
func symbolize(gm *fx.GraphModule, probe func([]*tensor.Tensor) (*fx.GraphModule, error), inputs []*tensor.Tensor, dynamic map[int]map[int]int, maxSize map[int]int, extra []symDim) (*fx.GraphModule, error) {
	type occ struct{ input, dim, sym int }
	var occs []occ
	for i, ds := range dynamic {
		if i < 0 || i >= len(inputs) {
			return nil, fmt.Errorf("compile: dynamic dims of input %d, of %d inputs", i, len(inputs))
		}
		for d, s := range ds {
			if d < 0 || d >= inputs[i].Dim() {
				return nil, fmt.Errorf("compile: dynamic dim %d of input %d, which has %d dims", d, i, inputs[i].Dim())
			}
			occs = append(occs, occ{i, d, s})
		}
	}
	slices.SortFunc(occs, func(a, b occ) int {
		if a.input != b.input {
			return a.input - b.input
		}
		return a.dim - b.dim
	})
	var dims []symDim
	index := map[int]int{} // symbol -> index into dims
	probeSizes := map[int][]int{}
	for _, o := range occs {
		real := inputs[o.input].Size(o.dim)
		k, ok := index[o.sym]
		if !ok {
			if len(dims) == len(sentinels) {
				return nil, fmt.Errorf("compile: more than %d dynamic sizes", len(sentinels))
			}
			k = len(dims)
			index[o.sym] = k
			p, ok := probeSize(k, real, maxSize[o.sym], dims)
			if !ok {
				return nil, fmt.Errorf("compile: dim %d of input %d is %d and may be at most %d: no other size to probe it at", o.dim, o.input, real, maxSize[o.sym])
			}
			dims = append(dims, symDim{input: o.input, dim: o.dim, real: real, probe: p, sym: o.sym})
		} else if dims[k].real != real {
			return nil, fmt.Errorf("compile: dims %d of input %d and %d of input %d share a size but are %d and %d",
				dims[k].dim, dims[k].input, o.dim, o.input, dims[k].real, real)
		}
		if probeSizes[o.input] == nil {
			probeSizes[o.input] = slices.Clone(inputs[o.input].Sizes())
		}
		probeSizes[o.input][o.dim] = dims[k].probe
	}
	dims = append(dims, extra...)
	in := slices.Clone(inputs)
	for i, sizes := range probeSizes {
		x := inputs[i]
		in[i] = tensor.NewMetaContiguous(sizes, x.DType(), x.Device())
		if x.RequiresGrad() {
			autograd.SetRequiresGrad(in[i], true)
		}
	}
	other, err := probe(in)
	if err != nil {
		return nil, fmt.Errorf("compile: the trace with dynamic sizes failed: %w", err)
	}
	if err := sameAttrs(gm, other); err != nil {
		return nil, err
	}
	s := newSymbolizer(gm.Graph, dims)
	if !s.graphs(gm.Graph, other.Graph) {
		if s.diff == nil {
			return nil, fmt.Errorf("compile: the graph's ops depend on the dynamic sizes")
		}
		return nil, fmt.Errorf("compile: node %s depends on the dynamic sizes in a way that is not k·size+c", s.diff.Name)
	}
	s.shapes()
	out := renamed(gm)
	if err := out.Lint(); err != nil {
		return nil, err
	}
	return out, nil
}

// sameAttrs checks that the constants of two traces are the same.
func sameAttrs(a, b *fx.GraphModule) error {
	an, bn := a.AttrNames(), b.AttrNames()
	if !slices.Equal(an, bn) {
		return fmt.Errorf("compile: the graph's constants depend on the dynamic sizes")
	}
	for _, name := range an {
		va, _ := a.Attr(name)
		vb, _ := b.Attr(name)
		if ga, ok := va.(*fx.GraphModule); ok {
			// A sub-graph (a higher-order op's branch or body) must be the
			// same in both traces: its ints are not rewritten.
			gb, ok := vb.(*fx.GraphModule)
			if !ok || ga.Code() != gb.Code() {
				return fmt.Errorf("compile: sub-graph %s depends on the dynamic sizes", name)
			}
			if err := sameAttrs(ga, gb); err != nil {
				return err
			}
			continue
		}
		ta, ok1 := va.(*tensor.Tensor)
		tb, ok2 := vb.(*tensor.Tensor)
		if !ok1 || !ok2 || ta == tb {
			continue
		}
		same := ta.DType() == tb.DType() && slices.Equal(ta.Sizes(), tb.Sizes())
		var xa, xb []float64
		if same && tensor.Try(func() { xa, xb = ta.Float64s(), tb.Float64s() }) == nil {
			same = slices.Equal(xa, xb)
		}
		if !same {
			return fmt.Errorf("compile: constant %s depends on the dynamic sizes", name)
		}
	}
	return nil
}

// renamed copies gm's graph in order into a new module, naming the calls
// afresh (as the trace would have named them had the size nodes been
// recorded where they are used).
func renamed(gm *fx.GraphModule) *fx.GraphModule {
	g := fx.New()
	m := map[*fx.Node]*fx.Node{}
	var remap func(v any) any
	remap = func(v any) any {
		switch x := v.(type) {
		case *fx.Node:
			return m[x]
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = remap(e)
			}
			return out
		case fx.Tuple:
			return fx.Tuple(remap([]any(x)).([]any))
		}
		return v
	}
	for _, n := range gm.Graph.Nodes() {
		name := ""
		switch {
		case n.Op != fx.OpCallFunction:
			name = n.Name
		case n.Target == any(opSymSize):
			name = "sym_size_int"
		}
		var kw fx.Kwargs
		for _, k := range n.Kwargs() {
			kw = append(kw, fx.Kwarg{Name: k.Name, Value: remap(k.Value)})
		}
		c := g.CreateNode(n.Op, n.Target, remap(n.Args()).([]any), kw, name)
		for k, v := range n.Meta {
			c.Meta[k] = v
		}
		m[n] = c
	}
	out := fx.NewGraphModule(g)
	copyAttrs(gm, out)
	return out
}

// symbolizer rewrites a graph's size-dependent ints.
type symbolizer struct {
	g    *fx.Graph
	dims []symDim
	sym  map[int]*fx.Node // dim index -> its sym_size.int node
	at   *fx.Node         // the node whose arguments are being rewritten
	diff *fx.Node         // the node where the graphs differ
	// pairs are the nodes of the two graphs, matched in order.
	pairs [][2]*fx.Node
	pos   map[*fx.Node]int // the graph's nodes' places, before any rewrite
}

// usable reports whether e's symbols can be read where s.at needs them:
// a size read from a node (src) needs that node to come first.
func (s *symbolizer) usable(e symExpr) bool {
	for _, i := range e.dims {
		if src := s.dims[i].src; src != nil && s.pos[src] >= s.pos[s.at] {
			return false
		}
	}
	return true
}

func newSymbolizer(g *fx.Graph, dims []symDim) *symbolizer {
	s := &symbolizer{g: g, dims: dims, sym: map[int]*fx.Node{}, pos: map[*fx.Node]int{}}
	for i, n := range g.Nodes() {
		s.pos[n] = i
	}
	return s
}

// graphs walks the two graphs node by node; it rewrites g1's arguments and
// reports whether the graphs are the same but for decodable ints.
func (s *symbolizer) graphs(g1, g2 *fx.Graph) bool {
	n1, n2 := g1.Nodes(), g2.Nodes()
	if len(n1) != len(n2) {
		return false
	}
	for i := range n1 {
		a, b := n1[i], n2[i]
		s.pairs = append(s.pairs, [2]*fx.Node{a, b})
		s.diff = nil
		if a.Op != b.Op || fmt.Sprint(a.Target) != fmt.Sprint(b.Target) {
			return false
		}
		if a.Op == fx.OpPlaceholder || a.Op == fx.OpGetAttr {
			continue
		}
		s.at, s.diff = a, a
		args, ok := s.value(a.Args(), b.Args())
		if !ok {
			return false
		}
		kw := a.Kwargs()
		var nkw fx.Kwargs
		if len(kw) != len(b.Kwargs()) {
			return false
		}
		for j, k := range kw {
			if k.Name != b.Kwargs()[j].Name {
				return false
			}
			v, ok := s.value(k.Value, b.Kwargs()[j].Value)
			if !ok {
				return false
			}
			nkw = append(nkw, fx.Kwarg{Name: k.Name, Value: v})
		}
		a.SetArgs(args.([]any)...)
		a.SetKwargs(nkw)
	}
	s.diff = nil
	return true
}

// value compares one argument of the two graphs and gives g1's, with size
// ints replaced by expression nodes.
func (s *symbolizer) value(v1, v2 any) (any, bool) {
	switch x := v1.(type) {
	case *fx.Node:
		y, ok := v2.(*fx.Node)
		return x, ok && x.Name == y.Name
	case int:
		y, ok := v2.(int)
		if !ok {
			return nil, false
		}
		if x == y {
			return x, true
		}
		e, ok := decode(x, y, s.dims)
		if !ok || !s.usable(e) {
			return nil, false
		}
		return s.expr(e), true
	case []any:
		y, ok := v2.([]any)
		if !ok || len(x) != len(y) {
			return nil, false
		}
		out := make([]any, len(x))
		for i := range x {
			if out[i], ok = s.value(x[i], y[i]); !ok {
				return nil, false
			}
		}
		return out, true
	case fx.Tuple:
		y, ok := v2.(fx.Tuple)
		if !ok {
			return nil, false
		}
		l, ok := s.value([]any(x), []any(y))
		if !ok {
			return nil, false
		}
		return fx.Tuple(l.([]any)), true
	case float64:
		y, ok := v2.(float64)
		return x, ok && (x == y || x != x && y != y)
	case tensor.Scalar:
		y, ok := v2.(tensor.Scalar)
		if ok && x.IsInt() && y.IsInt() && x.Int64() != y.Int64() {
			e, ok := decode(int(x.Int64()), int(y.Int64()), s.dims)
			if !ok || !s.usable(e) {
				return nil, false
			}
			return s.expr(e), true
		}
	}
	return v1, fmt.Sprint(v1) == fmt.Sprint(v2)
}

var opSymSize = tensor.MustOp("aten::sym_size.int")

// expr makes the nodes computing e before the node being rewritten.
func (s *symbolizer) expr(e symExpr) *fx.Node {
	defer s.g.InsertingBefore(s.at)()
	var v *fx.Node
	part := symExpr{k: 1} // what v computes
	call := func(op *fx.Operator, a, b any) {
		v = s.g.CallFunction(op, []any{a, b}, nil)
		val := part.k*s.product(part.dims) + part.c
		v.Meta[fx.MetaVal] = val // the value at the real sizes
		v.Meta[MetaSymExpr] = part.String(s.dims)
	}
	for _, i := range e.dims {
		n := s.symSize(i)
		part.dims = append(part.dims, i)
		if v == nil {
			v = n
		} else {
			call(fx.Mul, v, n)
		}
	}
	if e.k != 1 {
		part.k = e.k
		call(fx.Mul, v, e.k)
	}
	part.c = e.c
	switch {
	case e.c > 0:
		call(fx.Add, v, e.c)
	case e.c < 0:
		call(fx.Sub, v, -e.c)
	}
	return v
}

// product is the product of the real sizes of dims.
func (s *symbolizer) product(dims []int) int {
	p := 1
	for _, i := range dims {
		p *= s.dims[i].real
	}
	return p
}

// shapes records the sizes of the tensor values of the paired nodes in
// the dims' symbols (MetaSymShape). A size that differs between the
// traces in a way decode cannot express keeps its traced value.
func (s *symbolizer) shapes() {
	for _, p := range s.pairs {
		a, b := p[0], p[1]
		ta, ok1 := a.Meta[fx.MetaVal].(*tensor.Tensor)
		tb, ok2 := b.Meta[fx.MetaVal].(*tensor.Tensor)
		if !ok1 || !ok2 || ta == nil || tb == nil || ta.Dim() != tb.Dim() {
			continue
		}
		var shape []string
		for j := range ta.Dim() {
			x, y := ta.Size(j), tb.Size(j)
			if x == y {
				continue
			}
			e, ok := decode(x, y, s.dims)
			if !ok {
				continue
			}
			if shape == nil {
				shape = make([]string, ta.Dim())
			}
			shape[j] = e.String(s.dims)
		}
		if shape != nil {
			a.Meta[MetaSymShape] = shape
		}
	}
}

// symSize is the sym_size.int node of dynamic dim i, made at its first use.
func (s *symbolizer) symSize(i int) *fx.Node {
	if n := s.dims[i].node; n != nil {
		return n
	}
	if n, ok := s.sym[i]; ok {
		return n
	}
	ph := s.g.Placeholders()[s.dims[i].input]
	if src := s.dims[i].src; src != nil {
		ph = src
	}
	n := s.g.CreateNode(fx.OpCallFunction, opSymSize, []any{ph, s.dims[i].dim}, nil, "sym_size_int")
	n.Meta[fx.MetaVal] = s.dims[i].real
	n.Meta[MetaSymExpr] = symExpr{dims: []int{i}, k: 1}.String(s.dims)
	s.sym[i] = n
	return n
}
