package cpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// A plan is a graph compiled for inputs of one layout: the graph's nodes
// in order, each either a dispatcher call (as the Eager backend makes it)
// or, at the place of a fusion group's last member, the group's tile
// program. Values live in slots (a node's slot is its position in the
// graph), cleared after their last use.
type plan struct {
	nslots   int
	nheaders int   // the headers the arena keeps: reused views', group outputs'
	nlists   int   // the lists it keeps: of views (viewStep.li), of an out kernel's results (outStep.li)
	outs     []int // the number of results of each out step (outStep.idx): the arena's outs
	inputs   []int
	consts   []constSlot
	folded   []*fx.Node // the calls made when the plan was (foldConstants)
	steps    []pstep
	progs    []*tileProg
	out      any  // the output's shape: compile.SlotRef, fx.Tuple or []any of them, or a constant
	arena    bool // some intermediate outside groups is recycled: set the allocator
	hooked   bool // some dispatcher call allocates its result (not a view, out kernel or getitem)
	nargs    int  // the length of the dispatcher calls' argument lists together
	pool     arenaPool
	// donated are the storages callers handed back for graph outputs
	// (tensor.RecycleTagged), taken by the outputs of later calls.
	donated donated
}

type constSlot struct {
	slot int
	val  any
}

// pstep is one step of a plan.
type pstep struct {
	node  *fx.Node
	call  *compile.BoundCall // a dispatcher call (or getitem)
	view  *viewStep          // the call is a view the plan makes itself
	prog  int                // a group's program (call nil)
	group []memberCall       // the group's nodes, run through the dispatcher when its inputs are not as planned
	out   int                // the call's slot
	args  int                // where the call's argument list starts in the call's block
	reads []int
	free  []int
	fresh bool     // the call's value is a graph output: new memory
	into  *outStep // the call runs its op's out kernel (outstep.go)
}

type memberCall struct {
	call *compile.BoundCall
	slot int
	keep bool // read outside the group
	res  bool // a graph output
}

// planner builds a plan.
type planner struct {
	gm        *fx.GraphModule
	vals      map[*fx.Node]any // each node's meta value
	tileElems int
	noFusion  bool
}

func (pp *planner) info(n *fx.Node) (vinfo, bool) {
	t, ok := pp.vals[n].(*tensor.Tensor)
	if !ok || t == nil {
		return vinfo{}, false
	}
	return vinfo{sizes: t.Sizes(), strides: t.Strides(), dtype: t.DType()}, true
}

