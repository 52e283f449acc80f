package cpu

import (
	"slices"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Fusion groups. The nodes are visited in graph order; a fusable node
// joins an open group of one of its inputs when it fits the group's
// iteration space (group.fit), else it starts a group. A group closes when
// a node outside it reads one of its values, or at a node that mutates an
// argument: its tile program then runs where its last member was, which
// is therefore a place every one of its inputs is computed and none of its
// values is read yet. Nothing else moves, so nodes that are not fused
// (matrix products, views, random ops, copies into inputs) keep their
// order.

// maxRow is the longest row a reduction or row op takes inside a group:
// device/cpu sums rows of up to 65536 elements in one piece (longer ones
// in pieces whose partial sums a tile could not reproduce), and a tile
// holds at least one row.
const maxRow = 1 << 16

type group struct {
	id      int
	shape   []int // the iteration space (full values have its layout)
	k       int   // trailing dims reduced (0: pointwise only)
	members []*fx.Node
	kind    map[*fx.Node]vkind
	specs   map[*fx.Node]*spec
	open    bool
	last    int // graph position of the last member that computes
}

func (g *group) rowShape() []int { return g.shape[:len(g.shape)-g.k] }

func (g *group) rowLen() int { return tensor.Numel(g.shape[len(g.shape)-g.k:]) }

type partition struct {
	nodes  []*fx.Node // graph order; a node's position is its slot
	pos    map[*fx.Node]int
	calls  map[*fx.Node]*compile.BoundCall
	info   func(*fx.Node) (vinfo, bool)
	groups []*group
	of     map[*fx.Node]*group
	// noFusion makes no groups (Options.NoFusion).
	noFusion bool
}

// flatSame reports whether shapes a and b have the same elements in the
// same flat order (equal after dropping their size-1 dims).
func flatSame(a, b []int) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i] == 1 {
			i++
		}
		for j < len(b) && b[j] == 1 {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

// rowBroadcast reports whether a value of shape v broadcasts against the
// space s as one value per row of the trailing k dims.
func rowBroadcast(v, s []int, k int) bool {
	if len(v) > len(s) {
		return false
	}
	off := len(s) - len(v)
	for i := range s {
		d := 1
		if i >= off {
			d = v[i-off]
		}
		if i < len(s)-k && d != s[i] {
			return false
		}
		if i >= len(s)-k && d != 1 {
			return false
		}
	}
	return true
}

// scalarOperand reports whether node operand x of a node with result
// shape out is read as one value (a one-element tensor broadcast).
func (p *partition) scalarOperand(x *fx.Node, out []int) bool {
	v, _ := p.info(x)
	return readAsScalar(v, out)
}

// readAsScalar reports whether an operand laid out as v, of a node with result
// shape out, is read as one value: a one-element tensor broadcast, or one
// of another dtype (a float64 0-d tensor).
func readAsScalar(v vinfo, out []int) bool {
	return v.numel() == 1 && (!flatSame(v.sizes, out) || v.dtype != tensor.Float32)
}

// fit says how node n (read as sp) joins the union of groups gs: the kind
// of its value and the group's k after it. With gs empty it says whether
// n starts a group.
func (p *partition) fit(n *fx.Node, sp *spec, gs []*group) (kind vkind, k int, shape []int, ok bool) {
	inG := func(v *fx.Node) (vkind, bool) {
		for _, g := range gs {
			if g.of(v) {
				return g.kind[v], true
			}
		}
		return 0, false
	}
	var S []int
	for _, g := range gs {
		if S == nil {
			S = g.shape
		} else if !slices.Equal(S, g.shape) {
			return 0, 0, nil, false
		}
		if g.k != 0 {
			if k != 0 && k != g.k {
				return 0, 0, nil, false
			}
			k = g.k
		}
	}
	out, _ := p.info(n)
	switch sp.kind {
	case kUnary, kUnaryGo, kBinary, kAxpy, kClamp, kLoad, kStore, kWhere, kGrad:
		if S == nil {
			S = out.sizes
		}
		var nk vkind
		switch {
		case flatSame(out.sizes, S):
			nk = full
		case k > 0 && flatSame(out.sizes, S[:len(S)-k]):
			nk = rowv
		default:
			return 0, 0, nil, false
		}
		for _, o := range sp.ins {
			if o.node == nil {
				continue
			}
			if p.scalarOperand(o.node, out.sizes) {
				if sp.kind == kAxpy {
					return 0, 0, nil, false
				}
				continue
			}
			vk, in := inG(o.node)
			if !in {
				continue // gathered or read in place
			}
			if sp.kind == kLoad || p.narrow(gs, o.node) {
				return 0, 0, nil, false // a conversion's input is read from memory; a converted result is only stored
			}
			if vk == nk {
				continue
			}
			oi, _ := p.info(o.node)
			if nk == full && vk == rowv && sp.kind == kBinary && rowBroadcast(oi.sizes, S, k) {
				continue
			}
			return 0, 0, nil, false
		}
		if sp.kind == kBinary && (sp.ins[0].node == nil || p.scalarOperand(sp.ins[0].node, out.sizes)) &&
			(sp.ins[1].node == nil || p.scalarOperand(sp.ins[1].node, out.sizes)) {
			return 0, 0, nil, false // two scalars
		}
		return nk, k, S, true
	case kReduce, kRowOp, kMidSum:
		x := sp.ins[0].node
		xi, _ := p.info(x)
		vk, in := inG(x)
		switch {
		case len(gs) == 0:
			// A group of its own: the input is read in place.
			if !xi.contiguous() {
				return 0, 0, nil, false
			}
			S = xi.sizes
		case !in || vk != full || !slices.Equal(xi.sizes, S) || p.narrow(gs, x):
			return 0, 0, nil, false
		}
		if k != 0 && k != sp.k {
			return 0, 0, nil, false
		}
		if sp.k > len(S) {
			return 0, 0, nil, false
		}
		N := tensor.Numel(S[len(S)-sp.k:])
		if N < 1 || N > maxRow || tensor.Numel(S) == 0 {
			return 0, 0, nil, false
		}
		for _, o := range sp.ins[1:] {
			if o.node != nil {
				if _, in := inG(o.node); in {
					return 0, 0, nil, false
				}
			}
		}
		switch sp.kind {
		case kReduce:
			return rowv, sp.k, S, true
		case kMidSum:
			return colv, sp.k, S, true
		}
		return full, sp.k, S, true
	}
	return 0, 0, nil, false
}

func (g *group) of(n *fx.Node) bool { _, ok := g.kind[n]; return ok }

// narrow reports whether v, a member of one of gs, is a conversion out of
// float32 (its value exists only in its result tensor).
func (p *partition) narrow(gs []*group, v *fx.Node) bool {
	for _, g := range gs {
		if sp := g.specs[v]; sp != nil && sp.kind == kStore {
			return true
		}
	}
	return false
}

// add makes n a member of g.
func (p *partition) add(g *group, n *fx.Node, sp *spec, kind vkind, k int) {
	g.members = append(g.members, n)
	g.kind[n] = kind
	g.specs[n] = sp
	g.k = k
	g.last = p.pos[n]
	p.of[n] = g
	if sp.kind == kRowOp && sp.row == oLayerNorm {
		// Its getitem users are aliases of its three results.
		for _, u := range n.Users() {
			i := u.Args()[1].(int)
			kk := full
			if i > 0 {
				kk = rowv
			}
			g.members = append(g.members, u)
			g.kind[u] = kk
			g.specs[u] = &spec{kind: kItem, name: "getitem", item: i, ins: []operand{{node: n}}}
			p.of[u] = g
		}
	}
}

// merge moves the members of h into g.
func (p *partition) merge(g, h *group) {
	for _, m := range h.members {
		g.members = append(g.members, m)
		g.kind[m] = h.kind[m]
		g.specs[m] = h.specs[m]
		p.of[m] = g
	}
	g.last = max(g.last, h.last)
	if h.k != 0 {
		g.k = h.k
	}
	h.members = nil
	h.open = false
	slices.SortFunc(g.members, func(a, b *fx.Node) int { return p.pos[a] - p.pos[b] })
}

// closeInputs closes the groups whose values n reads from outside.
func (p *partition) closeInputs(n *fx.Node, except *group) {
	for _, in := range n.InputNodes() {
		if g := p.of[in]; g != nil && g != except {
			g.open = false
		}
	}
}

// run partitions the graph.
func (p *partition) run() {
	p.of = map[*fx.Node]*group{}
	for _, n := range p.nodes {
		c := p.calls[n]
		if c == nil || p.of[n] != nil {
			continue // not a call, or a constant (foldConstants)
		}
		if op := c.Op(); op != nil && len(op.Schema.Mutates()) > 0 {
			for _, g := range p.groups {
				g.open = false
			}
		}
		sp, ok := classify(n, c, p.nodes, p.info)
		if !ok {
			sp, ok = layerNormSpec(n, c, p.nodes, p.info)
		}
		if ok && !p.noFusion && p.join(n, &sp) {
			continue
		}
		p.closeInputs(n, nil)
	}
	live := p.groups[:0]
	for _, g := range p.groups {
		if len(g.members) > 0 {
			live = append(live, g)
		}
	}
	p.groups = live
}

// join puts n into a group (an open group of its inputs, several merged,
// or a new one) and reports whether it could.
func (p *partition) join(n *fx.Node, sp *spec) bool {
	var cands []*group
	for _, o := range sp.ins {
		if o.node == nil {
			continue
		}
		if g := p.of[o.node]; g != nil && g.open && !slices.Contains(cands, g) {
			cands = append(cands, g)
		}
	}
	var chosen []*group
	var kind vkind
	var k int
	if len(cands) > 1 {
		if kk, kv, _, ok := p.fit(n, sp, cands); ok {
			chosen, kind, k = cands, kk, kv
		}
	}
	if chosen == nil {
		for _, g := range cands {
			if kk, kv, _, ok := p.fit(n, sp, []*group{g}); ok {
				chosen, kind, k = []*group{g}, kk, kv
				break
			}
		}
	}
	if chosen == nil {
		kk, kv, S, ok := p.fit(n, sp, nil)
		if !ok {
			return false
		}
		g := &group{id: len(p.groups), shape: slices.Clone(S), kind: map[*fx.Node]vkind{}, specs: map[*fx.Node]*spec{}, open: true}
		p.groups = append(p.groups, g)
		chosen, kind, k = []*group{g}, kk, kv
	}
	g := chosen[0]
	for _, h := range chosen[1:] {
		p.merge(g, h)
	}
	p.closeInputs(n, g)
	p.add(g, n, sp, kind, k)
	return true
}