// build compiles the graph; ok is false when a node needs the Interpreter.
func (pp *planner) build() (pl *plan, err error) {
	g := pp.gm.Graph
	nodes := g.Nodes()
	pos := make(map[*fx.Node]int, len(nodes))
	for i, n := range nodes {
		pos[n] = i
	}
	pl = &plan{nslots: len(nodes)}
	calls := map[*fx.Node]*compile.BoundCall{}
	var outNode *fx.Node
	for _, n := range nodes {
		switch n.Op {
		case fx.OpPlaceholder:
			if len(n.Args()) > 0 {
				return nil, errInterp
			}
			pl.inputs = append(pl.inputs, pos[n])
		case fx.OpGetAttr:
			v, found := pp.gm.Attr(n.Target.(string))
			if _, isT := v.(*tensor.Tensor); !found || !isT {
				return nil, errInterp
			}
			pl.consts = append(pl.consts, constSlot{pos[n], v})
		case fx.OpCallFunction:
			c, ok := compile.BindCall(n, pos)
			if !ok {
				return nil, errInterp
			}
			calls[n] = c
		case fx.OpOutput:
			outNode = n
		default:
			return nil, errInterp
		}
	}
	if outNode == nil || len(outNode.Args()) != 1 {
		return nil, errInterp
	}
	out, ok := compile.OutputShape(outNode.Args()[0], pos)
	if !ok {
		return nil, errInterp
	}
	pl.out = out
	results := map[*fx.Node]bool{}
	fx.ForEachNode(outNode.Args()[0], func(n *fx.Node) { results[n] = true })
	folded := pp.foldConstants(nodes, pos, calls, results)
	for _, n := range nodes {
		t := folded[n]
		if t == nil {
			continue
		}
		pl.folded = append(pl.folded, n)
		if slices.ContainsFunc(n.Users(), func(u *fx.Node) bool { return folded[u] == nil }) {
			pl.consts = append(pl.consts, constSlot{pos[n], t})
		}
	}

	p := &partition{nodes: nodes, pos: pos, calls: calls, info: pp.info, noFusion: pp.noFusion}
	p.run()

	progOf := map[*group]int{}
	var groupCalls = map[*group][]memberCall{}
	for _, gr := range p.groups {
		mat := map[*fx.Node]bool{}
		for _, m := range gr.members {
			for _, u := range m.Users() {
				if p.of[u] != gr {
					mat[m] = true
				}
			}
		}
		if !prune(gr, mat, pos) {
			continue // nothing of it is read: pure ops, not run
		}
		b := &builder{p: p, g: gr, mat: mat, res: results, slot: func(n *fx.Node) int { return pos[n] }}
		prog, err := b.build(pp.tileElems)
		if err != nil {
			return nil, err
		}
		progOf[gr] = len(pl.progs)
		pl.progs = append(pl.progs, prog)
		for _, m := range gr.members {
			groupCalls[gr] = append(groupCalls[gr], memberCall{call: calls[m], slot: pos[m], keep: mat[m], res: results[m]})
		}
		for _, o := range prog.outs {
			if !o.fresh {
				pl.arena = true
			}
		}
	}

	last := map[int]int{} // slot -> index of the step that reads it last
	for _, n := range nodes {
		if n.Op != fx.OpCallFunction || folded[n] != nil {
			continue
		}
		if gr := p.of[n]; gr != nil {
			pi, built := progOf[gr]
			if !built || pos[n] != gr.last {
				continue
			}
			s := pstep{node: n, prog: pi, group: groupCalls[gr], out: -1}
			for _, in := range pl.progs[pi].ins {
				if !slices.Contains(s.reads, in.slot) {
					s.reads = append(s.reads, in.slot)
				}
			}
			for _, r := range s.reads {
				last[r] = len(pl.steps)
			}
			pl.steps = append(pl.steps, s)
			continue
		}
		c := calls[n]
		s := pstep{node: n, call: c, out: pos[n], prog: -1, view: planView(n, c, pp.vals), args: pl.nargs}
		if s.view == nil {
			s.into = planOut(n, c, pp.vals, results, calls)
			if s.into != nil {
				s.into.idx = len(pl.outs)
				pl.outs = append(pl.outs, len(s.into.res))
			}
		}
		pl.nargs += c.NArgs()
		for _, a := range c.ArgSlots() {
			if !slices.Contains(s.reads, a.Slot) {
				s.reads = append(s.reads, a.Slot)
			}
		}
		s.fresh = results[n]
		part := false // some of a fresh step's results die in the call
		for _, u := range n.Users() {
			if u.Target == fx.GetItem {
				if results[u] {
					s.fresh = true
				} else {
					part = true
				}
			}
		}
		if !s.fresh || part {
			pl.arena = true
		}
		if s.view == nil && s.into == nil && c.Op() != nil {
			pl.hooked = true
		}
		for _, r := range s.reads {
			last[r] = len(pl.steps)
		}
		pl.steps = append(pl.steps, s)
	}
	// Views whose headers the arena keeps, decided from the last step to
	// the first: a view's users are decided before it. A list of views
	// (split) is kept when each user takes an element (getitem) whose
	// header could be kept.
	reused := map[*fx.Node]bool{}
	inGroup := func(u *fx.Node) bool { return p.of[u] != nil }
	for i := len(pl.steps) - 1; i >= 0; i-- {
		s := &pl.steps[i]
		if s.view == nil {
			continue
		}
		if s.view.list {
			if !results[s.node] && !slices.ContainsFunc(s.node.Users(), func(u *fx.Node) bool {
				return u.Target != fx.GetItem || !keptHeader(u, results, inGroup, reused)
			}) {
				reused[s.node] = true
				s.view.reuse, s.view.header, s.view.li = true, pl.nheaders, pl.nlists
				pl.nheaders += len(s.view.outs)
				pl.nlists++
			}
			continue
		}
		if keptHeader(s.node, results, inGroup, reused) {
			reused[s.node] = true
			s.view.reuse, s.view.header = true, pl.nheaders
			pl.nheaders++
		}
	}
	for i := range pl.steps {
		if o := pl.steps[i].into; o != nil {
			o.keepHeaders(pl, pl.steps[i].node, results, inGroup, reused, calls)
		}
	}
	for _, g := range pl.progs {
		for i := range g.outs {
			o := &g.outs[i]
			o.header = -1
			if !o.fresh && keptHeader(nodes[o.slot], results, inGroup, reused) {
				o.header = pl.nheaders
				pl.nheaders++
			}
		}
	}
	for sl, i := range last {
		if !results[nodes[sl]] {
			pl.steps[i].free = append(pl.steps[i].free, sl)
		}
	}
	// A value no step reads and the graph does not return dies at once.
	for i := range pl.steps {
		s := &pl.steps[i]
		if s.call != nil {
			if _, read := last[s.out]; !read && !results[nodes[s.out]] {
				s.free = append(s.free, s.out)
			}
			continue
		}
		for _, o := range pl.progs[s.prog].outs {
			if _, read := last[o.slot]; !read && !results[nodes[o.slot]] {
				s.free = append(s.free, o.slot)
			}
		}
	}
	return pl, nil
}

// prune drops the members of g whose values nothing reads (the graph
// outside reads the members of mat) and moves g's place to its last
// remaining member; it reports whether any remain.
func prune(g *group, mat map[*fx.Node]bool, pos map[*fx.Node]int) bool {
	live := map[*fx.Node]bool{}
	for i := len(g.members) - 1; i >= 0; i-- {
		m := g.members[i]
		if mat[m] {
			live[m] = true
		}
		for _, u := range m.Users() {
			if live[u] && g.of(u) {
				live[m] = true
			}
		}
	}
	kept := g.members[:0]
	g.last = -1
	for _, m := range g.members {
		if !live[m] {
			delete(g.kind, m)
			delete(g.specs, m)
			continue
		}
		kept = append(kept, m)
		if g.specs[m].kind != kItem {
			g.last = max(g.last, pos[m])
		}
	}
	g.members = kept
	return len(kept) > 0
}

// errInterp: the graph has nodes a plan does not run (the Eager backend's
// Interpreter runs it).
var errInterp = fmt.Errorf("compile/cpu: the graph needs the Interpreter")

// run runs the plan on inputs in arena a.
func (pl *plan) run(inputs []*tensor.Tensor, a *arena) (res any, err error) {
	if len(inputs) != len(pl.inputs) {
		return nil, fmt.Errorf("compile/cpu: the graph takes %d inputs, %d given", len(pl.inputs), len(inputs))
	}
	defer a.endCall()
	for i, s := range pl.inputs {
		a.vals[s] = inputs[i]
	}
	for _, c := range pl.consts {
		a.vals[c.slot] = c.val
	}
	// Recycled intermediates, donated outputs: the results of the plan's
	// dispatcher calls take them through the goroutine's Allocator; the
	// out kernels' and groups' results are given them directly.
	tagged := tensor.StorageTagged() // the outputs are adopted (see arena.adopt)
	if pl.hooked && (pl.arena || tagged) {
		restore := tensor.WithAllocator(a)
		defer restore()
	}
	// One block holds every call's argument list (an op may keep its
	// list, as autograd does: each has its own part). Where every call is
	// a view, a getitem or an out kernel (which keep nothing), the
	// arena's block serves call after call.
	block := a.block
	if pl.hooked || block == nil {
		block = make([]any, pl.nargs)
		if !pl.hooked {
			a.block = block
		}
	}
	cur := -1
	err = tensor.Try(func() {
		for i := range pl.steps {
			cur = i
			s := &pl.steps[i]
			if s.call != nil {
				v, done := any(nil), false
				if s.view != nil {
					v, done = s.view.run(a.vals, a.headers, a.lists)
				}
				if !done {
					a.hookOn, a.fresh = pl.arena && !s.fresh, s.fresh
					end := s.args + s.call.NArgs()
					if s.into != nil {
						v = s.into.run(s.call, block[s.args:end:end], a, pl.arena)
					} else {
						v = s.call.InvokeWith(block[s.args:end:end], a.vals)
					}
					a.hookOn, a.fresh = false, false
				}
				a.vals[s.out] = v
				a.track(v, s.reads)
			} else {
				pl.runGroup(s, a)
			}
			for _, f := range s.free {
				a.release(f)
			}
		}
	})
	if err != nil {
		if cur >= 0 {
			return nil, fmt.Errorf("%w\n\nWhile executing %s", err, pl.steps[cur].node.Format())
		}
		return nil, err
	}
	if tagged {
		for s := range a.owned {
			a.adopt(s)
		}
	}
	return compile.Output(pl.out, a.vals), nil
}

// runGroup runs a group's tile program, or its nodes through the
// dispatcher when an input is not laid out as planned.
func (pl *plan) runGroup(s *pstep, a *arena) {
	g := pl.progs[s.prog]
	f := &a.frames[s.prog]
	copy(f.scalars, g.consts)
	for i := range g.ins {
		in := &g.ins[i]
		t, _ := a.vals[in.slot].(*tensor.Tensor)
		if t == nil || t.Device() != tensor.CPU || !slices.Equal(t.Sizes(), in.sizes) || t.Storage() == nil {
			pl.runMembers(s, a)
			return
		}
		switch in.mode {
		case mScalar:
			switch t.DType() {
			case tensor.Float32:
				f.inOff[i] = 0
				f.in[i] = nil
			case tensor.Float64:
			default:
				pl.runMembers(s, a)
				return
			}
		case mInPlace, mWhole:
			if t.DType() != in.dtype || !t.IsContiguous() {
				pl.runMembers(s, a)
				return
			}
			off, n := t.StorageOffset(), t.Numel()
			switch in.dtype {
			case tensor.Bool:
				f.in8[i] = tensor.Elems[uint8](t.Storage())[off : off+n]
			case tensor.Float32:
				f.in[i] = tensor.Elems[float32](t.Storage())[off : off+n]
			case tensor.Float64:
				f.in64[i] = tensor.Elems[float64](t.Storage())[off : off+n]
			default:
				f.in16[i] = tensor.Elems[uint16](t.Storage())[off : off+n]
			}
		case mGather, mPeriodic:
			if t.DType() != in.dtype || !slices.Equal(t.Strides(), in.strd) {
				pl.runMembers(s, a)
				return
			}
			if in.dtype == tensor.Bool {
				f.in8[i] = tensor.Elems[uint8](t.Storage())
			} else {
				f.in[i] = tensor.Elems[float32](t.Storage())
			}
			f.inOff[i] = t.StorageOffset()
		}
	}
	for _, rs := range g.rtScalars {
		t := a.vals[g.ins[rs[1]].slot].(*tensor.Tensor)
		off := t.StorageOffset()
		if t.DType() == tensor.Float64 {
			f.scalars[rs[0]] = float32(tensor.Elems[float64](t.Storage())[off])
		} else {
			f.scalars[rs[0]] = tensor.Elems[float32](t.Storage())[off]
		}
	}
	for i := range g.outs {
		o := &g.outs[i]
		var t *tensor.Tensor
		if o.header >= 0 {
			if t = a.headers[o.header]; t == nil {
				t = tensor.NewMetaContiguous(o.sizes, o.dtype, tensor.CPU)
				a.headers[o.header] = t
			}
		} else {
			t = tensor.NewMetaContiguous(o.sizes, o.dtype, tensor.CPU)
		}
		a.hookOn, a.fresh = pl.arena && !o.fresh, o.fresh
		tensor.MaterializeUninitFrom(t, a)
		a.hookOn, a.fresh = false, false
		if o.fresh {
			a.adopt(t.Storage())
		} else {
			a.own(t)
		}
		a.vals[o.slot] = t
		switch o.dtype {
		case tensor.Float32:
			f.out[i] = tensor.Elems[float32](t.Storage())[:t.Numel()]
		case tensor.Float64:
			f.out64[i] = tensor.Elems[float64](t.Storage())[:t.Numel()]
		default:
			f.out16[i] = tensor.Elems[uint16](t.Storage())[:t.Numel()]
		}
	}
	g.run(f, a.workersFor)
}

// runMembers runs a group's nodes one by one through the dispatcher.
func (pl *plan) runMembers(s *pstep, a *arena) {
	for _, m := range s.group {
		a.vals[m.slot] = m.call.Invoke(a.vals)
	}
	for _, m := range s.group {
		if !m.keep {
			a.vals[m.slot] = nil
		} else if !m.res {
			a.track(a.vals[m.slot], nil)
		}
	}
}

// String describes the plan: the calls folded into constants, its
// dispatcher calls, the views it makes itself and its tile programs.
func (pl *plan) String() string {
	var b strings.Builder
	for _, n := range pl.folded {
		fmt.Fprintf(&b, "constant %s\n", n.Format())
	}
	for _, s := range pl.steps {
		if s.view != nil {
			kept := ""
			if s.view.reuse {
				kept = " (header kept)"
			}
			fmt.Fprintf(&b, "view %s%s\n", s.node.Format(), kept)
			continue
		}
		if s.call != nil {
			into := ""
			if s.into != nil {
				into = s.into.describe()
			}
			fmt.Fprintf(&b, "call %s%s\n", s.node.Format(), into)
			continue
		}
		b.WriteString(pl.progs[s.prog].String())
	}
	return b.String()
}
